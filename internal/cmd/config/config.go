// Package config implements `helix config show`.
package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/tableprinter"
)

// NewCmdConfig is the `config` group.
func NewCmdConfig(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config <command>",
		Short: "Inspect helix's effective configuration",
	}
	cmd.AddCommand(NewCmdShow(f, nil))
	return cmd
}

// ShowOptions are the inputs of `config show`.
type ShowOptions struct {
	F      *cmdutil.Factory
	Root   *cobra.Command
	Prefix string
}

// Setting is one effective configuration value.
type Setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"` // flag, env NAME, file PATH, default
	Env    string `json:"env"`
}

// NewCmdShow prints every setting, its value (secrets redacted) and where it came from.
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{F: f}
	cmd := &cobra.Command{
		Use:   "show [PREFIX]",
		Short: "Print the effective configuration and where each value comes from",
		Long: `Print every setting helix knows: its key, its effective value (secrets and
URL passwords redacted), where the value came from (flag, env, file, default)
and the environment variable that sets it. A PREFIX keeps only matching keys.

Keys are the flag names under their command path: "synthesize.min-confidence"
is HELIX_SYNTHESIZE_MIN_CONFIDENCE in the environment and
  synthesize:
    min-confidence: 0.8
in the config file.

EXAMPLES
  helix config show
  helix config show decay --output json

` + cmdutil.ExitStatus(cmdutil.ExitFailed, cmdutil.ExitUsage),
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Root = cmd.Root()
			if len(args) == 1 {
				opts.Prefix = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return showRun(cmd, opts)
		},
	}
	return cmd
}

// Collect resolves every setting of the command tree under root (flags that
// are per-invocation arguments are not settings: they come only from the command line).
func Collect(cfg *config.Config, root *cobra.Command, running *cobra.Command) []Setting {
	var out []Setting
	cmdutil.Walk(root, func(key string, c *cobra.Command, fl *pflag.Flag) {
		if cmdutil.IsArgument(key) {
			return
		}
		s := Setting{Key: key, Env: config.EnvName(key)}
		if live := running.Flags().Lookup(fl.Name); live == fl && live.Changed {
			s.Value, s.Source = fl.Value.String(), "flag"
		} else if cfg.IsSet(key) {
			s.Value, s.Source = fmt.Sprint(cfg.Get(key)), cfg.Source(key)
		} else {
			s.Value, s.Source = fl.Value.String(), "default"
		}
		s.Value = config.Redact(key, s.Value)
		out = append(out, s)
	})
	for _, k := range config.Keys {
		env := config.EnvName(k.Name)
		if len(k.Env) > 0 {
			env += "," + strings.Join(k.Env, ",")
		}
		out = append(out, Setting{Key: k.Name, Value: config.Redact(k.Name, cfg.Get(k.Name)), Source: cfg.Source(k.Name), Env: env})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func showRun(cmd *cobra.Command, opts *ShowOptions) error {
	f := opts.F
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	var settings []Setting
	for _, s := range Collect(cfg, opts.Root, cmd) {
		if strings.HasPrefix(s.Key, opts.Prefix) {
			settings = append(settings, s)
		}
	}
	if len(settings) == 0 {
		return cmdutil.FlagErrorf("no setting starts with %q: helix config show lists them all", opts.Prefix)
	}
	if f.Global.JSON() {
		return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"config_file": cfg.File(), "settings": settings})
	}
	if cfg.File() != "" {
		cmdutil.Fprintf(f.IOStreams.ErrOut, "config file: %s\n", cfg.File())
	} else {
		cmdutil.Fprintf(f.IOStreams.ErrOut, "config file: none\n")
	}
	tp := tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
	tp.Header("KEY", "VALUE", "SOURCE", "ENV")
	for _, s := range settings {
		tp.Row(s.Key, s.Value, s.Source, s.Env)
	}
	return tp.Render()
}
