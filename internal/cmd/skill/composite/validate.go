package composite

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/composite"
	"github.com/helixhq/helix/internal/iostreams"
)

// ValidateOptions are the inputs of `skill validate`.
type ValidateOptions struct {
	IO   *iostreams.IOStreams
	F    *cmdutil.Factory
	File string
	// Registry answers whether a registry skill exists; nil uses the database.
	Registry composite.Checker
}

// NewCmdValidate checks a composite skill definition without running it.
func NewCmdValidate(f *cmdutil.Factory, runF func(*ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{IO: f.IOStreams, F: f}
	return &cobra.Command{
		Use:   "validate FILE|-",
		Short: "Check a composite skill definition without running it",
		Long: `Check a composite skill definition (YAML or JSON) and report every problem at
once, each with its line and column: syntax and schema errors (unknown or
mistyped fields, bad durations, invalid input_schema), step ids, unknown
skills (files next to the definition, NAME[@VERSION] in the registry),
forward references to steps that have not run yet, bad JSONPath and bad
conditions. Nothing runs and nothing is stored. The registry is only
consulted when a step names a registry skill.

A definition with problems exits 2; with --output json, stdout carries
{"valid": false, "problems": [{file, line, column, where, message}]}.

EXAMPLES
  helix skill validate testdata/composite/morning-brief.yaml
  helix skill validate workflow.json --output json

` + cmdutil.ExitStatus(cmdutil.ExitFailed, cmdutil.ExitUsage),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(opts)
			}
			return validateRun(cmd.Context(), opts)
		},
	}
}

// ValidateReport is the JSON output of validate.
type ValidateReport struct {
	File     string              `json:"file"`
	Valid    bool                `json:"valid"`
	Name     string              `json:"name,omitempty"`
	Version  string              `json:"version,omitempty"`
	Steps    int                 `json:"steps"`
	SHA256   string              `json:"sha256,omitempty"`
	Problems []composite.Problem `json:"problems"`
}

func validateRun(ctx context.Context, opts *ValidateOptions) error {
	reg := opts.Registry
	if reg == nil {
		reg = &registry{f: opts.F}
	}
	d, err := readDefinition(ctx, opts.F, opts.File, opts.IO.In, reg)
	var inv *composite.InvalidError
	if err != nil && !errors.As(err, &inv) {
		return err
	}
	rep := ValidateReport{File: opts.File, Valid: err == nil, Problems: []composite.Problem{}}
	if inv != nil {
		rep.Problems = inv.Problems
	}
	if d != nil {
		rep.Name, rep.Version, rep.Steps, rep.SHA256 = d.Name, d.Version, len(d.Steps), d.SHA256
	}
	if opts.F.Global.JSON() {
		if werr := cmdutil.WriteJSON(opts.IO.Out, rep); werr != nil {
			return werr
		}
		return err
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(opts.IO.Out, "%s: %s@%s is valid (%d steps)\n", opts.File, d.Name, d.Version, len(d.Steps))
	return err
}
