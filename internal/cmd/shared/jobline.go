package shared

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/jobs"
)

// ValidateJob resolves a job's command line against helix's command tree:
// the command must exist, be a job (not administration, not a service),
// carry no global or connection flag anywhere and accept the flags and
// arguments given. schedule add calls it before a schedule is stored, and
// the worker again before each fire runs (a row may have been written by
// other means than schedule add). It returns the command's path
// ("decay run"). Checks a command makes only when it runs (which of two
// flags is required, a file's content) are left to the first fire.
func ValidateJob(root *cobra.Command, argv []string) (string, error) {
	if len(argv) == 0 {
		return "", cmdutil.FlagErrorf("no job after --: e.g. helix schedule add nightly --cron @daily -- synthesize --all-users")
	}
	if strings.HasPrefix(argv[0], "-") {
		return "", cmdutil.FlagErrorf("the job must start with a command, not the flag %q: e.g. -- decay run --full", argv[0])
	}
	if err := refuseGlobalFlags(root, argv); err != nil {
		return "", err
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
	// the commands that are no jobs: the job table's (internal/jobs)
	if why := jobs.NotSchedulable(strings.Fields(path)...); why != "" {
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

// connectionFlags are flags no helix command has today, refused by name so
// that a job line never chooses its database or configuration even if one
// is added: a fire runs with the worker's.
var connectionFlags = []string{"database-url", "config"}

// refuseGlobalFlags refuses, anywhere in argv (after a -- too), the root's
// persistent flags (--config, --output, --log-level, --log-format and their
// short forms) and connection flags: a fire runs with the worker's
// configuration, database and output, and a job line must not retarget it.
func refuseGlobalFlags(root *cobra.Command, argv []string) error {
	long := map[string]bool{"help": true, "version": true}
	short := map[string]bool{"h": true, "v": true}
	for _, n := range connectionFlags {
		long[n] = true
	}
	root.PersistentFlags().VisitAll(func(fl *pflag.Flag) {
		long[fl.Name] = true
		if fl.Shorthand != "" {
			short[fl.Shorthand] = true
		}
	})
	for _, a := range argv {
		name, isFlag := "", false
		switch {
		case strings.HasPrefix(a, "--") && len(a) > 2:
			name, _, _ = strings.Cut(a[2:], "=")
			isFlag = long[name]
		case strings.HasPrefix(a, "-") && len(a) > 1 && a[1] != '-':
			name = a[1:2] // -ojson, -o json
			isFlag = short[name]
		}
		if isFlag {
			return cmdutil.FlagErrorf("job line %q: %s is not allowed in a scheduled job: a fire runs with the worker's configuration, database and output",
				strings.Join(argv, " "), a)
		}
	}
	return nil
}
