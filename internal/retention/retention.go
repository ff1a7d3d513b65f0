// Package retention prunes helix's own bookkeeping by age: job_runs, the
// schedules' fire history and River's finished jobs. Audit tables are not its business.
package retention

import (
	"context"
	"fmt"
	"time"

	"github.com/helixhq/helix/internal/db"
)

// Policy is how long each kind of bookkeeping is kept; 0 keeps it forever.
type Policy struct {
	JobRuns       time.Duration // job_runs rows of finished runs
	ScheduleFires time.Duration // helix_schedule_fires rows of finished fires
	CompletedJobs time.Duration // River's completed jobs
	CancelledJobs time.Duration // River's cancelled jobs
	DiscardedJobs time.Duration // River's discarded jobs (failed after their retries)
}

// All keeps everything for d.
func All(d time.Duration) Policy {
	return Policy{JobRuns: d, ScheduleFires: d, CompletedJobs: d, CancelledJobs: d, DiscardedJobs: d}
}

// River is p's period in the form River's client config takes (-1: forever).
func River(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// Result counts the rows a prune removed (or would remove, in a dry run), by table.
type Result struct {
	JobRuns       int64 `json:"job_runs"`
	ScheduleFires int64 `json:"schedule_fires"`
	CompletedJobs int64 `json:"river_completed"`
	CancelledJobs int64 `json:"river_cancelled"`
	DiscardedJobs int64 `json:"river_discarded"`
}

// Total is every row of r.
func (r Result) Total() int64 {
	return r.JobRuns + r.ScheduleFires + r.CompletedJobs + r.CancelledJobs + r.DiscardedJobs
}

// Batch is how many rows one DELETE removes: each batch is its own short
// transaction, so a prune after a million-user night never holds locks on
// a million rows, and an interrupted one keeps what it did.
const Batch = 5000

// what a prune removes. Only finished rows: a running job_runs row, a fire
// whose River job is still live (an interrupted fire is run again when its
// job is retried) and a River job not yet finalized all stay.
type target struct {
	field func(*Result) *int64
	keep  func(Policy) time.Duration
	// cutoff is $1, the batch size $2
	del   string
	count string
}

var targets = []target{
	{
		field: func(r *Result) *int64 { return &r.JobRuns }, keep: func(p Policy) time.Duration { return p.JobRuns },
		del: `WITH d AS (SELECT id FROM job_runs WHERE status <> 'running' AND finished_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
			DELETE FROM job_runs j USING d WHERE j.id = d.id`,
		count: `SELECT count(*) FROM job_runs WHERE status <> 'running' AND finished_at < $1`,
	},
	{
		field: func(r *Result) *int64 { return &r.ScheduleFires }, keep: func(p Policy) time.Duration { return p.ScheduleFires },
		del: `WITH d AS (SELECT f.id FROM helix_schedule_fires f WHERE f.finished_at < $1
				AND NOT EXISTS (SELECT 1 FROM river_job r WHERE r.id = f.river_job_id AND r.finalized_at IS NULL)
				LIMIT $2 FOR UPDATE OF f SKIP LOCKED)
			DELETE FROM helix_schedule_fires f USING d WHERE f.id = d.id`,
		count: `SELECT count(*) FROM helix_schedule_fires f WHERE f.finished_at < $1
			AND NOT EXISTS (SELECT 1 FROM river_job r WHERE r.id = f.river_job_id AND r.finalized_at IS NULL)`,
	},
	riverTarget("completed", func(r *Result) *int64 { return &r.CompletedJobs }, func(p Policy) time.Duration { return p.CompletedJobs }),
	riverTarget("cancelled", func(r *Result) *int64 { return &r.CancelledJobs }, func(p Policy) time.Duration { return p.CancelledJobs }),
	riverTarget("discarded", func(r *Result) *int64 { return &r.DiscardedJobs }, func(p Policy) time.Duration { return p.DiscardedJobs }),
}

// riverTarget deletes River's jobs of one finished state as River's own
// job cleaner does (by river_job_state_and_finalized_at_index).
func riverTarget(state string, field func(*Result) *int64, keep func(Policy) time.Duration) target {
	return target{field: field, keep: keep,
		del: `WITH d AS (SELECT id FROM river_job WHERE state = '` + state + `' AND finalized_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
			DELETE FROM river_job j USING d WHERE j.id = d.id`,
		count: `SELECT count(*) FROM river_job WHERE state = '` + state + `' AND finalized_at < $1`,
	}
}

// Prune deletes what p no longer keeps at now, in batches of Batch rows,
// until none is left or ctx ends (what was deleted stays deleted). With
// dryRun it only counts.
func Prune(ctx context.Context, q db.Querier, p Policy, now time.Time, dryRun bool) (Result, error) {
	var res Result
	for _, t := range targets {
		keep := t.keep(p)
		if keep <= 0 {
			continue
		}
		cutoff := now.Add(-keep)
		n := t.field(&res)
		if dryRun {
			if err := q.QueryRow(ctx, t.count, cutoff).Scan(n); err != nil {
				return res, fmt.Errorf("count prunable rows: %w", err)
			}
			continue
		}
		for {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			tag, err := q.Exec(ctx, t.del, cutoff, Batch)
			if err != nil {
				return res, fmt.Errorf("prune: %w", err)
			}
			*n += tag.RowsAffected()
			if tag.RowsAffected() < Batch {
				break
			}
		}
	}
	return res, nil
}
