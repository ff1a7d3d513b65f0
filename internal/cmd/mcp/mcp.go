// Package mcp implements `helix mcp`: serve a user's approved tools, memory
// search and patterns to any MCP host (serve).
package mcp

import (
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
)

// NewCmdMCP builds `helix mcp`.
func NewCmdMCP(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp <command>",
		Short: "Speak the Model Context Protocol to agents and desktop apps",
	}
	cmd.AddCommand(NewCmdServe(f, nil))
	return cmd
}
