// Package cli is helix's entry point: it builds the factory and the command
// tree, runs it with a signal-aware context and maps the outcome to an exit code.
package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/helixhq/helix/internal/build"
	"github.com/helixhq/helix/internal/cmd/factory"
	"github.com/helixhq/helix/internal/cmd/root"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/earlysignal"
	"github.com/helixhq/helix/internal/safetext"
	"github.com/helixhq/helix/internal/skill"
)

// Main runs helix with os.Args and returns the exit code.
func Main() cmdutil.ExitCode {
	// A JavaScript skill's child process is no command of the user's: it
	// skips the command tree and the configuration, a millisecond of its start.
	if skill.IsChild(os.Args) {
		earlysignal.Release()
		return cmdutil.ExitCode(skill.RunChild(os.Stdin, os.Stdout))
	}
	// SIGINT and SIGTERM have been caught since package initialisation
	// (earlysignal): one that came already cancels ctx.
	ctx := earlysignal.Context(context.Background())
	f, cleanup := factory.New(build.Version)
	defer cleanup()
	// Only stdout's reader may leave: a service whose log reader (stderr)
	// is gone still dies of SIGPIPE, as before, rather than run on blind.
	f.IOStreams.ErrOut = sigpipeOnEPIPE{f.IOStreams.ErrOut}
	// The output format must be known before cobra parses anything: a usage
	// error is reported as JSON however -o json was given (early, late,
	// HELIX_OUTPUT, or the config file), since the desktop app reads stderr
	// line by line.
	given := EarlyOutput(os.Args[1:], "")
	f.Global.Output = cmp.Or(given, f.Global.Output)
	var err error
	cmd := root.NewCmdRoot(f)
	// helix ... | head: Go's runtime kills a process writing to a closed
	// stdout pipe with SIGPIPE (exit 141). Notified, the write returns EPIPE
	// instead, and a reader that has had enough is a quiet success (below).
	// A service (worker, mcp serve) keeps the runtime's default: its log
	// reader gone (a closed stderr), it dies of SIGPIPE and its supervisor
	// restarts it, rather than running on unheard.
	if c, _, ferr := cmd.Find(os.Args[1:]); ferr != nil || c.Annotations[cmdutil.AnnotationService] == "" {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	}
	if ctx.Err() != nil {
		// a signal before the command started: nothing is run
		err = beforeStart{context.Cause(ctx)}
	} else {
		err = cmd.ExecuteContext(ctx)
	}
	if err == nil || errors.Is(err, syscall.EPIPE) {
		return cmdutil.ExitOK
	}
	if !f.Global.Started && given == "" {
		// the configuration was not resolved: its output setting applies
		// to this error all the same (flags and usage errors included)
		f.Global.Output = ConfigOutput(os.Args[1:], f.Global.Output)
	}
	if !f.Global.Started && !errors.Is(err, context.Canceled) {
		// cobra refused the command line before any of helix's code ran
		err = &cmdutil.FlagError{Err: err}
	}
	code, kind := cmdutil.ExitCodeFor(ctx, err)
	if (code == cmdutil.ExitFailed && kind == "failed" || code == cmdutil.ExitPartial) && f.DBLost != nil && f.DBLost(context.WithoutCancel(ctx)) {
		// PostgreSQL died mid-run: the job's error is often a bare
		// "unexpected EOF"; the database not answering now says why
		err = fmt.Errorf("database connection lost (retry later): %w", err)
		code, kind = cmdutil.ExitUnavailable, "unavailable"
	}
	if code == cmdutil.ExitInterrupted {
		err = Interrupted(ctx, err)
	}
	if h := db.PoolerHint(err); h != "" && code == cmdutil.ExitUnavailable {
		err = fmt.Errorf("%w (%s)", err, h)
	}
	PrintError(f.IOStreams.ErrOut, f.Global.JSON(), err, code, kind)
	if code == cmdutil.ExitUsage && isFlagError(err) && !f.Global.JSON() {
		path := "helix"
		if c, _, ferr := cmd.Find(os.Args[1:]); ferr == nil && c != nil {
			path = c.CommandPath()
		}
		cmdutil.Fprintf(f.IOStreams.ErrOut, "Run '%s --help' for usage.\n", path)
	}
	return code
}

// EarlyOutput finds the output format before the command line is parsed:
// -o/--output anywhere before "--", else HELIX_OUTPUT, else def. A value
// that is not valid is left for the root command to refuse.
func EarlyOutput(args []string, def string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i = len(args)
		case a == "-o" || a == "--output":
			if i+1 < len(args) {
				return args[i+1]
			}
		case strings.HasPrefix(a, "--output="):
			return strings.TrimPrefix(a, "--output=")
		case strings.HasPrefix(a, "-o") && !strings.HasPrefix(a, "--"):
			return strings.TrimPrefix(strings.TrimPrefix(a, "-o"), "=")
		}
	}
	if v, ok := os.LookupEnv("HELIX_OUTPUT"); ok && v != "" {
		return v
	}
	return def
}

// beforeStart is a signal that came before the command started.
type beforeStart struct{ cause error }

func (e beforeStart) Error() string   { return e.cause.Error() + " before the command started" }
func (e beforeStart) Unwrap() []error { return []error{e.cause, context.Canceled} }

// ConfigOutput is the config file's output setting, for an error raised
// before the configuration was resolved: the file is the one --config (as
// given in args), HELIX_CONFIG or the default places name. A file that
// cannot be read, or a value that is not valid, leaves def.
func ConfigOutput(args []string, def string) string {
	path := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if a == "--config" && i+1 < len(args) {
			path = args[i+1]
		} else if v, ok := strings.CutPrefix(a, "--config="); ok {
			path = v
		}
	}
	cfg, err := config.Load(path)
	if err != nil {
		return def
	}
	if v := cfg.String("output"); cmdutil.ValidateOutput(v) == nil {
		return v
	}
	return def
}

func isFlagError(err error) bool {
	var fe *cmdutil.FlagError
	return errors.As(err, &fe)
}

// PrintError writes the final error on stderr: one line for people, one JSON
// object with --output json.
func PrintError(w io.Writer, asJSON bool, err error, code cmdutil.ExitCode, kind string) {
	if errors.Is(err, cmdutil.ErrSilent) {
		return
	}
	msg := err.Error()
	if code == cmdutil.ExitInterrupted && !strings.HasPrefix(msg, "interrupted") {
		msg = "interrupted: " + msg
	}
	if asJSON {
		// one line: the desktop app reads stderr a line at a time
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "code": int(code), "kind": kind}})
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	// an error often quotes outside text (a server's answer, a file's line)
	fmt.Fprintf(w, "helix: %s\n", safetext.Text(msg))
}

// Interrupted words a run a signal stopped the same way whichever path saw
// the cancellation first: Go says "context canceled" in one place and
// "terminated signal received" (the context's cause) in another. It becomes
// "interrupted by SIGTERM", then what the job was doing, if anything.
func Interrupted(ctx context.Context, err error) error {
	by := "interrupted"
	cause := context.Cause(ctx)
	if cause != nil && cause != context.Canceled {
		switch c := cause.Error(); c {
		case "interrupt signal received":
			by = "interrupted by SIGINT"
		case "terminated signal received":
			by = "interrupted by SIGTERM"
		default:
			by = "interrupted by " + strings.TrimSuffix(c, " received")
		}
	}
	msg := err.Error()
	for _, internal := range []string{context.Canceled.Error(), "interrupt signal received", "terminated signal received"} {
		msg = strings.ReplaceAll(msg, ": "+internal, "")
		msg = strings.ReplaceAll(msg, internal, "")
	}
	msg = strings.Trim(strings.TrimSpace(msg), ":")
	if msg == "" || msg == "interrupted" {
		return &interruptedError{msg: by, err: err}
	}
	return &interruptedError{msg: by + ": " + strings.TrimPrefix(msg, "interrupted: "), err: err}
}

type interruptedError struct {
	msg string
	err error
}

func (e *interruptedError) Error() string { return e.msg }
func (e *interruptedError) Unwrap() error { return e.err }

// sigpipeOnEPIPE writes to stderr and, when its reader has gone, ends the
// process with SIGPIPE: what Go does for fd 2 without signal.Notify.
type sigpipeOnEPIPE struct{ w io.Writer }

func (s sigpipeOnEPIPE) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		// Unnotified, Go's runtime ends the process with SIGPIPE on a
		// broken-pipe write to fd 2: write again once more to get exactly that.
		signal.Reset(syscall.SIGPIPE)
		_, _ = os.Stderr.Write(p)
	}
	return n, err
}
