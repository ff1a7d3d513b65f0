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
	show, exec, run := NewCmdShow(f, nil), NewCmdExec(f, nil), compositeCmd.NewCmdRun(f, nil)
	// stored names from the database when it is reachable; exec and run also take a FILE
	show.ValidArgsFunction = cmdutil.CompleteFirstArg(cmdutil.CompleteColumn(f, "helix_skills", "name", false))
	exec.ValidArgsFunction = cmdutil.CompleteFirstArg(cmdutil.CompleteColumn(f, "helix_skills", "name", true))
	run.ValidArgsFunction = cmdutil.CompleteFirstArg(cmdutil.CompleteColumn(f, "helix_composite_skills", "name", true))
	cmd.AddCommand(show, exec)
	cmd.AddCommand(NewCmdEnable(f, nil), NewCmdDisable(f, nil), NewCmdRemove(f, nil))
	cmd.AddCommand(compositeCmd.NewCmdValidate(f, nil), compositeCmd.NewCmdAddComposite(f, nil), run)
	return cmd
}
