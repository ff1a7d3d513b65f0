package composite

import (
	"context"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/composite"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/toolexec"
)

// registry checks registry skills in the database, opened only when a step
// names one: a definition of skill files validates without a database.
type registry struct {
	f     *cmdutil.Factory
	s     *composite.Skills
	owner owner.Owner
}

func (r *registry) Check(ctx context.Context, ref string) error {
	if r.s == nil {
		pool, err := r.f.DB(ctx)
		if err != nil {
			return err
		}
		r.s = composite.NewSkills(nil, pool)
		r.s.Owner = r.owner
	}
	return r.s.Check(ctx, ref)
}

// CheckTool checks a tool step: the tool must be approved.
func (r *registry) CheckTool(ctx context.Context, ref string) error {
	pool, err := r.f.DB(ctx)
	if err != nil {
		return err
	}
	return (&toolexec.CompositeTools{Q: pool, Owner: r.owner}).CheckTool(ctx, ref)
}

// toolRunner runs tool steps as helix tool exec would, with the credentials
// of the environment and the config file, under the default caps.
func toolRunner(f *cmdutil.Factory, x *skill.Executor, pool *pgxpool.Pool) (*toolexec.CompositeTools, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, cmdutil.InputError(err)
	}
	file, _ := cfg.Get("tool-credentials").(map[string]any)
	secrets := &toolexec.Secrets{Env: os.LookupEnv, File: file}
	r := &toolexec.Runner{
		HTTP:   &toolexec.HTTPRunner{Secrets: secrets},
		MCP:    &toolexec.MCPRunner{Secrets: secrets},
		Skills: &toolexec.Skills{X: x, Q: pool},
		Now:    f.Now,
	}
	return &toolexec.CompositeTools{R: r, Q: pool, FindRuntime: toolexec.FindRuntime}, nil
}

// executorFromConfig is helix skill exec's sandbox under the operator's
// caps; JavaScript skills run in a child helix.
func executorFromConfig(f *cmdutil.Factory) func() (*skill.Executor, error) {
	return func() (*skill.Executor, error) {
		cfg, err := f.Config()
		if err != nil {
			return nil, cmdutil.InputError(err)
		}
		o, err := shared.SkillExecutorOptions(cfg)
		if err != nil {
			return nil, err
		}
		return skill.NewExecutor(o)
	}
}
