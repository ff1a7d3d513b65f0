// Package schedule implements `helix schedule`: cron schedules of helix jobs,
// stored in PostgreSQL and fired once across every `helix worker`.
package schedule

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
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

Without workers nothing fires; decay schedule stays the single-process form
for machines without them.`,
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

// refused are the commands of the jobs group that are no jobs to schedule.
var refused = map[string]string{
	"worker":         "it is the service that runs schedules",
	"jobs":           "it steers the queue, it is not a job",
	"schedule":       "it manages schedules, it is not a job",
	"decay schedule": "it is a long-running service; schedule decay run instead",
}

// ValidateJob resolves a job's command line against helix's command tree:
// the command must exist, be a job (not administration, not a service) and
// accept the flags and arguments given. It returns the command's path
// ("decay run"). Checks a command makes only when it runs (which of two
// flags is required, a file's content) are left to the first fire.
func ValidateJob(root *cobra.Command, argv []string) (string, error) {
	if len(argv) == 0 {
		return "", cmdutil.FlagErrorf("no job after --: e.g. helix schedule add nightly --cron @daily -- synthesize --all-users")
	}
	if strings.HasPrefix(argv[0], "-") {
		return "", cmdutil.FlagErrorf("the job must start with a command, not the flag %q: e.g. -- decay run --full", argv[0])
	}
	c, rest, err := root.Find(argv)
	if err != nil || c == root {
		return "", cmdutil.FlagErrorf("unknown job %q: see helix --help for the jobs", argv[0])
	}
	path := strings.TrimPrefix(c.CommandPath(), root.Name()+" ")
	top := c
	for top.Parent() != root {
		top = top.Parent()
	}
	if why, ok := refused[path]; ok {
		return "", cmdutil.FlagErrorf("%s cannot be scheduled: %s", path, why)
	}
	if why, ok := refused[top.Name()]; ok {
		return "", cmdutil.FlagErrorf("%s cannot be scheduled: %s", path, why)
	}
	if top.GroupID != "jobs" {
		return "", cmdutil.FlagErrorf("%s cannot be scheduled: it is an administration command, not a job", path)
	}
	if c.HasSubCommands() {
		var names []string
		for _, s := range c.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
			return "", cmdutil.FlagErrorf("unknown job %q: %s has %s", path+" "+rest[0], path, strings.Join(names, ", "))
		}
		return "", cmdutil.FlagErrorf("%s is a group: name one of its commands (%s)", path, strings.Join(names, ", "))
	}
	if err := c.ParseFlags(rest); err != nil {
		return "", cmdutil.FlagErrorf("job %s: %v", path, err)
	}
	for _, name := range []string{"output", "help", "version"} {
		if fl := c.Flags().Lookup(name); fl != nil && fl.Changed {
			return "", cmdutil.FlagErrorf("job %s: leave out --%s (a fire runs the job with --output json)", path, name)
		}
	}
	if err := c.ValidateArgs(c.Flags().Args()); err != nil {
		return "", cmdutil.FlagErrorf("job %s: %v", path, err)
	}
	if err := c.ValidateRequiredFlags(); err != nil {
		return "", cmdutil.FlagErrorf("job %s: %v", path, err)
	}
	if err := c.ValidateFlagGroups(); err != nil {
		return "", cmdutil.FlagErrorf("job %s: %v", path, err)
	}
	return path, nil
}

// jobLine renders a job's command line for people.
func jobLine(argv []string) string {
	q := slices.Clone(argv)
	for i, a := range q {
		if a == "" || strings.ContainsAny(a, " \t\"'\\$`") {
			q[i] = fmt.Sprintf("%q", a)
		}
	}
	return strings.Join(q, " ")
}
