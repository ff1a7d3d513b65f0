package queue

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/synthesis"
)

// SynthesizeLLMArgs is one user's language-model synthesis
// (`synthesize --llm --all-users --enqueue`). Keys and base URLs are the
// worker's (llm.*); a per-run --max-cost cannot span jobs and is refused.
type SynthesizeLLMArgs struct {
	UserID        uuid.UUID        `json:"user_id" river:"unique"`
	Model         string           `json:"model" river:"unique"`
	ModelUnlisted bool             `json:"model_unlisted,omitempty"`
	Types         []string         `json:"types" river:"unique"`
	Since         time.Time        `json:"since,omitzero"`
	Limit         int              `json:"limit,omitempty"`
	Params        synthesis.Params `json:"params"`
}

// Kind names the job in river_job.kind.
func (SynthesizeLLMArgs) Kind() string { return jobs.KindSynthesizeLLM }

// InsertOpts makes the job unique per (user, model, types) while live.
func (a SynthesizeLLMArgs) InsertOpts() river.InsertOpts { return uniqueOpts(a.Kind()) }

// SynthesizeLLMWorker works SynthesizeLLMArgs with llmsynth.Synthesizer.User,
// the unit `synthesize --llm` runs per user, and completes the job in the
// transaction that writes the user's patterns.
type SynthesizeLLMWorker struct {
	river.WorkerDefaults[SynthesizeLLMArgs]
	d *Deps
}

// Work asks the model about one user.
func (w *SynthesizeLLMWorker) Work(ctx context.Context, job *river.Job[SynthesizeLLMArgs]) error {
	a := job.Args
	s, err := w.d.LLM(ctx, a)
	if err != nil {
		return err // the worker's settings: retried, so a fixed config picks it up
	}
	return work(ctx, w.d, job, jobrun.Spec{Job: jobs.RunSynthesizeLLM},
		func(ctx context.Context, run *jobrun.Run, counts map[string]any, complete completer) error {
			r, err := s.UserComplete(ctx, run.Conn, a.UserID, &run.ID, complete)
			counts["users"], counts["calls"], counts["patterns"], counts["cost_usd"] = 1, r.Calls, r.StoredPatterns, r.CostUSD
			return err
		})
}
