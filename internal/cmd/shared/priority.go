package shared

import (
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
)

// PriorityFlag adds --priority to a command with --enqueue (call it after
// RunE is set): the River priority of the jobs it queues, checked before
// the command runs. 0 leaves queue.PriorityFor's default.
func PriorityFlag(cmd *cobra.Command, p *int) {
	cmd.Flags().IntVar(p, "priority", 0, "with --enqueue: River priority of the queued jobs, 1 (fetched first) to 4 (last); default 1 for one user's jobs, 3 for --all-users and other batches")
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if c.Flags().Changed("priority") {
			if *p < 1 || *p > 4 {
				return cmdutil.FlagErrorf("invalid --priority %d: want 1 (fetched first) to 4", *p)
			}
			if enq, _ := c.Flags().GetBool("enqueue"); !enq {
				return cmdutil.FlagErrorf("--priority applies to queued jobs: add --enqueue")
			}
		}
		return run(c, args)
	}
}
