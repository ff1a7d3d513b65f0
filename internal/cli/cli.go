// Package cli is helix's entry point: it builds the factory and the command
// tree, runs it with a signal-aware context and maps the outcome to an exit code.
package cli

import (
	"context"
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
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/skill"
)

// Main runs helix with os.Args and returns the exit code.
func Main() cmdutil.ExitCode {
	// A JavaScript skill's child process is no command of the user's: it
	// skips the command tree and the configuration, a millisecond of its start.
	if skill.IsChild(os.Args) {
		return cmdutil.ExitCode(skill.RunChild(os.Stdin, os.Stdout))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f, cleanup := factory.New(build.Version)
	defer cleanup()
	cmd := root.NewCmdRoot(f)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	code, kind := ExitCodeFor(ctx, err)
	PrintError(f.IOStreams.ErrOut, f.Global.JSON(), err, code, kind)
	if code == cmdutil.ExitUsage && isFlagError(err) && !f.Global.JSON() {
		cmdutil.Fprintf(f.IOStreams.ErrOut, "Run '%s --help' for usage.\n", strings.TrimSpace("helix "+f.Global.Command))
	}
	return code
}

// ExitCodeFor is the one mapping from errors to exit codes.
func ExitCodeFor(ctx context.Context, err error) (cmdutil.ExitCode, string) {
	var ee *cmdutil.ExitError
	var pe *cmdutil.PartialError
	switch {
	case err == nil:
		return cmdutil.ExitOK, ""
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return cmdutil.ExitInterrupted, "interrupted"
	case isFlagError(err):
		return cmdutil.ExitUsage, "usage"
	case errors.As(err, &ee):
		return ee.Code, ee.Kind
	case errors.As(err, &pe):
		return cmdutil.ExitPartial, "partial"
	case db.IsLockHeld(err):
		return cmdutil.ExitSkipped, "skipped"
	case db.IsUnavailable(err):
		return cmdutil.ExitUnavailable, "unavailable"
	}
	return cmdutil.ExitFailed, "failed"
}

func isFlagError(err error) bool {
	var fe *cmdutil.FlagError
	if errors.As(err, &fe) {
		return true
	}
	// cobra's own argument and command errors are not typed.
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "invalid argument", "flag needs an argument", "required flag", "if any flags in the group", "none of the others can be", "at least one of the flags in the group"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// PrintError writes the final error on stderr: one line for people, one JSON
// object with --output json.
func PrintError(w io.Writer, asJSON bool, err error, code cmdutil.ExitCode, kind string) {
	if errors.Is(err, cmdutil.ErrSilent) {
		return
	}
	msg := err.Error()
	if code == cmdutil.ExitInterrupted {
		msg = "interrupted: " + msg
	}
	if asJSON {
		_ = cmdutil.WriteJSON(w, map[string]any{"error": map[string]any{"message": msg, "code": int(code), "kind": kind}})
		return
	}
	fmt.Fprintf(w, "helix: %s\n", msg)
}
