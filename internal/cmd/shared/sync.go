package shared

import (
	"fmt"
	"sort"
	"strings"

	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/syncer"
)

// SyncStrategiesKey is the config key mapping entity types to merge strategies.
const SyncStrategiesKey = "sync.strategies"

// SyncStrategies reads sync.strategies: a map in the config file, or
// "type=strategy,type=strategy" in HELIX_SYNC_STRATEGIES; the sync
// commands' and a queue worker's. A value it cannot read is bad input.
func SyncStrategies(cfg *config.Config) (map[string]syncer.Strategy, error) {
	s, err := syncStrategies(cfg)
	return s, exitcode.AsInput(err)
}

func syncStrategies(cfg *config.Config) (map[string]syncer.Strategy, error) {
	raw := map[string]string{}
	switch v := cfg.Get(SyncStrategiesKey).(type) {
	case nil:
	case string:
		for _, pair := range strings.Split(v, ",") {
			if pair = strings.TrimSpace(pair); pair == "" {
				continue
			}
			typ, strat, ok := strings.Cut(pair, "=")
			if !ok {
				return nil, fmt.Errorf("%s: %q is not type=strategy", SyncStrategiesKey, pair)
			}
			raw[strings.TrimSpace(typ)] = strings.TrimSpace(strat)
		}
	case map[string]any:
		for typ, s := range v {
			raw[typ] = fmt.Sprint(s)
		}
	default:
		return nil, fmt.Errorf("%s must map entity types to strategies, not %T", SyncStrategiesKey, v)
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
			return nil, fmt.Errorf("%s.%s: %w", SyncStrategiesKey, t, err)
		}
		out[t] = s
	}
	return out, nil
}
