package skill

import (
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/skill"
)

// NewCmdRunJS is the hidden child process that runs one JavaScript skill
// (request on stdin, outcome on stdout), so that a memory bomb kills it and
// not the helix that started it.
func NewCmdRunJS(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:    skill.ChildCommand,
		Short:  "Run one JavaScript skill (internal: started by helix skill exec)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if skill.RunChild(f.IOStreams.In, f.IOStreams.Out) != 0 {
				return cmdutil.ErrSilent
			}
			return nil
		},
	}
}
