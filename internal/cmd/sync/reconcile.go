package synccmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/progress"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/syncer"
)

// ReconcileOptions are the inputs of `sync reconcile`.
type ReconcileOptions struct {
	F          *cmdutil.Factory
	EntityType string
	UserID     cmdutil.UserID
	Batch      int
	Enqueue    bool
	Priority   int
	// Concurrency is how many batches run at once (setting sync.concurrency).
	Concurrency int
}

// NewCmdReconcile folds pending changes into the entities' states.
func NewCmdReconcile(f *cmdutil.Factory, runF func(*ReconcileOptions) error) *cobra.Command {
	opts := &ReconcileOptions{F: f, Batch: syncer.DefaultBatch, Concurrency: 1}
	cmd := &cobra.Command{
		Use:   "reconcile",
		Short: "Fold pending device changes into the current state",
		Long: `Fold the pending rows of sync_changes into sync_state, batch after batch,
each batch in one transaction. A change whose vector clock the entity has
already seen is discarded; one that dominates is applied; concurrent ones
are merged by the entity type's strategy (sync.strategies in the config
file: field-lww by default, lww, or manual). The result depends only on the
set of changes, never on their order or on how runs split them.

Several reconcilers may run at once, on one host or many: each claims its
changes one bucket of entities at a time (a bucket no other batch holds)
and marks a change processed only while it is still pending, so no change
is processed twice. --concurrency N runs N batches at once in one process,
each on its own connection, so that merging on this host and writing on
the server overlap. Changes that cannot be folded (a clock without
the device's own entry, a document that is not an object) are marked
invalid and the run exits 3.

Prints the applied, discarded, merged, conflicted and invalid counts, and
records a job_runs row.

EXAMPLES
  helix sync reconcile
  helix sync reconcile --entity-type memory --batch-size 20000
  helix sync reconcile --concurrency 2
  helix sync reconcile --user-id 8f14e45f-ceea-467f-a8f0-0b1a5e2c9d11 --output json
  helix sync reconcile --enqueue              # then: helix worker --queues sync

--enqueue queues one job per partition (of 64 buckets of entities) that has
pending changes, for helix worker, and returns at once. Each job folds its
partition's changes batch after batch; the claims above keep every change
folded exactly once however jobs and in-process runs overlap.

` + cmdutil.ExitStatus(cmdutil.ExitFailed, cmdutil.ExitUsage, cmdutil.ExitPartial, cmdutil.ExitUnavailable, cmdutil.ExitInterrupted),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Batch < 1 {
				return cmdutil.FlagErrorf("invalid --batch-size %d: must be at least 1", opts.Batch)
			}
			if opts.Concurrency < 1 {
				return cmdutil.FlagErrorf("invalid --concurrency %d: must be at least 1", opts.Concurrency)
			}
			if runF != nil {
				return runF(opts)
			}
			return reconcileRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.EntityType, "entity-type", "", "only changes of this entity type")
	cmdutil.UserIDVar(fl, &opts.UserID, "only changes of this user (UUID)")
	fl.IntVar(&opts.Batch, "batch-size", opts.Batch, "changes per transaction")
	cmdutil.Alias(fl, "batch-size", "batch")
	fl.IntVar(&opts.Concurrency, "concurrency", opts.Concurrency, "batches at once, each on its own connection")
	fl.BoolVar(&opts.Enqueue, "enqueue", false, "queue one job per partition with pending changes for helix worker and return at once")
	shared.PriorityFlag(cmd, &opts.Priority)
	return cmd
}

// ReconcileResult is the JSON output of `sync reconcile`.
type ReconcileResult struct {
	RunID int64 `json:"run_id"`
	syncer.Counts
	Changes int `json:"changes"`
}

func reconcileRun(ctx context.Context, opts *ReconcileOptions) error {
	f := opts.F
	cfg, err := f.Config()
	if err != nil {
		return cmdutil.InputError(err)
	}
	strats, err := shared.SyncStrategies(cfg)
	if err != nil {
		return err
	}
	user := opts.UserID.Ptr()
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	if opts.Enqueue {
		return enqueue(ctx, opts, pool, user)
	}
	// The run record holds the job's typed args, as a worker's does (every
	// bucket: the bucket is 0 and Units says how many).
	params := queue.RunParams{Args: queue.ReconcileArgs{EntityType: opts.EntityType, UserID: user, Batch: opts.Batch},
		Units: syncer.Buckets, Options: map[string]any{"concurrency": opts.Concurrency}}
	started := false
	err = jobrun.Do(ctx, pool, jobrun.Spec{Job: jobs.RunReconcile, Params: params, Now: f.Now},
		func(ctx context.Context, run *jobrun.Run) (any, error) {
			started = true
			counts, err := reconcile(ctx, opts, run.ID, strats, user, pool)
			return counts, err
		})
	if !started && err != nil {
		return fmt.Errorf("sync reconcile: %w", err)
	}
	var pe *cmdutil.PartialError
	if err != nil && !errors.As(err, &pe) && ctx.Err() == nil && !db.IsUnavailable(err) {
		return fmt.Errorf("sync reconcile: %w", err)
	}
	return err
}

// enqueue queues one sync_reconcile job per partition with pending changes.
func enqueue(ctx context.Context, opts *ReconcileOptions, pool *pgxpool.Pool, user *uuid.UUID) error {
	bs, err := syncer.PendingBuckets(ctx, pool, syncer.Filter{EntityType: opts.EntityType, UserID: user})
	if err != nil {
		return err
	}
	args := make([]queue.ReconcileArgs, len(bs))
	for i, b := range bs {
		args[i] = queue.ReconcileArgs{Bucket: b, EntityType: opts.EntityType, UserID: user, Batch: opts.Batch}
	}
	res, err := queue.Insert(ctx, pool, args, queue.PriorityFor(user != nil, opts.Priority))
	if err != nil {
		return err
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.F.IOStreams.Out, res)
	}
	_, err = fmt.Fprintln(opts.F.IOStreams.Out, res.Summary())
	return err
}

// reconcile is one run's work: fold the pending changes, print the result.
func reconcile(ctx context.Context, opts *ReconcileOptions, runID int64, strats map[string]syncer.Strategy, user *uuid.UUID, pool *pgxpool.Pool) (syncer.Counts, error) {
	f := opts.F
	filter := syncer.Filter{EntityType: opts.EntityType, UserID: user}
	var pending int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM sync_changes WHERE processed_at IS NULL
		AND ($1 = '' OR entity_type = $1) AND ($2::uuid IS NULL OR user_id = $2)`, filter.EntityType, filter.UserID).Scan(&pending); err != nil {
		return syncer.Counts{}, err
	}
	log := f.Logger()
	bar := progress.New(f.IOStreams.ErrOut, progress.ChooseMode(f.IOStreams.IsStderrTTY(), f.Global.JSON()), log,
		"sync reconcile", (pending+opts.Batch-1)/opts.Batch)
	rec := &syncer.Reconciler{
		Strategies: strats, Batch: opts.Batch, RunID: runID, Now: f.Now, Concurrency: opts.Concurrency,
		OnBatch: func(c syncer.Counts) {
			bar.Step(fmt.Sprintf("%d changes", c.Total()), c.Invalid > 0)
			log.Debug("batch", "changes", c.Total(), "applied", c.Applied, "discarded", c.Discarded,
				"merged", c.Merged, "conflicted", c.Conflicted, "invalid", c.Invalid)
		},
	}
	counts, err := rec.Run(ctx, pool, filter)
	bar.Finish()
	if err != nil {
		return counts, err
	}
	res := ReconcileResult{RunID: runID, Counts: counts, Changes: counts.Total()}
	if f.Global.JSON() {
		err = cmdutil.WriteJSON(f.IOStreams.Out, res)
	} else {
		msg := fmt.Sprintf("reconciled %s in %s: %d applied, %d discarded, %d merged, %d conflicted",
			plural(res.Changes, "change"), plural(counts.Batches, "batch"), counts.Applied, counts.Discarded, counts.Merged, counts.Conflicted)
		if counts.Invalid > 0 {
			msg += fmt.Sprintf(", %d invalid", counts.Invalid)
		}
		_, err = fmt.Fprintln(f.IOStreams.Out, msg)
	}
	if err == nil {
		err = syncer.InvalidError(ctx, pool, runID, counts)
	}
	return counts, err
}

func plural(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case noun == "batch":
		return fmt.Sprintf("%d batches", n)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
