package queue

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/decay"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
)

// DecayArgs is one id range of a full decay run (`decay run --enqueue`):
// the range's rows recomputed as of At with the run's models.
type DecayArgs struct {
	Range       decay.Range      `json:"range" river:"unique"`
	UserID      string           `json:"user_id,omitempty" river:"unique"`
	At          time.Time        `json:"at"`
	ForgetBelow float64          `json:"forget_below,omitempty"`
	Memory      decay.FSRSParams `json:"memory"`
	Layers      decay.Layers     `json:"layers"`
}

// Kind names the job in river_job.kind.
func (DecayArgs) Kind() string { return jobs.KindDecay }

// InsertOpts makes the job unique per range while live.
func (a DecayArgs) InsertOpts() river.InsertOpts { return uniqueOpts(a.Kind()) }

// Options are the decay options the range is computed with.
func (a DecayArgs) Options() decay.Options {
	return decay.Options{At: a.At, ForgetBelow: a.ForgetBelow, UserID: a.UserID, Memory: a.Memory, Layers: a.Layers}
}

// DecayWorker works DecayArgs with decay.Chunk, the update a full run
// commits per chunk, and completes the job in the chunk's transaction.
type DecayWorker struct {
	river.WorkerDefaults[DecayArgs]
	d *Deps
}

// Work recomputes one range.
func (w *DecayWorker) Work(ctx context.Context, job *river.Job[DecayArgs]) error {
	a := job.Args
	return work(ctx, w.d, job, jobrun.Spec{Job: jobs.RunDecay},
		func(ctx context.Context, run *jobrun.Run, counts map[string]any, complete completer) error {
			return db.InTx(ctx, run.Conn, func(tx pgx.Tx) error {
				c, err := decay.Chunk(ctx, tx, a.Options(), a.Range)
				if err != nil {
					return err
				}
				counts["rows"], counts["forgotten"], counts["skipped"] = c.Rows, c.Forgotten, c.Skipped
				return complete(ctx, tx)
			})
		})
}
