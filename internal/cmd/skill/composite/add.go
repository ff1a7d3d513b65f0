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

// AddCompositeOptions are the inputs of `skill add-composite`.
type AddCompositeOptions struct {
	IO     *iostreams.IOStreams
	F      *cmdutil.Factory
	File   string
	UserID cmdutil.UserID
}

// NewCmdAddComposite stores a composite skill definition in the registry.
func NewCmdAddComposite(f *cmdutil.Factory, runF func(*AddCompositeOptions) error) *cobra.Command {
	opts := &AddCompositeOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "add-composite FILE|-",
		Short: "Store a composite skill definition in the registry",
		Long: `Validate a composite skill definition (see helix skill validate) and store it
in composite_skills under its name and version, so that
"helix skill run NAME[@VERSION]" can run it.

A stored workflow must name its skills as registry skills (NAME or
NAME@VERSION) that exist: a skill file is refused, since the definition
would depend on where it was added from. Adding the same definition again
changes nothing; a different definition under a stored version is refused
(exit 2): bump the version.

--user-id stores the composite as that user's own (its steps resolve to the
user's own skills first, then the shared ones); without it, it is shared.

EXAMPLES
  helix skill add testdata/composite/email-summary.js --name email-summary --version 1.2.0
  helix skill add testdata/composite/rank.js --name rank --version 1.0.0
  helix skill add-composite testdata/composite/morning-brief-registry.yaml
  helix skill add-composite brief.yaml --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if runF != nil {
				return runF(opts)
			}
			return addCompositeRun(cmd.Context(), opts)
		},
	}
	cmdutil.UserIDVar(cmd.Flags(), &opts.UserID, "store the composite as this user's own (UUID); without it, shared")
	return cmd
}

func addCompositeRun(ctx context.Context, opts *AddCompositeOptions) error {
	if opts.UserID.Given {
		pool, err := opts.F.DB(ctx)
		if err != nil {
			return err
		}
		if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
			return err
		}
	}
	reg := &registry{f: opts.F, owner: opts.UserID.Owner()}
	d, err := readDefinition(ctx, opts.F, opts.File, opts.IO.In, reg)
	if err != nil {
		return err
	}
	for i, st := range d.Steps {
		if composite.IsFileSkill(st.Skill) {
			return cmdutil.InputError(fmt.Errorf("%s: steps[%d] (%s): skill file %q cannot be stored: add it with helix skill add and name it NAME@VERSION", opts.File, i, st.ID, st.Skill))
		}
	}
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	s, err := composite.SaveFor(ctx, pool, d, opts.UserID.Owner())
	if errors.Is(err, composite.ErrVersionExists) {
		return cmdutil.InputError(err)
	}
	if err != nil {
		return fmt.Errorf("store %s@%s: %w", d.Name, d.Version, err)
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, s)
	}
	if s.Created {
		_, err = fmt.Fprintf(opts.IO.Out, "added composite skill %s@%s (%d steps, sha256 %s)\n", s.Name, s.Version, len(d.Steps), s.SHA256[:12])
	} else {
		_, err = fmt.Fprintf(opts.IO.Out, "composite skill %s@%s is already stored with this definition\n", s.Name, s.Version)
	}
	return err
}
