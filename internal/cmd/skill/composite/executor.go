package composite

import (
	"context"
	"fmt"
	"time"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/composite"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/skill"
)

// registry checks registry skills in the database, opened only when a step
// names one: a definition of skill files validates without a database.
type registry struct {
	f *cmdutil.Factory
	s *composite.Skills
}

func (r *registry) Check(ctx context.Context, ref string) error {
	if r.s == nil {
		pool, err := r.f.DB(ctx)
		if err != nil {
			return err
		}
		r.s = composite.NewSkills(nil, pool)
	}
	return r.s.Check(ctx, ref)
}

// executorFromConfig is helix skill exec's sandbox under the operator's
// caps; JavaScript skills run in a child helix.
func executorFromConfig(f *cmdutil.Factory) func() (*skill.Executor, error) {
	return func() (*skill.Executor, error) {
		cfg, err := f.Config()
		if err != nil {
			return nil, cmdutil.InputError(err)
		}
		o, err := executorOptions(cfg)
		if err != nil {
			return nil, err
		}
		return skill.NewExecutor(o)
	}
}

// executorOptions reads the operator's caps (skill.timeout, skill.memory,
// skill.output-limit) and the compiled-module cache (skill.cache-dir).
//
// It reads the same keys as `skill exec` (internal/cmd/skill/limits.go),
// which this package cannot import (that package imports this one): once the
// reading moves into internal/skill, both should call it.
func executorOptions(cfg *config.Config) (skill.ExecutorOptions, error) {
	o := skill.ExecutorOptions{CacheDir: cfg.String("skill.cache-dir")}
	if s := cfg.String("skill.timeout"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return o, cmdutil.InputError(fmt.Errorf("invalid skill.timeout %q (%s): use a duration such as 10s", s, cfg.Source("skill.timeout")))
		}
		o.Limits.Timeout = d
	}
	for key, dst := range map[string]*int64{"skill.memory": &o.Limits.MemoryBytes, "skill.output-limit": &o.Limits.OutputBytes} {
		if s := cfg.String(key); s != "" {
			n, err := skill.ParseBytes(s)
			if err != nil {
				return o, cmdutil.InputError(fmt.Errorf("%s (%s): %w", key, cfg.Source(key), err))
			}
			*dst = n
		}
	}
	return o, nil
}
