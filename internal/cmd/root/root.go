// Package root assembles the helix command tree and resolves configuration
// (flags > HELIX_* env > config file > defaults) before any command runs.
package root

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	auditCmd "github.com/helixhq/helix/internal/cmd/audit"
	catalogCmd "github.com/helixhq/helix/internal/cmd/catalog"
	configCmd "github.com/helixhq/helix/internal/cmd/config"
	decayCmd "github.com/helixhq/helix/internal/cmd/decay"
	doctorCmd "github.com/helixhq/helix/internal/cmd/doctor"
	embedCmd "github.com/helixhq/helix/internal/cmd/embed"
	importCmd "github.com/helixhq/helix/internal/cmd/import"
	jobsCmd "github.com/helixhq/helix/internal/cmd/jobs"
	manifestCmd "github.com/helixhq/helix/internal/cmd/manifest"
	mcpCmd "github.com/helixhq/helix/internal/cmd/mcp"
	memoryCmd "github.com/helixhq/helix/internal/cmd/memory"
	migrateCmd "github.com/helixhq/helix/internal/cmd/migrate"
	notifyCmd "github.com/helixhq/helix/internal/cmd/notify"
	patternsCmd "github.com/helixhq/helix/internal/cmd/patterns"
	profileCmd "github.com/helixhq/helix/internal/cmd/profile"
	scheduleCmd "github.com/helixhq/helix/internal/cmd/schedule"
	skillCmd "github.com/helixhq/helix/internal/cmd/skill"
	syncCmd "github.com/helixhq/helix/internal/cmd/sync"
	synthesizeCmd "github.com/helixhq/helix/internal/cmd/synthesize"
	toolCmd "github.com/helixhq/helix/internal/cmd/tool"
	versionCmd "github.com/helixhq/helix/internal/cmd/version"
	voiceCmd "github.com/helixhq/helix/internal/cmd/voice"
	workerCmd "github.com/helixhq/helix/internal/cmd/worker"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
)

// NewCmdRoot builds `helix` with every command group.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "helix <command> <subcommand> [flags]",
		Short: "Batch and scheduled jobs of the helix assistant platform",
		Long: `helix runs the batch and scheduled jobs of a personal AI-assistant platform.
Every job reads PostgreSQL, computes, and writes its results back.

Every setting flag (limits, timeouts, providers, tuning) can also be set in the
environment (HELIX_<COMMAND>_<FLAG>, e.g. HELIX_DECAY_RUN_BATCH_SIZE) or in the
config file (decay: {run: {batch-size: ...}}). Flags beat the environment, which
beats the file, which beats defaults. Per-invocation arguments (--user-id, --at,
--input, --dry-run, --yes, ...) come only from the command line.

` + cmdutil.ExitStatusHelp,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       f.AppVersion,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Name() == cobra.ShellCompRequestCmd || cmd.Name() == cobra.ShellCompNoDescRequestCmd {
				// completion offers what it can: a bad setting must not break the shell
				return nil
			}
			// an old flag name counts as its canonical flag given, before
			// cobra's group and required checks look at which flags changed
			notices, err := cmdutil.ApplyAliases(cmd)
			if err != nil {
				return err
			}
			// cobra checks these after this hook; any of its checks failing is
			// a usage error (cli.Main types errors from before Started as such)
			if err := cmd.ValidateRequiredFlags(); err != nil {
				return err
			}
			if err := cmd.ValidateFlagGroups(); err != nil {
				return err
			}
			f.Global.Started = true
			more, err := resolve(f, cmd)
			if err != nil {
				return err
			}
			// one log line each: a JSON object under -o json
			for _, n := range append(notices, more...) {
				f.Logger().Warn(n)
			}
			return nil
		},
	}
	f.JobTree = func() *cobra.Command { return jobTree(f) }
	cmd.SetVersionTemplate("helix {{.Version}}\n")
	cmd.SetFlagErrorFunc(cmdutil.WrapFlagError)

	g := f.Global
	pf := cmd.PersistentFlags()
	pf.StringVar(&g.ConfigFile, "config", "", "config file (default $XDG_CONFIG_HOME/helix/config.yaml, then /etc/helix/config.yaml; env HELIX_CONFIG)")
	pf.StringVarP(&g.Output, "output", "o", g.Output, "output format: text or json")
	pf.StringVar(&g.LogLevel, "log-level", g.LogLevel, "log level: debug, info, warn, error")
	pf.StringVar(&g.LogFormat, "log-format", g.LogFormat, "log format on stderr: text or json")

	_ = cmd.RegisterFlagCompletionFunc("output", cmdutil.CompleteWords("text", "json"))
	_ = cmd.RegisterFlagCompletionFunc("log-level", cmdutil.CompleteWords("debug", "info", "warn", "error"))
	_ = cmd.RegisterFlagCompletionFunc("log-format", cmdutil.CompleteWords("text", "json"))

	cmd.AddGroup(&cobra.Group{ID: "jobs", Title: "Jobs:"}, &cobra.Group{ID: "admin", Title: "Administration:"})
	for _, c := range []*cobra.Command{
		// jobs
		synthesizeCmd.NewCmdSynthesize(f, nil),
		profileCmd.NewCmdProfile(f),
		embedCmd.NewCmdEmbed(f, nil),
		memoryCmd.NewCmdMemory(f),
		patternsCmd.NewCmdPatterns(f),
		decayCmd.NewCmdDecay(f),
		syncCmd.NewCmdSync(f),
		catalogCmd.NewCmdCatalog(f),
		skillCmd.NewCmdSkill(f),
		voiceCmd.NewCmdVoice(f),
		manifestCmd.NewCmdManifest(f),
		toolCmd.NewCmdTool(f),
		mcpCmd.NewCmdMCP(f),
		workerCmd.NewCmdWorker(f, nil),
		jobsCmd.NewCmdJobs(f),
		scheduleCmd.NewCmdSchedule(f, f.JobTree),
	} {
		c.GroupID = "jobs"
		cmd.AddCommand(c)
	}
	for _, c := range []*cobra.Command{
		migrateCmd.NewCmdMigrate(f),
		importCmd.NewCmdImport(f),
		doctorCmd.NewCmdDoctor(f, nil),
		auditCmd.NewCmdAudit(f),
		notifyCmd.NewCmdNotify(f),
		configCmd.NewCmdConfig(f),
		versionCmd.NewCmdVersion(f),
	} {
		c.GroupID = "admin"
		cmd.AddCommand(c)
	}
	cmd.SetCompletionCommandGroupID("admin")
	// added now rather than by cobra at Execute, so that `completion bogus`
	// is refused like an unknown verb of any other group
	cmd.InitDefaultCompletionCmd()
	refuseUnknownSubcommands(f, cmd)
	cmdutil.WrapArgs(cmd)
	return cmd
}

// jobTree is a fresh command tree for schedule add to resolve a job's
// command line against: its flags bind into a copy of the factory's globals.
func jobTree(f *cmdutil.Factory) *cobra.Command {
	g := *f.Global
	c := *f
	c.Global = &g
	return NewCmdRoot(&c)
}

// refuseUnknownSubcommands makes `helix GROUP NOSUCH` a usage error (exit 2):
// cobra checks subcommand names only below the root and would print the
// group's help and exit 0. A group given no subcommand still prints its help.
func refuseUnknownSubcommands(f *cmdutil.Factory, c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(f, sub)
	}
	if !c.HasParent() || !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			var verbs []string
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() {
					verbs = append(verbs, sub.Name())
				}
			}
			what := "command"
			if cmd.Name() == "completion" {
				what = "shell"
			}
			return cmdutil.FlagErrorf("unknown %s %q for %q: use %s", what, args[0], cmd.CommandPath(), strings.Join(verbs, ", "))
		}
		if f.Global.JSON() {
			// -o json promises one JSON document: the group's listing, not its help text
			type sub struct {
				Name    string `json:"name"`
				Summary string `json:"summary"`
			}
			list := struct {
				Command     string `json:"command"`
				Summary     string `json:"summary"`
				Subcommands []sub  `json:"subcommands"`
			}{Command: cmd.CommandPath(), Summary: cmd.Short, Subcommands: []sub{}}
			for _, c := range cmd.Commands() {
				if c.IsAvailableCommand() {
					list.Subcommands = append(list.Subcommands, sub{c.Name(), c.Short})
				}
			}
			return cmdutil.WriteJSON(f.IOStreams.Out, list)
		}
		return cmd.Help()
	}
}

// resolve loads the configuration once and fills every flag the user did not
// give from the environment or the config file. A setting still set under a
// flag's old name (HELIX_CATALOG_FETCH_TIMEOUT) is taken, with a notice.
func resolve(f *cmdutil.Factory, cmd *cobra.Command) (notices []string, err error) {
	f.Global.Command = strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	f.Global.SchemaOptional = cmdutil.SchemaOptional(cmd)
	cfg, err := f.Config()
	if err != nil {
		return nil, cmdutil.InputError(err)
	}
	if cmd.Annotations[cmdutil.AnnotationReportsSettings] == "" {
		if err := cfg.Validate(); err != nil {
			return nil, cmdutil.InputError(err)
		}
	}
	oldKeys := map[string][]string{}
	for old, canonical := range cmdutil.AliasKeys(cmd) {
		oldKeys[canonical] = append(oldKeys[canonical], old)
	}
	var bindErr error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if bindErr != nil || fl.Changed || fl.Name == "help" || fl.Name == "config" || cmdutil.AliasOf(fl) != "" {
			return
		}
		key := cmdutil.FlagKey(cmd, fl)
		if cmdutil.IsArgument(key) {
			return
		}
		from := key
		if !cfg.IsSet(key) {
			from = ""
			for _, old := range oldKeys[key] {
				if cfg.IsSet(old) {
					from = old
					notices = append(notices, fmt.Sprintf("setting %s (%s) is deprecated: use %s (%s)", old, cfg.Source(old), key, config.EnvName(key)))
					break
				}
			}
		}
		if from == "" {
			return
		}
		if err := cmdutil.SetFlag(fl, cfg.Get(from)); err != nil {
			bindErr = cmdutil.FlagErrorf("invalid value for %s (from %s): %v", from, cfg.Source(from), err)
		}
	})
	if bindErr != nil {
		return nil, bindErr
	}
	if err := cmdutil.ValidateOutput(f.Global.Output); err != nil {
		return nil, err
	}
	switch f.Global.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return nil, cmdutil.FlagErrorf("invalid --log-level %q: use debug, info, warn or error", f.Global.LogLevel)
	}
	if f.Global.LogFormat != "text" && f.Global.LogFormat != "json" {
		return nil, cmdutil.FlagErrorf("invalid --log-format %q: use text or json", f.Global.LogFormat)
	}
	return notices, nil
}
