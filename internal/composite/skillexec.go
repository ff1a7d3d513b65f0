package composite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/skill"
)

// Skills runs steps with the sandbox of `helix skill exec`: each execution
// writes its skill_executions row, linked to the composite run.
type Skills struct {
	X *skill.Executor
	Q db.Querier
	// Tools runs the steps that name a tool; nil: such steps cannot run.
	Tools ToolRunner
	// Client is recorded with each skill execution ("": the helix CLI).
	Client string
	// Owner is whom the steps' skills are resolved for: the user's own
	// skill of a name, then the shared one.
	Owner owner.Owner

	mu     sync.Mutex
	loaded map[string]*skill.Skill // a skill is read once per run, even when retried
}

// NewSkills returns an Executor over x, reading the registry and recording through q.
func NewSkills(x *skill.Executor, q db.Querier) *Skills {
	return &Skills{X: x, Q: q, loaded: map[string]*skill.Skill{}}
}

// Check implements Checker over the skills table.
func (s *Skills) Check(ctx context.Context, ref string) error {
	_, err := s.load(ctx, ref)
	return err
}

func (s *Skills) load(ctx context.Context, ref string) (*skill.Skill, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sk, ok := s.loaded[ref]; ok {
		return sk, nil
	}
	var (
		sk  *skill.Skill
		err error
	)
	if IsFileSkill(ref) {
		sk, err = loadSkillFile(ref)
	} else {
		var r skill.Ref
		if r, err = skill.ParseRef(ref); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnknownSkill, err)
		}
		r.Owner = s.Owner
		sk, err = skill.Get(ctx, s.Q, r)
		if errors.Is(err, skill.ErrNotFound) {
			return nil, fmt.Errorf("%w %s: add it with helix skill add", ErrUnknownSkill, ref)
		}
	}
	if err != nil {
		return nil, err
	}
	s.loaded[ref] = sk
	return sk, nil
}

// CheckTool implements ToolChecker.
func (s *Skills) CheckTool(ctx context.Context, ref string) error {
	if s.Tools == nil {
		return fmt.Errorf("%w: tool %s: no tool runner", ErrUnknownTool, ref)
	}
	return s.Tools.CheckTool(ctx, ref)
}

// Exec implements Executor.
func (s *Skills) Exec(ctx context.Context, req ExecRequest) (ExecResult, error) {
	if req.Tool != "" {
		if s.Tools == nil {
			return ExecResult{}, fmt.Errorf("%w: tool %s: no tool runner", ErrUnknownTool, req.Tool)
		}
		return s.Tools.RunTool(ctx, req)
	}
	sk, err := s.load(ctx, req.Skill)
	if err != nil {
		return ExecResult{}, err
	}
	// The time left to the workflow (or step) becomes the skill's own
	// timeout, so that the sandbox stops it and records a timeout rather
	// than being abandoned by a cancelled context. Only a real cancellation
	// (interrupt, another parallel step stopping the run) cancels it.
	var lim skill.Limits
	xctx := ctx
	if dl, ok := ctx.Deadline(); ok {
		lim.Timeout = time.Until(dl)
		if lim.Timeout <= 0 {
			return ExecResult{Status: string(skill.StatusTimeout), Error: "no time left in the workflow"}, nil
		}
		c, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		stop := context.AfterFunc(ctx, func() {
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				cancel()
			}
		})
		defer stop()
		xctx = c
	}
	res, err := s.X.Exec(xctx, s.Q, sk, skill.ExecOptions{Input: req.Input, UserID: req.UserID, Limits: lim,
		CompositeExecutionID: req.CompositeExecutionID, Client: s.Client})
	if err != nil {
		return ExecResult{}, err
	}
	return ExecResult{Status: string(res.Status), Output: res.Output, Error: res.Error, ExecutionID: res.ExecutionID}, nil
}

// loadSkillFile reads a step's skill file (already resolved by SkillPath):
// the one function both a run and validation use, so that validation passes
// exactly the steps a run can start.
func loadSkillFile(path string) (*skill.Skill, error) {
	sk, err := skill.LoadFile(path)
	// The path is the caller's to name, as the definition writes it.
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, pe.Err
	}
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), path+": "))
	}
	return sk, nil
}
