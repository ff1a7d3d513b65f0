// Package schedule implements `helix schedule`: cron schedules of helix jobs,
// stored in PostgreSQL and fired once across every `helix worker`.
package schedule

import (
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/schedule"
)

// JobTree returns a fresh copy of helix's command tree: `schedule add`
// resolves a job's command line against it (flags parsed into a copy never
// touch the running command's options).
type JobTree func() *cobra.Command

// NewCmdSchedule builds `helix schedule`.
func NewCmdSchedule(f *cmdutil.Factory, tree JobTree) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule <command>",
		Short: "Durable cron schedules of jobs, fired once across all workers",
		Long: `Keep cron schedules of helix jobs in the database. helix worker processes
run them: a tick pass every second turns each due tick into one fire (unique
per schedule and tick, whatever the number of workers, a crash or a
restart), and a worker runs the job's command line as a child process
(helix JOB ARGS --output json) and records status, duration, counts and
error in the schedule's history.

Without workers nothing fires; decay schedule is the single-process form for
a machine without them (it stores a schedule of decay run and fires it in its
own process with the same tick pass).`,
	}
	add := NewCmdAdd(f, tree, nil)
	_ = add.RegisterFlagCompletionFunc("timezone", cmdutil.CompleteTimezone)
	cmd.AddCommand(add, newCmdList(f))
	// schedule names from the database when it answers
	names := cmdutil.CompleteFirstArg(cmdutil.CompleteColumn(f, "helix_schedules", "name", false))
	for _, c := range []*cobra.Command{newCmdShow(f), newCmdPause(f, true), newCmdPause(f, false), newCmdRemove(f), newCmdRunNow(f), newCmdHistory(f)} {
		c.ValidArgsFunction = names
		cmd.AddCommand(c)
	}
	return cmd
}

// ValidateJob is shared.ValidateJob: schedule add and the worker's fires
// check a job line with the same function.
func ValidateJob(root *cobra.Command, argv []string) (string, error) {
	return shared.ValidateJob(root, argv)
}

// jobLine renders a job's command line for people.
func jobLine(argv []string) string { return schedule.JobLine(argv) }
