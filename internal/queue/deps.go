package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/embed"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/llmsynth"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/notify"
	"github.com/helixhq/helix/internal/syncer"
	"github.com/helixhq/helix/internal/voice/stt"
)

// Deps is what the job kinds need from the worker process. Providers and
// their keys come from the worker's own settings (config file, HELIX_*
// environment), never from job arguments: a job names a provider or model,
// the worker knows how to reach it.
type Deps struct {
	Pool *pgxpool.Pool
	Now  func() time.Time
	Log  *slog.Logger
	// Embedder is the configured embeddings client for model (embed.*).
	Embedder func(model string) (embed.Embedder, error)
	// LLM builds a synthesizer for the settings from llm.* (NewSynthesizer).
	LLM func(ctx context.Context, a SynthesizeLLMArgs) (*llmsynth.Synthesizer, error)
	// STT is the configured speech-to-text provider by name (voice.*).
	STT func(provider string) (stt.Provider, error)
	// Strategies are the sync merge strategies (sync.strategies).
	Strategies func() (map[string]syncer.Strategy, error)
	// HTTP is a netguard client (private addresses refused unless allowPrivate).
	HTTP func(allowPrivate bool, timeout time.Duration) *http.Client
	// ManifestMaxima are the manifest.max-* settings.
	ManifestMaxima func() (manifest.Maxima, error)
	UserAgent      string
	// Notify are the notify.* settings (webhooks); nil: none configured.
	Notify func() (notify.Settings, error)
	// ExitCode classes a failed run as the command would in-process
	// (cmdutil.Code), recorded in job_runs.exit_code for helix jobs wait.
	ExitCode func(error) int
}

func (d *Deps) now() func() time.Time {
	if d.Now == nil {
		return time.Now
	}
	return d.Now
}

// uniqueOpts puts a kind on its queue with its attempts (the job table's)
// and makes it unique by its args tagged `river:"unique"` while live.
func uniqueOpts(kind string) river.InsertOpts {
	j := jobs.MustLookup(kind)
	return river.InsertOpts{Queue: j.Queue, MaxAttempts: j.Attempts,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: whileLive}}
}

// RunParams is what job_runs.params holds for a job kind, run in-process
// or by a worker alike: the job's typed args (a run over many units has
// its unit fields empty and counts them in Units), and, on a worker, the
// River job it ran.
type RunParams struct {
	Args       any   `json:"args"`
	Units      int   `json:"units"`
	RiverJobID int64 `json:"river_job_id,omitempty"`
	Attempt    int   `json:"attempt,omitempty"`
	// Options are an in-process run's options that no job carries
	// (--concurrency, --full); nil on a worker.
	Options map[string]any `json:"options,omitempty"`
}

// RunParamsOf is the run record of a worked job: its args, one unit.
func RunParamsOf[T river.JobArgs](job *river.Job[T], units int) RunParams {
	return RunParams{Args: job.Args, Units: units, RiverJobID: job.ID, Attempt: job.Attempt}
}

// completer completes a River job and records its run ok inside the
// transaction that writes the unit's results.
type completer = func(ctx context.Context, tx pgx.Tx) error

// errPermanent marks a failure that trying again cannot fix: the job is
// cancelled instead of retried.
type errPermanent struct{ error }

func (e errPermanent) Unwrap() error { return e.error }

// work runs one job's unit through the jobrun envelope, as the in-process
// commands do: lock (if any), a job_runs row with the job's typed args
// (RunParams), the unit, status. fn calls
// complete inside the transaction that writes the unit's results, where
// there is one; a unit without one is completed by River after it returns.
// A held lock snoozes the job; a permanent error (errPermanent, or a
// provider's permanent answer: httpretry.Permanent) cancels it; a unit
// whose own items partly failed (exitcode.PartialError) is recorded partial
// and the job completes: retrying would fail the same items again.
func work[T river.JobArgs](ctx context.Context, d *Deps, job *river.Job[T], spec jobrun.Spec,
	fn func(ctx context.Context, run *jobrun.Run, counts map[string]any, complete completer) error) error {
	spec.Params, spec.NoReap, spec.Now, spec.ExitCode = RunParamsOf(job, 1), true, d.now(), d.ExitCode
	err := jobrun.Do(ctx, d.Pool, spec, func(ctx context.Context, run *jobrun.Run) (any, error) {
		counts := map[string]any{}
		complete := func(ctx context.Context, tx pgx.Tx) error {
			if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
				return err
			}
			return run.OKTx(ctx, tx, counts)
		}
		return counts, fn(ctx, run, counts, complete)
	})
	var perm errPermanent
	var partial *exitcode.PartialError
	switch {
	case errors.As(err, &partial):
		return nil
	case db.IsLockHeld(err):
		return river.JobSnooze(5 * time.Second)
	case errors.As(err, &perm):
		return river.JobCancel(perm.error)
	case httpretry.Permanent(err):
		// A provider refused the request itself (a 4xx but 408 and 429):
		// every retry would be refused the same way.
		return river.JobCancel(err)
	}
	return err
}

// Insert enqueues one job per args on the database of pool (see Enqueue).
func Insert[A interface {
	river.JobArgs
	river.JobArgsWithInsertOpts
}](ctx context.Context, pool *pgxpool.Pool, args []A, priority int) (*EnqueueResult, error) {
	c, err := NewInsertClient(pool)
	if err != nil {
		return nil, err
	}
	return Enqueue(ctx, c, args, priority)
}

// Summary is the line an enqueuing command prints: the counts, then the
// ids of the jobs (for helix jobs wait / show).
func (r *EnqueueResult) Summary() string {
	s := fmt.Sprintf("enqueued %d %s jobs on queue %s at priority %d (%d already queued)", r.Enqueued, r.Kind, r.Queue, r.Priority, r.Duplicates)
	if len(r.Jobs) == 0 {
		return s
	}
	ids := make([]string, len(r.Jobs))
	for i, j := range r.Jobs {
		ids[i] = strconv.FormatInt(j.ID, 10)
	}
	return s + ": jobs " + strings.Join(ids, " ")
}
