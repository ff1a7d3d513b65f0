// Package profilecmd implements `helix profile`: build and show the one
// current profile per user (internal/profile).
package profilecmd

import (
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
)

// NewCmdProfile is the `profile` group.
func NewCmdProfile(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile <command>",
		Short: "Keep one current profile per user: summary, lineages, recommendations",
	}
	cmd.AddCommand(NewCmdUpdate(f, nil), NewCmdShow(f, nil))
	return cmd
}
