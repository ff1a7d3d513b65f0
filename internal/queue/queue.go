// Package queue puts helix's jobs on River (github.com/riverqueue/river), the
// Postgres job queue `helix worker` works: the job kinds, their workers and
// the client both the enqueuing commands and the workers use.
package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/notify"
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

// River priorities (1 is fetched first, 4 last). A job queued for one
// user, which a person may be waiting for at the desktop app, goes ahead of
// a batch queued for every user: with the nightly batch queued, it starts as
// soon as a worker slot frees (issue 44). --priority overrides.
const (
	PriorityUser  = 1 // --user-id, one named thing (a URL, a source)
	PriorityBatch = 3 // --all-users, id ranges, partitions
)

// PriorityFor is the priority of jobs queued for one user (forUser) or for
// a batch, unless given (1 to 4) overrides it.
func PriorityFor(forUser bool, given int) int {
	switch {
	case given > 0:
		return given
	case forUser:
		return PriorityUser
	}
	return PriorityBatch
}

// EnqueueResult counts what an enqueue did, and names the jobs.
type EnqueueResult struct {
	Kind       string `json:"kind"`
	Queue      string `json:"queue"`
	Priority   int    `json:"priority"`
	Units      int    `json:"units"`
	Enqueued   int    `json:"enqueued"`
	Duplicates int    `json:"duplicates"` // already pending or running: not inserted again
	// Jobs are the queued jobs, in the order of the units: a duplicate is
	// the live job that was there already (duplicate: true), so that its
	// caller can wait for it all the same (helix jobs wait).
	Jobs []JobHandle `json:"jobs"`
}

// JobHandle is a queued job as an enqueuing command prints it.
type JobHandle struct {
	ID        int64   `json:"id"`
	Kind      string  `json:"kind"`
	Queue     string  `json:"queue"`
	UserID    *string `json:"user_id"` // the job's one user; null for a batch
	Priority  int     `json:"priority"`
	Duplicate bool    `json:"duplicate,omitempty"`
}

// Handle is the handle of a job row.
func Handle(r *rivertype.JobRow) JobHandle {
	h := JobHandle{ID: r.ID, Kind: r.Kind, Queue: r.Queue, Priority: r.Priority}
	var a struct {
		UserID *string `json:"user_id"`
	}
	if json.Unmarshal(r.EncodedArgs, &a) == nil && a.UserID != nil && *a.UserID != "" {
		h.UserID = a.UserID
	}
	return h
}

// enqueueBatch is how many jobs one InsertMany sends.
const enqueueBatch = 1000

// Enqueue inserts one job per args at priority (PriorityFor), in batches;
// jobs already live are skipped (and named in Jobs as duplicates).
func Enqueue[A interface {
	river.JobArgs
	river.JobArgsWithInsertOpts
}](ctx context.Context, c Inserter, args []A, priority int) (*EnqueueResult, error) {
	var zero A
	res := &EnqueueResult{Kind: zero.Kind(), Queue: zero.InsertOpts().Queue, Priority: priority, Units: len(args), Jobs: []JobHandle{}}
	for lo := 0; lo < len(args); lo += enqueueBatch {
		hi := min(lo+enqueueBatch, len(args))
		ps := make([]river.InsertManyParams, 0, hi-lo)
		for _, a := range args[lo:hi] {
			ps = append(ps, river.InsertManyParams{Args: a, InsertOpts: &river.InsertOpts{Priority: priority}})
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
			if r.Job != nil {
				h := Handle(r.Job)
				h.Duplicate = r.UniqueSkippedAsDuplicate
				res.Jobs = append(res.Jobs, h)
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
	river.AddWorker(ws, &notify.DeliverWorker{Settings: d.Notify, Log: d.Log})
	return ws
}

// EnsureQueue records queue name in river_queue as River's producers do
// when a worker starts it (same row, same defaults), so that it can be
// paused before any worker ran it. A row that exists is left as it is.
func EnsureQueue(ctx context.Context, q interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}, name string) error {
	_, err := q.Exec(ctx, `INSERT INTO river_queue (name, created_at, metadata, updated_at)
		VALUES ($1, now(), '{}', now()) ON CONFLICT (name) DO NOTHING`, name)
	return err
}
