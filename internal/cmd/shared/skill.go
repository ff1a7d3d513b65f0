package shared

import (
	"fmt"
	"strconv"
	"time"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/size"
	"github.com/helixhq/helix/internal/skill"
)

// SkillExecutorOptions reads the operator's caps (skill.timeout, skill.memory,
// skill.output-limit, skill.cpu-limit, skill.max-code-size, skill.net.*) and
// the compiled-module cache (skill.cache-dir), for
// `skill exec`, `skill run` and `tool exec` alike.
func SkillExecutorOptions(cfg *config.Config) (skill.ExecutorOptions, error) {
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
		dst *time.Duration
	}{{"skill.cpu-limit", &o.Limits.CPU}, {"skill.net.timeout", &o.Net.RequestTimeout}} {
		if s := cfg.String(k.key); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return o, cmdutil.InputError(fmt.Errorf("invalid %s %q (%s): use a positive duration such as 10s", k.key, s, cfg.Source(k.key)))
			}
			*k.dst = d
		}
	}
	if s := cfg.String("skill.net.max-requests"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return o, cmdutil.InputError(fmt.Errorf("invalid skill.net.max-requests %q (%s): use a whole number of at least 1", s, cfg.Source("skill.net.max-requests")))
		}
		o.Net.MaxRequests = n
	}
	for _, k := range []struct {
		key string
		dst *int64
	}{{"skill.memory", &o.Limits.MemoryBytes}, {"skill.output-limit", &o.Limits.OutputBytes}, {"skill.max-code-size", &o.MaxCodeBytes},
		{"skill.net.max-request", &o.Net.MaxRequestBytes}, {"skill.net.max-response", &o.Net.MaxResponseBytes}} {
		if s := cfg.String(k.key); s != "" {
			n, err := size.Parse(s)
			if err != nil {
				return o, cmdutil.InputError(fmt.Errorf("%s (%s): %w", k.key, cfg.Source(k.key), err))
			}
			*k.dst = n
		}
	}
	return o, nil
}
