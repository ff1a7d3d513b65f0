package queue

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/embed"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/synthesis"
)

// EmbedArgs is one user's embeddings (`embed --all-users --enqueue`). The
// provider is the worker's (embed.base-url, embed.api-key): only the model
// travels with the job.
type EmbedArgs struct {
	UserID         uuid.UUID `json:"user_id" river:"unique"`
	Model          string    `json:"model" river:"unique"`
	Reembed        bool      `json:"reembed,omitempty"`
	BatchSize      int       `json:"batch_size"`
	BatchTokens    int       `json:"batch_tokens"`
	MaxInputTokens int       `json:"max_input_tokens"`
	Concurrency    int       `json:"concurrency"`
}

// Kind names the job in river_job.kind.
func (EmbedArgs) Kind() string { return "embed" }

// InsertOpts makes the job unique per (user, model) while live.
func (EmbedArgs) InsertOpts() river.InsertOpts { return uniqueOpts(QueueEmbed, 10) }

// EmbedWorker works EmbedArgs with embed.User, the unit `helix embed` runs
// per user, and completes the job in the transaction that writes the embeddings.
type EmbedWorker struct {
	river.WorkerDefaults[EmbedArgs]
	d *Deps
}

// Work embeds one user's pending memories.
func (w *EmbedWorker) Work(ctx context.Context, job *river.Job[EmbedArgs]) error {
	a := job.Args
	e, err := w.d.Embedder(a.Model)
	if err != nil {
		return err
	}
	params := map[string]any{"user_id": a.UserID, "model": a.Model, "reembed": a.Reembed}
	return work(ctx, w.d, job, jobrun.Spec{Job: "embed"}, params,
		func(ctx context.Context, run *jobrun.Run, counts map[string]any, complete completer) error {
			o := embed.Options{Model: a.Model, Reembed: a.Reembed, Complete: complete, Batch: embed.BatchOptions{
				BatchSize: a.BatchSize, BatchTokens: a.BatchTokens, MaxInputTokens: a.MaxInputTokens, Concurrency: a.Concurrency}}
			res, err := embed.User(ctx, run.Conn, e, a.UserID, o)
			counts["users"], counts["pending"], counts["embedded"], counts["requests"] = 1, res.Pending, res.Embedded, res.Requests
			return err
		})
}

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
func (SynthesizeLLMArgs) Kind() string { return "synthesize_llm" }

// InsertOpts makes the job unique per (user, model, types) while live.
func (SynthesizeLLMArgs) InsertOpts() river.InsertOpts { return uniqueOpts(QueueLLM, 5) }

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
	params := map[string]any{"user_id": a.UserID, "model": a.Model, "types": a.Types}
	return work(ctx, w.d, job, jobrun.Spec{Job: "synthesize-llm"}, params,
		func(ctx context.Context, run *jobrun.Run, counts map[string]any, complete completer) error {
			r, err := s.UserComplete(ctx, run.Conn, a.UserID, &run.ID, complete)
			counts["users"], counts["calls"], counts["patterns"], counts["cost_usd"] = 1, r.Calls, r.StoredPatterns, r.CostUSD
			return err
		})
}
