package composite

import (
	"context"

	"github.com/helixhq/helix/internal/cmd/skill/skillcfg"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/composite"
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
		o, err := skillcfg.ExecutorOptions(cfg)
		if err != nil {
			return nil, err
		}
		return skill.NewExecutor(o)
	}
}
