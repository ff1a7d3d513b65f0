package queue

import (
	"context"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/syncer"
)

// ReconcileArgs is one partition of the pending sync changes
// (`sync reconcile --enqueue`): bucket 0 to syncer.Buckets-1 of the
// entities, optionally narrowed to an entity type or a user.
type ReconcileArgs struct {
	Bucket     int        `json:"bucket" river:"unique"`
	EntityType string     `json:"entity_type,omitempty" river:"unique"`
	UserID     *uuid.UUID `json:"user_id,omitempty" river:"unique"`
	Batch      int        `json:"batch"`
}

// Kind names the job in river_job.kind.
func (ReconcileArgs) Kind() string { return jobs.KindReconcile }

// InsertOpts makes the job unique per partition (and filter) while live.
func (a ReconcileArgs) InsertOpts() river.InsertOpts { return uniqueOpts(a.Kind()) }

// ReconcileWorker works ReconcileArgs with syncer.Reconciler.Run over one
// partition, the loop `sync reconcile` runs over all of them. Each batch
// commits on its own (a partition can hold any number of changes), so River
// completes the job after the last; a change is still folded exactly once,
// by the claim every batch makes (see internal/syncer/claim.go), whichever
// job or command gets to it.
type ReconcileWorker struct {
	river.WorkerDefaults[ReconcileArgs]
	d *Deps
}

// Work reconciles one partition. Invalid changes are marked as such in
// sync_changes and the run recorded partial with their errors, as
// `sync reconcile` records it; the job itself completes.
func (w *ReconcileWorker) Work(ctx context.Context, job *river.Job[ReconcileArgs]) error {
	a := job.Args
	strats, err := w.d.Strategies()
	if err != nil {
		return err
	}
	return work(ctx, w.d, job, jobrun.Spec{Job: jobs.RunReconcile},
		func(ctx context.Context, run *jobrun.Run, counts map[string]any, _ completer) error {
			rec := &syncer.Reconciler{Strategies: strats, Batch: a.Batch, RunID: run.ID, Now: w.d.now()}
			b := a.Bucket
			c, err := rec.Run(ctx, run.Conn, syncer.Filter{EntityType: a.EntityType, UserID: a.UserID, Bucket: &b})
			counts["applied"], counts["discarded"], counts["merged"], counts["conflicted"], counts["invalid"] = c.Applied, c.Discarded, c.Merged, c.Conflicted, c.Invalid
			counts["batches"] = c.Batches
			if err == nil {
				err = syncer.InvalidError(ctx, run.Conn, run.ID, c)
			}
			return err
		})
}
