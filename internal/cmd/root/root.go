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
	importCmd "github.com/helixhq/helix/internal/cmd/import"
	jobsCmd "github.com/helixhq/helix/internal/cmd/jobs"
	manifestCmd "github.com/helixhq/helix/internal/cmd/manifest"
	migrateCmd "github.com/helixhq/helix/internal/cmd/migrate"
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

Every flag can also be set in the environment (HELIX_<COMMAND>_<FLAG>, e.g.
HELIX_DECAY_RUN_AT) or in the config file (decay: {run: {at: ...}}). Flags beat
the environment, which beats the file, which beats defaults.

` + cmdutil.ExitStatusHelp,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       f.AppVersion,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
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
		decayCmd.NewCmdDecay(f),
		syncCmd.NewCmdSync(f),
		catalogCmd.NewCmdCatalog(f),
		skillCmd.NewCmdSkill(f),
		voiceCmd.NewCmdVoice(f),
		manifestCmd.NewCmdManifest(f),
		toolCmd.NewCmdTool(f),
		workerCmd.NewCmdWorker(f, nil),
		jobsCmd.NewCmdJobs(f),
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
	return cmd
}

// resolve loads the configuration once and fills every flag the user did not
// give from the environment or the config file.
func resolve(f *cmdutil.Factory, cmd *cobra.Command) error {
	f.Global.Command = strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	cfg, err := f.Config()
	if err != nil {
		return cmdutil.InputError(err)
	}
	var bindErr error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if bindErr != nil || fl.Changed || fl.Name == "help" || fl.Name == "config" {
			return
		}
		key := cmdutil.FlagKey(cmd, fl)
		if !cfg.IsSet(key) {
			return
		}
		if err := cmdutil.SetFlag(fl, cfg.Get(key)); err != nil {
			bindErr = cmdutil.FlagErrorf("invalid value for %s (from %s): %v", key, cfg.Source(key), err)
		}
	})
	if bindErr != nil {
		return bindErr
	}
	return cmdutil.ValidateOutput(f.Global.Output)
}
