// Package memory implements `helix memory`: find memories (search) and keep
// their full-text index in the right language (reindex).
package memory

import (
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
)

// NewCmdMemory builds `helix memory`.
func NewCmdMemory(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory <command>",
		Short: "Search memories and manage their full-text index",
	}
	cmd.AddCommand(NewCmdSearch(f, nil), NewCmdReindex(f, nil))
	return cmd
}
