package queue

import (
	"context"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/embed"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
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
func (EmbedArgs) Kind() string { return jobs.KindEmbed }

// InsertOpts makes the job unique per (user, model) while live.
func (a EmbedArgs) InsertOpts() river.InsertOpts { return uniqueOpts(a.Kind()) }

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
	return work(ctx, w.d, job, jobrun.Spec{Job: jobs.RunEmbed},
		func(ctx context.Context, run *jobrun.Run, counts map[string]any, complete completer) error {
			o := embed.Options{Model: a.Model, Reembed: a.Reembed, Complete: complete, Batch: embed.BatchOptions{
				BatchSize: a.BatchSize, BatchTokens: a.BatchTokens, MaxInputTokens: a.MaxInputTokens, Concurrency: a.Concurrency}}
			res, err := embed.User(ctx, run.Conn, e, a.UserID, o)
			counts["users"], counts["pending"], counts["embedded"], counts["requests"] = 1, res.Pending, res.Embedded, res.Requests
			return err
		})
}
