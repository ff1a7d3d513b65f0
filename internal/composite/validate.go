package composite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
)

// ErrUnknownSkill is wrapped by Executor.Check when the skill does not exist.
var ErrUnknownSkill = errors.New("unknown skill")

// ErrUnknownTool is wrapped by ToolChecker.CheckTool when the tool does not
// exist or is not approved.
var ErrUnknownTool = errors.New("tool cannot run")

// ToolChecker tells whether a step's tool may run (is approved).
type ToolChecker interface {
	CheckTool(ctx context.Context, tool string) error
}

// ToolRunner runs a step's tool (internal/toolexec provides it): each
// execution is audited in tool_executions, linked to the composite run.
type ToolRunner interface {
	ToolChecker
	RunTool(ctx context.Context, req ExecRequest) (ExecResult, error)
}

// checkSkills reports every step whose skill cannot run: a missing file, or
// a registry name the executor does not know.
func checkSkills(ctx context.Context, d *Definition, ex Checker) ([]Problem, error) {
	var probs []Problem
	for i, st := range d.Steps {
		if st.Tool != "" {
			where := fmt.Sprintf("steps[%d] (%s).tool", i, st.ID)
			tc, ok := ex.(ToolChecker)
			if !ok {
				probs = append(probs, Problem{File: d.File, Line: st.skillLine, Col: st.skillCol, Where: where, Message: "tool steps need a tool runner"})
				continue
			}
			if err := tc.CheckTool(ctx, st.Tool); err != nil {
				if !errors.Is(err, ErrUnknownTool) {
					return nil, err
				}
				probs = append(probs, Problem{File: d.File, Line: st.skillLine, Col: st.skillCol, Where: where, Message: err.Error()})
			}
			continue
		}
		if st.Skill == "" {
			continue
		}
		where := fmt.Sprintf("steps[%d] (%s).skill", i, st.ID)
		add := func(format string, args ...any) {
			probs = append(probs, Problem{File: d.File, Line: st.skillLine, Col: st.skillCol, Where: where, Message: fmt.Sprintf(format, args...)})
		}
		if IsFileSkill(st.Skill) {
			if d.Dir == "" {
				add("skill file %q in a stored composite skill: add it to the registry (helix skill add) and name it NAME@VERSION", st.Skill)
				continue
			}
			// Resolved exactly as a run resolves it (Skills.load): the same
			// path, read and recognised by the same function.
			if _, err := loadSkillFile(d.SkillPath(st.Skill)); errors.Is(err, fs.ErrNotExist) {
				add("unknown skill file %q: %v", st.Skill, err)
			} else if err != nil {
				add("skill file %q: %v", st.Skill, err)
			}
			continue
		}
		if err := ex.Check(ctx, st.Skill); err != nil {
			if !errors.Is(err, ErrUnknownSkill) {
				return nil, err
			}
			add("%v", err)
		}
	}
	return probs, nil
}

// Validate parses a definition and checks its skills, returning every
// problem at once in an *InvalidError. Errors of the executor's own (an
// unreachable database) are returned as they are.
func Validate(ctx context.Context, src []byte, file, dir string, ex Checker) (*Definition, error) {
	d, err := Parse(src, file, dir)
	var inv *InvalidError
	if err != nil && !errors.As(err, &inv) {
		return nil, err
	}
	if inv == nil {
		inv = &InvalidError{}
	}
	if d != nil {
		probs, err := checkSkills(ctx, d, ex)
		if err != nil {
			return nil, err
		}
		inv.Problems = append(inv.Problems, probs...)
	}
	sort.SliceStable(inv.Problems, func(i, j int) bool {
		a, b := inv.Problems[i], inv.Problems[j]
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	if len(inv.Problems) > 0 {
		return d, inv
	}
	return d, nil
}
