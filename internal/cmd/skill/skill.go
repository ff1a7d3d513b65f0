// Package skill implements `helix skill`: store untrusted skills and run them
// in a sandbox with hard limits.
package skill

import (
	"github.com/spf13/cobra"

	compositeCmd "github.com/helixhq/helix/internal/cmd/skill/composite"
	"github.com/helixhq/helix/internal/cmdutil"
)

// NewCmdSkill is the `skill` group.
func NewCmdSkill(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skill <command>",
		Short: "Store untrusted skills (WebAssembly, JavaScript) and run them in a sandbox",
	}
	cmd.AddCommand(NewCmdAdd(f, nil))
	cmd.AddCommand(NewCmdList(f, nil))
	cmd.AddCommand(NewCmdShow(f, nil))
	cmd.AddCommand(NewCmdExec(f, nil))
	cmd.AddCommand(compositeCmd.NewCmdValidate(f, nil), compositeCmd.NewCmdAddComposite(f, nil), compositeCmd.NewCmdRun(f, nil))
	return cmd
}
