package skill

import (
	"context"
	"errors"
	"fmt"
	"github.com/helixhq/helix/internal/cmd/shared"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/safetext"
	"github.com/helixhq/helix/internal/scrub"
	"github.com/helixhq/helix/internal/skill"
)

// ExecOptions are the inputs of `skill exec`.
type ExecOptions struct {
	IO     *iostreams.IOStreams
	F      *cmdutil.Factory
	Skill  string // NAME[@VERSION] or FILE
	Input  string // JSON, @file or -
	UserID cmdutil.UserID
	Env    []string // NAME=VALUE
	Log    bool
	Limits limitFlags
	// ScrubOutput prints the output as it was stored (scrubbed), not as
	// the skill returned it.
	ScrubOutput bool
	// AllowPrivate lets net: grants reach loopback and private addresses
	// and honours net:http= grants.
	AllowPrivate bool
}

// NewCmdExec runs a skill in the sandbox.
func NewCmdExec(f *cmdutil.Factory, runF func(*ExecOptions) error) *cobra.Command {
	opts := &ExecOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "exec NAME[@VERSION]|FILE",
		Short: "Run a skill in the sandbox on a JSON input",
		Long: `Run a stored skill (the latest version unless @VERSION is given) or a skill
file (.wasm or .js) on a JSON input, in a sandbox: no network but the hosts
it is granted (net:https=HOST[:PORT]), no files but a granted read-only
directory, no environment but declared variables, a fixed clock and seed
unless granted. The input is validated against the skill's JSON Schema first.

The skill's JSON result goes to stdout; with --output json, the whole record
(status, output, error, log, duration, limits). Every execution, including a
refused input, is recorded in skill_executions, with the output, error and
log scrubbed (keys, tokens, cards, emails, phone numbers replaced by [KEY],
[SECRET], …, and counted in skill_executions.scrubbed); --scrub-output
prints the output scrubbed too.

Limits: the lowest of --timeout/--memory/--output-limit/--cpu-limit, the
configuration's skill.timeout/skill.memory/skill.output-limit/skill.cpu-limit,
the skill's own, and the defaults (30s, 128MiB, 1MiB, 10s of CPU) wins. A
skill's requests are bounded by skill.net.max-requests (50 a run),
skill.net.timeout (10s), skill.net.max-request (1MiB) and
skill.net.max-response (4MiB); loopback and private addresses, and net:http=
grants, need --allow-private; link-local (cloud metadata) addresses never.

Statuses: ok, error (the skill failed: exit code, trap, exception, output not
JSON), timeout, cpu_limit, memory_limit, output_limit, refused (the skill
failed on a request its capabilities refuse) (exit 1), invalid_input (exit 2,
with the schema path). With --output json the record also has cpu_ms,
peak_rss_bytes and, when the skill made requests, network.

EXAMPLES
  helix skill exec openapi-ops --input @petstore.json
  helix skill exec rank@1.2.0 --input '{"items": [3, 1, 2]}' --user-id 6f1c…
  cat doc.json | helix skill exec ./openapi-ops.js --input - --timeout 2s --output json
  helix skill exec ./weather.js --input '{"city": "Oslo"}' --env API_KEY="$KEY" --cpu-limit 2s

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Skill = args[0]
			opts.Limits.TimeoutSet = cmd.Flags().Changed("timeout")
			opts.Limits.CPUSet = cmd.Flags().Changed("cpu-limit")
			if runF != nil {
				return runF(opts)
			}
			return execRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Input, "input", "{}", "the input: JSON text, @FILE, or - for stdin")
	cmdutil.UserIDVar(fl, &opts.UserID, "the user the skill runs for (UUID), recorded in the audit: their own skill of the name, else the shared one")
	fl.StringArrayVar(&opts.Env, "env", nil, "NAME=VALUE for a variable the skill declares (env:NAME capability)")
	fl.BoolVar(&opts.Log, "log", false, "print the skill's log (stderr, console.*) on stderr even when it succeeds")
	fl.BoolVar(&opts.ScrubOutput, "scrub-output", false, "print the output and log as stored: secrets and identifiers replaced")
	fl.DurationVar(&opts.Limits.Timeout, "timeout", 0, "wall-clock limit (default 30s)")
	fl.StringVar(&opts.Limits.Memory, "memory", "", "memory limit (default 128MiB)")
	fl.StringVar(&opts.Limits.OutputLimit, "output-limit", "", "output limit (default 1MiB)")
	fl.DurationVar(&opts.Limits.CPU, "cpu-limit", 0, "CPU-time limit, apart from --timeout (default 10s)")
	fl.BoolVar(&opts.AllowPrivate, "allow-private", false, "let the skill's granted hosts be loopback or private addresses, and honour net:http= grants")
	return cmd
}

func execRun(ctx context.Context, opts *ExecOptions) error {
	lim, err := opts.Limits.limits()
	if err != nil {
		return err
	}
	env := map[string]string{}
	for _, kv := range opts.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return cmdutil.FlagErrorf("invalid --env %q: use NAME=VALUE", kv)
		}
		env[k] = v
	}
	input, err := readInput(opts.Input, opts.IO.In)
	if err != nil {
		return cmdutil.InputError(err)
	}
	cfg, err := opts.F.Config()
	if err != nil {
		return cmdutil.InputError(err)
	}
	eo, err := shared.SkillExecutorOptions(cfg)
	if err != nil {
		return err
	}
	e, err := skill.NewExecutor(eo)
	if err != nil {
		return err
	}
	defer e.Close()
	e.Prestart(opts.Skill) // a JavaScript child starts while the database answers
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
		return err
	}
	s, err := e.ResolveFor(ctx, pool, opts.Skill, opts.UserID.Owner())
	if err != nil {
		return usageToInput(err)
	}
	res, err := e.Exec(ctx, pool, s, skill.ExecOptions{Input: input, UserID: opts.UserID.String(), Limits: lim, Env: env, AllowPrivate: opts.AllowPrivate})
	if err != nil {
		return usageToInput(err)
	}
	if opts.ScrubOutput {
		if res.Output != nil {
			res.Output = res.StoredOutput
		}
		res.Stderr, _ = scrub.Text(res.Stderr)
		res.Error, _ = scrub.Text(res.Error)
	}
	if opts.F.Global.JSON() {
		if err := cmdutil.WriteJSON(opts.IO.Out, res); err != nil {
			return err
		}
	} else if res.Status == skill.StatusOK {
		out := string(res.Output)
		if opts.IO.IsStdoutTTY() { // the skill's bytes, shown, never interpreted; a pipe gets them as they are
			out = safetext.Text(out)
		}
		if _, err := fmt.Fprintf(opts.IO.Out, "%s\n", out); err != nil {
			return err
		}
	}
	if res.Stderr != "" && (opts.Log || res.Status != skill.StatusOK) && !opts.F.Global.JSON() {
		cmdutil.Fprintf(opts.IO.ErrOut, "%s log:\n%s\n", res.Skill, indent(safetext.Text(res.Stderr)))
	}
	switch res.Status {
	case skill.StatusOK:
		return nil
	case skill.StatusInvalidInput:
		return cmdutil.InputError(fmt.Errorf("%s: invalid input: %s", res.Skill, res.Error))
	}
	return fmt.Errorf("%s: %s: %s", res.Skill, res.Status, res.Error)
}

// usageToInput maps the caller's mistakes to exit 2.
func usageToInput(err error) error {
	var ue *skill.UsageError
	if errors.As(err, &ue) {
		return cmdutil.InputError(err)
	}
	return err
}

func readInput(arg string, stdin io.Reader) ([]byte, error) {
	switch {
	case arg == "-":
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read input from stdin: %w", err)
		}
		return b, nil
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return nil, fmt.Errorf("read input: %w", err)
		}
		return b, nil
	}
	return []byte(arg), nil
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
