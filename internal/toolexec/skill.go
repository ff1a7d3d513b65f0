package toolexec

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/skill"
)

// Skills runs skill tools in the skill sandbox, with the tool manifest's
// timeout and memory as the caller's limits (the lowest of these, the
// operator's and the skill's own wins). The sandbox writes its own
// skill_executions row as well.
type Skills struct {
	X *skill.Executor
	Q db.Querier
}

// RunSkill implements SkillRunner.
func (s *Skills) RunSkill(ctx context.Context, ref string, input []byte, userID string, lim manifest.Limits) (*Result, error) {
	r, err := skill.ParseRef(ref)
	if err != nil {
		return nil, &RuntimeError{Msg: "skill entrypoint " + ref + ": " + err.Error()}
	}
	// a skill tool runs the skill of the user it runs for: their own of
	// that name, then the shared one
	if u, err := uuid.Parse(userID); err == nil {
		r.Owner = owner.User(u)
	}
	sk, err := skill.Get(ctx, s.Q, r)
	if err != nil {
		return nil, &RuntimeError{Msg: "skill entrypoint: " + err.Error()}
	}
	sl := skill.Limits{Timeout: time.Duration(lim.TimeoutMS) * time.Millisecond, MemoryBytes: lim.MemoryBytes}
	res, err := s.X.Exec(ctx, s.Q, sk, skill.ExecOptions{Input: input, UserID: userID, Limits: sl})
	if err != nil {
		return nil, err
	}
	out := res.Output
	if out == nil {
		out = json.RawMessage("null")
	}
	r2 := &Result{Status: string(res.Status), Output: out, Error: res.Error, BytesReceived: int64(len(res.Output))}
	if res.CPUMS > 0 || res.PeakRSSBytes > 0 {
		r2.CPUMS, r2.PeakRSSBytes = &res.CPUMS, &res.PeakRSSBytes
	}
	return r2, nil
}
