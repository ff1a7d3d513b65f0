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

// target is one kind of row a prune removes: only finished rows (a running
// job_runs row, a fire whose River job is still live — an interrupted fire
// is run again when its job is retried — and a River job not yet finalized
// all stay). where selects them from table (alias t) given the cutoff $1;
// the delete and the dry run's count both come from it.
type target struct {
	table, where string
	field        func(*Result) *int64
	keep         func(Policy) time.Duration
}

var targets = []target{
	{table: "job_runs", where: `t.status <> 'running' AND t.finished_at < $1`,
		field: func(r *Result) *int64 { return &r.JobRuns }, keep: func(p Policy) time.Duration { return p.JobRuns }},
	{table: "helix_schedule_fires", where: `t.finished_at < $1
			AND NOT EXISTS (SELECT 1 FROM river_job r WHERE r.id = t.river_job_id AND r.finalized_at IS NULL)`,
		field: func(r *Result) *int64 { return &r.ScheduleFires }, keep: func(p Policy) time.Duration { return p.ScheduleFires }},
	// River's jobs of one finished state, as River's own job cleaner
	// deletes them (by river_job_state_and_finalized_at_index)
	{table: "river_job", where: `t.state = 'completed' AND t.finalized_at < $1`,
		field: func(r *Result) *int64 { return &r.CompletedJobs }, keep: func(p Policy) time.Duration { return p.CompletedJobs }},
	{table: "river_job", where: `t.state = 'cancelled' AND t.finalized_at < $1`,
		field: func(r *Result) *int64 { return &r.CancelledJobs }, keep: func(p Policy) time.Duration { return p.CancelledJobs }},
	{table: "river_job", where: `t.state = 'discarded' AND t.finalized_at < $1`,
		field: func(r *Result) *int64 { return &r.DiscardedJobs }, keep: func(p Policy) time.Duration { return p.DiscardedJobs }},
}

// del deletes up to $2 of t's rows, skipping those another transaction holds.
func (t target) del() string {
	return `WITH d AS (SELECT t.id FROM ` + t.table + ` t WHERE ` + t.where + ` LIMIT $2 FOR UPDATE OF t SKIP LOCKED)
		DELETE FROM ` + t.table + ` j USING d WHERE j.id = d.id`
}

// count counts t's rows.
func (t target) count() string {
	return `SELECT count(*) FROM ` + t.table + ` t WHERE ` + t.where
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
			if err := q.QueryRow(ctx, t.count(), cutoff).Scan(n); err != nil {
				return res, fmt.Errorf("count prunable rows: %w", err)
			}
			continue
		}
		for {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			tag, err := q.Exec(ctx, t.del(), cutoff, Batch)
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
