// Package queue puts helix's jobs on River (github.com/riverqueue/river), the
// Postgres job queue `helix worker` works: the job kinds, their workers and
// the client both the enqueuing commands and the workers use.
package queue

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/schedule"
	"github.com/helixhq/helix/internal/synthesis"
)

// Queue names. One queue per job family lets an operator give each its own
// workers (`helix worker --queues synthesize`).
const (
	QueueSynthesize = "synthesize"
	// helix schedule (issue 16): fires, and the leader's tick passes
	QueueSchedule     = schedule.QueueFire
	QueueScheduleTick = schedule.QueueTick
)

// Queues is every queue helix puts jobs on.
var Queues = append([]string{QueueSynthesize, QueueSchedule, QueueScheduleTick}, jobQueues...)

// whileLive is the uniqueness window: a (kind, user) job is not inserted
// again while one is pending, scheduled, available, running or retryable.
// A completed one does not block the next night's job.
var whileLive = []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
	rivertype.JobStateRetryable, rivertype.JobStateScheduled,
}

// SynthesizeArgs is one user's synthesis.
type SynthesizeArgs struct {
	UserID uuid.UUID        `json:"user_id" river:"unique"`
	Since  time.Time        `json:"since,omitzero"`
	Limit  int              `json:"limit,omitempty"`
	Params synthesis.Params `json:"params"`
}

// Kind names the job in river_job.kind.
func (SynthesizeArgs) Kind() string { return "synthesize" }

// InsertOpts makes the job unique per user while live.
func (SynthesizeArgs) InsertOpts() river.InsertOpts { return uniqueOpts(QueueSynthesize, 10) }

// SynthesizeWorker works SynthesizeArgs with synthesis.User, the same unit
// `helix synthesize` runs in-process, under the same per-user lock, and
// completes the job in the transaction that writes the synthesis.
type SynthesizeWorker struct {
	river.WorkerDefaults[SynthesizeArgs]
	Pool *pgxpool.Pool
	Now  func() time.Time
}

// Work synthesizes one user. A user another run holds is tried again later.
func (w *SynthesizeWorker) Work(ctx context.Context, job *river.Job[SynthesizeArgs]) error {
	a := job.Args
	now := w.Now
	if now == nil {
		now = time.Now
	}
	params := map[string]any{"user_id": a.UserID, "params": a.Params, "river_job_id": job.ID, "attempt": job.Attempt}
	err := jobrun.Do(ctx, w.Pool, jobrun.Spec{Job: "synthesize", Params: params, NoReap: true, Now: now},
		func(ctx context.Context, run *jobrun.Run) (any, error) {
			counts := map[string]int{"users": 1, "done": 1}
			write := &synthesis.Write{RunID: &run.ID, Now: now(), Complete: func(ctx context.Context, tx pgx.Tx) error {
				if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
					return err
				}
				return run.OKTx(ctx, tx, counts)
			}}
			n, ps, err := synthesis.User(ctx, run.Conn, a.UserID, synthesis.Filter{Since: a.Since, Limit: a.Limit}, a.Params, write, nil)
			counts["memories"], counts["patterns"] = n, len(ps)
			return counts, err
		})
	if db.IsLockHeld(err) {
		return river.JobSnooze(5 * time.Second)
	}
	return err
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

// Workers registers a worker for every job kind.
func Workers(pool *pgxpool.Pool, now func() time.Time) *river.Workers {
	ws := river.NewWorkers()
	river.AddWorker(ws, &SynthesizeWorker{Pool: pool, Now: now})
	river.AddWorker(ws, &SynthesizeUsersWorker{Pool: pool, Now: now})
	return ws
}
