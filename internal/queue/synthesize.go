package queue

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/synthesis"
)

// SynthesizeUsersArgs is the synthesis of several users in one job
// (`synthesize --all-users --enqueue --users-per-job N`): the queue's cost
// per job (fetch, envelope, completion) is shared by N users.
type SynthesizeUsersArgs struct {
	UserIDs []uuid.UUID      `json:"user_ids" river:"unique"`
	Since   time.Time        `json:"since,omitzero"`
	Limit   int              `json:"limit,omitempty"`
	Params  synthesis.Params `json:"params"`
}

// Kind names the job in river_job.kind.
func (SynthesizeUsersArgs) Kind() string { return "synthesize_users" }

// InsertOpts makes the job unique per list of users while live.
func (SynthesizeUsersArgs) InsertOpts() river.InsertOpts { return uniqueOpts(QueueSynthesize, 10) }

// SynthesizeUsersWorker works SynthesizeUsersArgs: synthesis.User for each
// user whose recorded synthesis is not current, each in its own
// transaction, under one job_runs row. A user's result and its state commit
// together, so a retried job (a crash, a rescue) skips the users it already
// did: each change is synthesized once. A user another run holds (its
// advisory lock, taken inside the write) is left to that run.
type SynthesizeUsersWorker struct {
	river.WorkerDefaults[SynthesizeUsersArgs]
	Pool *pgxpool.Pool
	Now  func() time.Time
}

// Work synthesizes the job's users.
func (w *SynthesizeUsersWorker) Work(ctx context.Context, job *river.Job[SynthesizeUsersArgs]) error {
	a := job.Args
	now := w.Now
	if now == nil {
		now = time.Now
	}
	filter := synthesis.Filter{Since: a.Since, Limit: a.Limit}
	params := map[string]any{"users": len(a.UserIDs), "params": a.Params, "river_job_id": job.ID, "attempt": job.Attempt}
	return jobrun.Do(ctx, w.Pool, jobrun.Spec{Job: "synthesize", Params: params, NoReap: true, Now: now},
		func(ctx context.Context, run *jobrun.Run) (any, error) {
			counts := map[string]int{"users": len(a.UserIDs)}
			states, err := synthesis.Snapshots(ctx, run.Conn, a.UserIDs, filter, a.Params)
			if err != nil {
				return counts, err
			}
			current, err := synthesis.Recorded(ctx, run.Conn, states)
			if err != nil {
				return counts, err
			}
			var todo []uuid.UUID
			for _, u := range a.UserIDs {
				if current[u] {
					counts["unchanged"]++
				} else {
					todo = append(todo, u)
				}
			}
			// The in-process run's reading and writing (synthesis.Each at
			// concurrency 1): the memories stream on a connection of their
			// own while each user is written on the run's.
			ctx, stop := context.WithCancelCause(ctx)
			defer stop(nil)
			var failed []string
			synthesis.Each(ctx, w.Pool, todo, synthesis.StateOf(states), filter, 1, func(i int, read *synthesis.Read) {
				u := todo[i]
				write := &synthesis.Write{RunID: &run.ID, Now: now()}
				nm, ps, err := synthesis.User(ctx, run.Conn, u, filter, a.Params, write, read)
				counts["memories"] += nm
				counts["patterns"] += len(ps)
				switch {
				case db.IsLockHeld(err):
					counts["skipped"]++
				case err != nil:
					if ctx.Err() != nil || db.IsUnavailable(err) {
						stop(err)
						return
					}
					failed = append(failed, fmt.Sprintf("%s: %v", u, err))
				default:
					counts["done"]++
				}
			})
			if err := context.Cause(ctx); err != nil {
				return counts, err
			}
			if len(failed) > 0 {
				// River tries the job again; the users done are current by then.
				slices.Sort(failed)
				return counts, fmt.Errorf("%d of %d users failed: %s", len(failed), len(a.UserIDs), failed[0])
			}
			return counts, db.InTx(ctx, run.Conn, func(tx pgx.Tx) error {
				if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
					return err
				}
				return run.OKTx(ctx, tx, counts)
			})
		})
}
