package composite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/composite"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/skill"
)

// RunOptions are the inputs of `skill run`.
type RunOptions struct {
	IO     *iostreams.IOStreams
	F      *cmdutil.Factory
	Target string // NAME[@VERSION] or a definition file
	Input  string // JSON, @file or -
	UserID cmdutil.UserID
	// NewExecutor builds the skill sandbox; tests give one whose JavaScript child is the test binary.
	NewExecutor func() (*skill.Executor, error)
}

// NewCmdRun runs a composite skill.
func NewCmdRun(f *cmdutil.Factory, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IOStreams, F: f, NewExecutor: executorFromConfig(f)}
	cmd := &cobra.Command{
		Use:   "run NAME[@VERSION]|FILE --input JSON|@file|-",
		Short: "Run a composite skill (a multi-step workflow)",
		Long: `Run a composite skill: a stored one by NAME or NAME@VERSION (the most recently
added version when none is given), or a definition file, which is validated
first. Each step runs its skill in the sandbox of helix skill exec and writes
its skill_executions row, linked to the run's composite_skill_executions row.

stdout gets the workflow's output. With --output json it gets the whole
record instead: status, error, duration, output, and for each step its id,
skill, status, attempts (with their times and backoff delays), duration,
output (capped at 64 KiB) and error.

The run fails (exit 1) when a step stops it, when the workflow timeout
expires or when the output cannot be built; an input that does not match the
input_schema exits 2. The record is written in every case.

EXAMPLES
  helix skill run testdata/composite/morning-brief.yaml --input '{"query": "report"}'
  helix skill run morning-brief@1.0.0 --input @input.json --output json
  echo '{"query": "report"}' | helix skill run morning-brief --input -

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Input, "input", "{}", "workflow input: JSON, @file, or - for stdin")
	cmdutil.UserIDVar(cmd.Flags(), &opts.UserID, "user (UUID) recorded with the run and its skill executions: their own composite and skills of a name first, then the shared ones")
	return cmd
}

// readInput reads --input: inline JSON, @file or - (stdin).
func readInput(arg string, in io.Reader) (json.RawMessage, error) {
	var b []byte
	var err error
	switch {
	case arg == "-":
		b, err = io.ReadAll(in)
	case strings.HasPrefix(arg, "@"):
		b, err = os.ReadFile(arg[1:])
	default:
		b = []byte(arg)
	}
	if err != nil {
		return nil, cmdutil.InputError(fmt.Errorf("--input: %w", err))
	}
	if !json.Valid(b) {
		return nil, cmdutil.InputError(fmt.Errorf("--input is not a JSON document"))
	}
	return json.RawMessage(strings.TrimSpace(string(b))), nil
}

func runRun(ctx context.Context, opts *RunOptions) error {
	input, err := readInput(opts.Input, opts.IO.In)
	if err != nil {
		return err
	}
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	x, err := opts.NewExecutor()
	if err != nil {
		return err
	}
	defer x.Close()
	if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
		return err
	}
	ex := composite.NewSkills(x, pool)
	ex.Owner = opts.UserID.Owner()
	tools, err := toolRunner(opts.F, x, pool)
	if err != nil {
		return err
	}
	tools.Owner = opts.UserID.Owner()
	ex.Tools = tools
	var (
		d      *composite.Definition
		stored int64
	)
	if fi, statErr := os.Stat(opts.Target); statErr == nil && fi.Mode().IsRegular() {
		d, err = readDefinition(ctx, opts.F, opts.Target, opts.IO.In, ex)
	} else {
		d, stored, err = composite.LoadFor(ctx, pool, opts.Target, opts.UserID.Owner())
		if errors.Is(err, composite.ErrNotFound) {
			err = cmdutil.InputError(err)
		}
	}
	if err != nil {
		return err
	}
	id, err := composite.Start(ctx, pool, d, stored, opts.UserID.String(), "", input)
	if err != nil {
		return fmt.Errorf("record the run of %s@%s: %w", d.Name, d.Version, err)
	}
	rec := composite.Run(ctx, d, input, composite.RunOptions{Executor: ex, ID: id, UserID: opts.UserID.String()})
	if err := composite.Finish(ctx, pool, rec); err != nil {
		return fmt.Errorf("record the run of %s@%s: %w", d.Name, d.Version, err)
	}
	if opts.F.Global.JSON() {
		if err := cmdutil.WriteJSON(opts.IO.Out, rec); err != nil {
			return err
		}
	} else if rec.Status == composite.StatusOK {
		if err := writeOutput(opts.IO.Out, rec.Output); err != nil {
			return err
		}
	}
	return runError(ctx, rec)
}

// writeOutput prints the workflow output indented, like every JSON result of helix.
func writeOutput(w io.Writer, out json.RawMessage) error {
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		return err
	}
	return cmdutil.WriteJSON(w, v)
}

// runError maps how the run ended to helix's exit codes.
func runError(ctx context.Context, rec *composite.Record) error {
	msg := fmt.Sprintf("composite skill %s@%s (run %d): %s", rec.Name, rec.Version, rec.ID, rec.Error)
	switch rec.Status {
	case composite.StatusOK:
		return nil
	case composite.StatusInvalidInput:
		return cmdutil.InputError(errors.New(msg))
	case composite.StatusCancelled:
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return errors.New(msg)
}
