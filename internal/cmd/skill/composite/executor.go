package composite

import (
	"context"

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

// defaultExecutor is helix skill exec's sandbox with its default limits and
// compiled-module cache; JavaScript skills run in a child helix.
func defaultExecutor() (*skill.Executor, error) {
	return skill.NewExecutor(skill.ExecutorOptions{})
}
