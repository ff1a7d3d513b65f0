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
}

// NewCmdExec runs a skill in the sandbox.
func NewCmdExec(f *cmdutil.Factory, runF func(*ExecOptions) error) *cobra.Command {
	opts := &ExecOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "exec NAME[@VERSION]|FILE",
		Short: "Run a skill in the sandbox on a JSON input",
		Long: `Run a stored skill (the latest version unless @VERSION is given) or a skill
file (.wasm or .js) on a JSON input, in a sandbox: no network, no files but a
granted read-only directory, no environment but declared variables, a fixed
clock and seed unless granted. The input is validated against the skill's
JSON Schema first.

The skill's JSON result goes to stdout; with --output json, the whole record
(status, output, error, log, duration, limits). Every execution, including a
refused input, is recorded in skill_executions.

Limits: the lowest of --timeout/--memory/--output-limit, the configuration's
skill.timeout/skill.memory/skill.output-limit, the skill's own, and the
defaults (30s, 128MiB, 1MiB) wins.

Statuses: ok, error (the skill failed: exit code, trap, exception, output not
JSON), timeout, memory_limit, output_limit (exit 1), invalid_input (exit 2,
with the schema path).

EXAMPLES
  helix skill exec openapi-ops --input @petstore.json
  helix skill exec rank@1.2.0 --input '{"items": [3, 1, 2]}' --user-id 6f1c…
  cat doc.json | helix skill exec ./openapi-ops.js --input - --timeout 2s --output json

` + cmdutil.ExitStatusHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Skill = args[0]
			opts.Limits.TimeoutSet = cmd.Flags().Changed("timeout")
			if runF != nil {
				return runF(opts)
			}
			return execRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Input, "input", "{}", "the input: JSON text, @FILE, or - for stdin")
	cmdutil.UserIDVar(fl, &opts.UserID, "the user the skill runs for (UUID), recorded in the audit")
	fl.StringArrayVar(&opts.Env, "env", nil, "NAME=VALUE for a variable the skill declares (env:NAME capability)")
	fl.BoolVar(&opts.Log, "log", false, "print the skill's log (stderr, console.*) on stderr even when it succeeds")
	fl.DurationVar(&opts.Limits.Timeout, "timeout", 0, "wall-clock limit (default 30s)")
	fl.StringVar(&opts.Limits.Memory, "memory", "", "memory limit (default 128MiB)")
	fl.StringVar(&opts.Limits.OutputLimit, "output-limit", "", "output limit (default 1MiB)")
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
	s, err := e.Resolve(ctx, pool, opts.Skill)
	if err != nil {
		return usageToInput(err)
	}
	res, err := e.Exec(ctx, pool, s, skill.ExecOptions{Input: input, UserID: opts.UserID.String(), Limits: lim, Env: env})
	if err != nil {
		return usageToInput(err)
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
