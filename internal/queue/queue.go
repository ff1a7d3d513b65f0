// Package queue puts helix's jobs on River (github.com/riverqueue/river), the
// Postgres job queue `helix worker` works: the job kinds, their workers and
// the client both the enqueuing commands and the workers use.
package queue

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/schedule"
)

// Queue names (the job table's, internal/jobs).
const (
	QueueSynthesize = jobs.QueueSynthesize
	// helix schedule (issue 16): fires, and the leader's tick passes
	QueueSchedule     = schedule.QueueFire
	QueueScheduleTick = schedule.QueueTick
)

// Queues is every queue helix puts jobs on.
var Queues = jobs.Queues()

// whileLive is the uniqueness window: a (kind, user) job is not inserted
// again while one is pending, scheduled, available, running or retryable.
// A completed one does not block the next night's job.
var whileLive = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
	rivertype.JobStateRetryable, rivertype.JobStateScheduled,
}

// Inserter is the slice of a River client enqueuing needs.
type Inserter interface {
	InsertMany(ctx context.Context, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
}

// NewInsertClient is a River client that only inserts (no queues, no workers).
func NewInsertClient(pool *pgxpool.Pool) (*river.Client[pgx.Tx], error) {
	return river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: slog.New(slog.DiscardHandler)})
}

// EnqueueResult counts what an enqueue did.
type EnqueueResult struct {
	Kind       string `json:"kind"`
	Queue      string `json:"queue"`
	Units      int    `json:"units"`
	Enqueued   int    `json:"enqueued"`
	Duplicates int    `json:"duplicates"` // already pending or running: not inserted again
}

// enqueueBatch is how many jobs one InsertMany sends.
const enqueueBatch = 1000

// Enqueue inserts one job per args, in batches; jobs already live are skipped.
func Enqueue[A interface {
	river.JobArgs
	river.JobArgsWithInsertOpts
}](ctx context.Context, c Inserter, args []A) (*EnqueueResult, error) {
	var zero A
	res := &EnqueueResult{Kind: zero.Kind(), Queue: zero.InsertOpts().Queue, Units: len(args)}
	for lo := 0; lo < len(args); lo += enqueueBatch {
		hi := min(lo+enqueueBatch, len(args))
		ps := make([]river.InsertManyParams, 0, hi-lo)
		for _, a := range args[lo:hi] {
			ps = append(ps, river.InsertManyParams{Args: a})
		}
		rs, err := c.InsertMany(ctx, ps)
		if err != nil {
			return res, fmt.Errorf("enqueue %s: %w", res.Kind, err)
		}
		for _, r := range rs {
			if r.UniqueSkippedAsDuplicate {
				res.Duplicates++
			} else {
				res.Enqueued++
			}
		}
	}
	return res, nil
}

// Workers registers a worker for every job kind of the table but the
// schedule's (schedule.AddWorkers): d's providers are reached lazily, so a
// worker without, say, an embeddings key works every other kind.
func Workers(d *Deps) *river.Workers {
	ws := river.NewWorkers()
	river.AddWorker(ws, &SynthesizeWorker{d: d})
	river.AddWorker(ws, &SynthesizeUsersWorker{d: d})
	river.AddWorker(ws, &DecayWorker{d: d})
	river.AddWorker(ws, &EmbedWorker{d: d})
	river.AddWorker(ws, &SynthesizeLLMWorker{d: d})
	river.AddWorker(ws, &ProfileUpdateWorker{d: d})
	river.AddWorker(ws, &TranscribeWorker{d: d})
	river.AddWorker(ws, &ReconcileWorker{d: d})
	river.AddWorker(ws, &CatalogFetchWorker{d: d})
	river.AddWorker(ws, &ManifestImportWorker{d: d})
	return ws
}
