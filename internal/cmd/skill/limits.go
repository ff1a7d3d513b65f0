package skill

import (
	"fmt"
	"time"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/skill"
)

// limitFlags are the --timeout, --memory and --output-limit flags.
type limitFlags struct {
	Timeout     time.Duration
	Memory      string
	OutputLimit string
}

// limits parses the flags; an unset flag is a zero field (no cap from flags).
func (l limitFlags) limits() (skill.Limits, error) {
	var out skill.Limits
	if l.Timeout < 0 {
		return out, cmdutil.FlagErrorf("invalid --timeout %s: use a positive duration", l.Timeout)
	}
	out.Timeout = l.Timeout
	var err error
	if l.Memory != "" {
		if out.MemoryBytes, err = skill.ParseBytes(l.Memory); err != nil {
			return out, cmdutil.FlagErrorf("--memory: %v", err)
		}
	}
	if l.OutputLimit != "" {
		if out.OutputBytes, err = skill.ParseBytes(l.OutputLimit); err != nil {
			return out, cmdutil.FlagErrorf("--output-limit: %v", err)
		}
	}
	return out, nil
}

// executorOptions reads the operator's caps and the cache directory from the configuration.
func executorOptions(cfg *config.Config) (skill.ExecutorOptions, error) {
	o := skill.ExecutorOptions{CacheDir: cfg.String("skill.cache-dir")}
	if s := cfg.String("skill.timeout"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return o, cmdutil.InputError(fmt.Errorf("invalid skill.timeout %q (%s): use a duration such as 10s", s, cfg.Source("skill.timeout")))
		}
		o.Limits.Timeout = d
	}
	for _, k := range []struct {
		key string
		dst *int64
	}{{"skill.memory", &o.Limits.MemoryBytes}, {"skill.output-limit", &o.Limits.OutputBytes}} {
		if s := cfg.String(k.key); s != "" {
			n, err := skill.ParseBytes(s)
			if err != nil {
				return o, cmdutil.InputError(fmt.Errorf("%s (%s): %w", k.key, cfg.Source(k.key), err))
			}
			*k.dst = n
		}
	}
	return o, nil
}
