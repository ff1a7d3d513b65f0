// Package root assembles the helix command tree and resolves configuration
// (flags > HELIX_* env > config file > defaults) before any command runs.
package root

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	catalogCmd "github.com/helixhq/helix/internal/cmd/catalog"
	configCmd "github.com/helixhq/helix/internal/cmd/config"
	decayCmd "github.com/helixhq/helix/internal/cmd/decay"
	doctorCmd "github.com/helixhq/helix/internal/cmd/doctor"
	embedCmd "github.com/helixhq/helix/internal/cmd/embed"
	importCmd "github.com/helixhq/helix/internal/cmd/import"
	jobsCmd "github.com/helixhq/helix/internal/cmd/jobs"
	manifestCmd "github.com/helixhq/helix/internal/cmd/manifest"
	memoryCmd "github.com/helixhq/helix/internal/cmd/memory"
	migrateCmd "github.com/helixhq/helix/internal/cmd/migrate"
	scheduleCmd "github.com/helixhq/helix/internal/cmd/schedule"
	skillCmd "github.com/helixhq/helix/internal/cmd/skill"
	syncCmd "github.com/helixhq/helix/internal/cmd/sync"
	synthesizeCmd "github.com/helixhq/helix/internal/cmd/synthesize"
	toolCmd "github.com/helixhq/helix/internal/cmd/tool"
	versionCmd "github.com/helixhq/helix/internal/cmd/version"
	voiceCmd "github.com/helixhq/helix/internal/cmd/voice"
	workerCmd "github.com/helixhq/helix/internal/cmd/worker"
	"github.com/helixhq/helix/internal/cmdutil"
)

// NewCmdRoot builds `helix` with every command group.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "helix <command> <subcommand> [flags]",
		Short: "Batch and scheduled jobs of the helix assistant platform",
		Long: `helix runs the batch and scheduled jobs of a personal AI-assistant platform.
Every job reads PostgreSQL, computes, and writes its results back.

Every setting flag (limits, timeouts, providers, tuning) can also be set in the
environment (HELIX_<COMMAND>_<FLAG>, e.g. HELIX_DECAY_RUN_CHUNK_SIZE) or in the
config file (decay: {run: {chunk-size: ...}}). Flags beat the environment, which
beats the file, which beats defaults. Per-invocation arguments (--user-id, --at,
--input, --all, --dry-run, --yes, ...) come only from the command line.

` + cmdutil.ExitStatusHelp,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       f.AppVersion,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			// cobra checks these after this hook; any of its checks failing is
			// a usage error (cli.Main types errors from before Started as such)
			if err := cmd.ValidateRequiredFlags(); err != nil {
				return err
			}
			if err := cmd.ValidateFlagGroups(); err != nil {
				return err
			}
			f.Global.Started = true
			return resolve(f, cmd)
		},
	}
	cmd.SetVersionTemplate("helix {{.Version}}\n")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &cmdutil.FlagError{Err: err} })

	g := f.Global
	pf := cmd.PersistentFlags()
	pf.StringVar(&g.ConfigFile, "config", "", "config file (default $XDG_CONFIG_HOME/helix/config.yaml, then /etc/helix/config.yaml; env HELIX_CONFIG)")
	pf.StringVarP(&g.Output, "output", "o", g.Output, "output format: text or json")
	pf.StringVar(&g.LogLevel, "log-level", g.LogLevel, "log level: debug, info, warn, error")
	pf.StringVar(&g.LogFormat, "log-format", g.LogFormat, "log format on stderr: text or json")

	cmd.AddGroup(&cobra.Group{ID: "jobs", Title: "Jobs:"}, &cobra.Group{ID: "admin", Title: "Administration:"})
	for _, c := range []*cobra.Command{
		// jobs
		synthesizeCmd.NewCmdSynthesize(f, nil),
		embedCmd.NewCmdEmbed(f, nil),
		memoryCmd.NewCmdMemory(f),
		decayCmd.NewCmdDecay(f),
		syncCmd.NewCmdSync(f),
		catalogCmd.NewCmdCatalog(f),
		skillCmd.NewCmdSkill(f),
		voiceCmd.NewCmdVoice(f),
		manifestCmd.NewCmdManifest(f),
		toolCmd.NewCmdTool(f),
		workerCmd.NewCmdWorker(f, nil),
		jobsCmd.NewCmdJobs(f),
		scheduleCmd.NewCmdSchedule(f, func() *cobra.Command { return jobTree(f) }),
	} {
		c.GroupID = "jobs"
		cmd.AddCommand(c)
	}
	for _, c := range []*cobra.Command{
		migrateCmd.NewCmdMigrate(f),
		importCmd.NewCmdImport(f),
		doctorCmd.NewCmdDoctor(f, nil),
		configCmd.NewCmdConfig(f),
		versionCmd.NewCmdVersion(f),
	} {
		c.GroupID = "admin"
		cmd.AddCommand(c)
	}
	cmd.SetCompletionCommandGroupID("admin")
	refuseUnknownSubcommands(cmd)
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
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if !c.HasParent() || !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return cmdutil.FlagErrorf("unknown command %q for %q", args[0], cmd.CommandPath())
		}
		return cmd.Help()
	}
}

// resolve loads the configuration once and fills every flag the user did not
// give from the environment or the config file.
func resolve(f *cmdutil.Factory, cmd *cobra.Command) error {
	f.Global.Command = strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	cfg, err := f.Config()
	if err != nil {
		return cmdutil.InputError(err)
	}
	if cmd.Annotations[cmdutil.AnnotationReportsSettings] == "" {
		if err := cfg.Validate(); err != nil {
			return cmdutil.InputError(err)
		}
	}
	var bindErr error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if bindErr != nil || fl.Changed || fl.Name == "help" || fl.Name == "config" {
			return
		}
		key := cmdutil.FlagKey(cmd, fl)
		if cmdutil.IsArgument(key) || !cfg.IsSet(key) {
			return
		}
		if err := cmdutil.SetFlag(fl, cfg.Get(key)); err != nil {
			bindErr = cmdutil.FlagErrorf("invalid value for %s (from %s): %v", key, cfg.Source(key), err)
		}
	})
	if bindErr != nil {
		return bindErr
	}
	if err := cmdutil.ValidateOutput(f.Global.Output); err != nil {
		return err
	}
	switch f.Global.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return cmdutil.FlagErrorf("invalid --log-level %q: use debug, info, warn or error", f.Global.LogLevel)
	}
	if f.Global.LogFormat != "text" && f.Global.LogFormat != "json" {
		return cmdutil.FlagErrorf("invalid --log-format %q: use text or json", f.Global.LogFormat)
	}
	return nil
}
