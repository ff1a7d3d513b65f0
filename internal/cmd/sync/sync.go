// Package synccmd implements `helix sync`: reconcile devices' pending edits,
// show the backlog, and settle conflicts of manually merged entity types.
package synccmd

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/syncer"
)

// NewCmdSync is the `sync` group.
func NewCmdSync(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sync <command>",
		Short: "Converge edits from several devices (vector clocks)",
	}
	cmd.AddCommand(NewCmdReconcile(f, nil), NewCmdStatus(f, nil), NewCmdConflicts(f))
	return cmd
}

// StrategiesKey is the config key mapping entity types to merge strategies.
const StrategiesKey = "sync.strategies"

// strategies reads sync.strategies: a map in the config file, or
// "type=strategy,type=strategy" in HELIX_SYNC_STRATEGIES.
// Strategies reads sync.strategies: the command's and a queue worker's.
func Strategies(cfg *config.Config) (map[string]syncer.Strategy, error) { return strategies(cfg) }

func strategies(cfg *config.Config) (map[string]syncer.Strategy, error) {
	raw := map[string]string{}
	switch v := cfg.Get(StrategiesKey).(type) {
	case nil:
	case string:
		for _, pair := range strings.Split(v, ",") {
			if pair = strings.TrimSpace(pair); pair == "" {
				continue
			}
			typ, strat, ok := strings.Cut(pair, "=")
			if !ok {
				return nil, fmt.Errorf("%s: %q is not type=strategy", StrategiesKey, pair)
			}
			raw[strings.TrimSpace(typ)] = strings.TrimSpace(strat)
		}
	case map[string]any:
		for typ, s := range v {
			raw[typ] = fmt.Sprint(s)
		}
	default:
		return nil, fmt.Errorf("%s must map entity types to strategies, not %T", StrategiesKey, v)
	}
	out := make(map[string]syncer.Strategy, len(raw))
	types := make([]string, 0, len(raw))
	for t := range raw {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		s, err := syncer.ParseStrategy(raw[t])
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", StrategiesKey, t, err)
		}
		out[t] = s
	}
	return out, nil
}
