// Package synccmd implements `helix sync`: reconcile devices' pending edits,
// show the backlog, and settle conflicts of manually merged entity types.
package synccmd

import (
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
)

// NewCmdSync is the `sync` group.
func NewCmdSync(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sync <command>",
		Short: "Converge edits from several devices (vector clocks)",
	}
	cmd.AddCommand(NewCmdReconcile(f, nil), NewCmdStatus(f, nil), NewCmdConflicts(f))
	return cmd
}
