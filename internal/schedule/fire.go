package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/notify"
)

// Fire statuses (helix_schedule_fires.status).
const (
	StatusPending     = "pending"
	StatusRunning     = "running"
	StatusOK          = "ok"
	StatusFailed      = "failed"
	StatusPartial     = "partial"
	StatusSkipped     = "skipped"
	StatusInterrupted = "interrupted"
)

// finished reports whether a fire is done for good: it never runs again.
func finished(status string) bool {
	switch status {
	case StatusOK, StatusFailed, StatusPartial, StatusSkipped:
		return true
	}
	return false
}

// Config is what the workers of schedules need.
type Config struct {
	Pool  *pgxpool.Pool
	Now   func() time.Time
	Log   *slog.Logger
	Grace time.Duration // how late a tick may fire and still be on time (see Grace)
	// Exe and Env run a fire's job: the helix binary and its environment.
	Exe string
	Env []string
	// KillAfter is how long a job given SIGTERM (its fire cancelled) has
	// before it is killed.
	KillAfter time.Duration
	// Observe, if set, is told each fire's outcome (a status, "late" for a
	// catch-up fire of a missed tick, "auto_disabled" when a failure
	// disables the schedule): the worker's metrics.
	Observe func(outcome string)
	// Timeout bounds a fire's job (default DefaultTimeout). It is also how
	// long River waits before it rescues the fire of a worker that died:
	// River never rescues a job without a timeout.
	Timeout time.Duration
	// CheckJob checks a fire's job line before it runs, with the function
	// schedule add checked it with (a row may have been written by SQL).
	CheckJob func(argv []string) error
	// Outbox, if set, queues the webhooks' notifications of a fire's
	// outcome (the schedule's notify policy) in the transaction recording it.
	Outbox *notify.Outbox
}

func (c *Config) now() time.Time {
	if c.Now == nil {
		return time.Now()
	}
	return c.Now()
}

func (c *Config) observe(outcome string) {
	if c.Observe != nil {
		c.Observe(outcome)
	}
}

// DefaultTimeout is a fire's timeout when Config.Timeout is not set.
const DefaultTimeout = 12 * time.Hour

// AddWorkers registers the tick pass and the fire workers.
func AddWorkers(ws *river.Workers, c Config) {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	river.AddWorker(ws, &TickWorker{c: c})
	river.AddWorker(ws, &FireWorker{c: c})
}

// TickWorker works TickArgs: one Pass.
type TickWorker struct {
	river.WorkerDefaults[TickArgs]
	c Config
}

// Timeout bounds a tick pass (TickTimeout), not the worker's --job-timeout.
func (w *TickWorker) Timeout(*river.Job[TickArgs]) time.Duration { return TickTimeout }

// Work runs a tick pass with the River client the job came from.
func (w *TickWorker) Work(ctx context.Context, job *river.Job[TickArgs]) error {
	client, err := river.ClientFromContextSafely[pgx.Tx](ctx)
	if err != nil {
		return err
	}
	res, err := Pass(ctx, w.c.Pool, client, w.c.Now(), w.c.Grace, w.c.Log)
	if err != nil {
		return fmt.Errorf("schedule tick pass: %w", err)
	}
	if res.Fires > 0 {
		w.c.Log.Debug("schedule tick pass", "schedules", res.Schedules, "fires", res.Fires, "missed", res.Missed)
	}
	return nil
}

// FireWorker works FireArgs: it runs the schedule's job once and records the
// outcome on the fire.
type FireWorker struct {
	river.WorkerDefaults[FireArgs]
	c Config
}

// Timeout: a fire runs as long as its job does (a nightly synthesis can take
// hours), up to Config.Timeout, not the worker's --job-timeout. It must be
// finite: River's rescuer skips jobs without a timeout, and a dead worker's
// fire would stay running for ever.
func (w *FireWorker) Timeout(*river.Job[FireArgs]) time.Duration {
	if w.c.Timeout > 0 {
		return w.c.Timeout
	}
	return DefaultTimeout
}

// errInterrupted makes River retry a fire whose job was stopped before it finished.
var errInterrupted = errors.New("interrupted")

// Work runs one fire. The fire's lock (a lease, renewed while the fire
// runs), tells a rescued copy of this job (River rescues
// jobs running longer than --rescue-after) that the first one still runs:
// it snoozes. Once the fire is finished its job never runs again, whoever
// retries or rescues it.
func (w *FireWorker) Work(ctx context.Context, job *river.Job[FireArgs]) error {
	c := w.c
	id := job.Args.FireID
	lock, err := db.TryLock(ctx, c.Pool, "schedule-fire "+strconv.FormatInt(id, 10))
	if db.IsLockHeld(err) {
		return river.JobSnooze(10 * time.Second)
	}
	if err != nil {
		return err
	}
	defer func() { _ = lock.Release(ctx) }()
	conn, err := c.Pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	var (
		name  string
		argv  []string
		user  *uuid.UUID // a user's schedule: its job acts for them only
		state string     // run, or why not
		late  bool
	)
	// The claim reads the schedule FOR SHARE: a fire finishing meanwhile
	// (which may disable the schedule) updates that row, so the two are
	// ordered: a fire claimed after a disable sees it, one claimed before
	// started before it (the database's clock stamps both).
	err = db.InTx(ctx, conn, func(tx pgx.Tx) error {
		var (
			status, kind string
			paused       bool
			disabled     *string
		)
		err := tx.QueryRow(ctx, `SELECT f.status, f.kind, s.name, s.argv, s.paused, s.disabled_reason, s.user_id
			FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id WHERE f.id = $1 FOR SHARE OF s`, id).
			Scan(&status, &kind, &name, &argv, &paused, &disabled, &user)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			state = "its schedule was removed"
			return nil
		case err != nil:
			return err
		case finished(status):
			state = "already finished (" + status + "): not run again"
			return nil
		}
		if kind != KindRunNow && (paused || disabled != nil) {
			state = "the schedule is paused"
			if disabled != nil {
				state = "the schedule is disabled: " + *disabled
			}
			_, err := tx.Exec(ctx, `UPDATE helix_schedule_fires SET status = 'skipped', finished_at = clock_timestamp(),
				error = $2, river_job_id = $3 WHERE id = $1`, id, state, job.ID)
			return err
		}
		state = "run"
		late = kind == KindCatchUp
		_, err = tx.Exec(ctx, `UPDATE helix_schedule_fires SET status = 'running', started_at = clock_timestamp(),
			attempts = attempts + 1, river_job_id = $2 WHERE id = $1`, id, job.ID)
		return err
	})
	if err != nil {
		return err
	}
	if state != "run" {
		if strings.HasPrefix(state, "the schedule is") {
			c.observe(StatusSkipped)
		}
		c.Log.Info("schedule fire not run: "+state, "fire", id, "schedule", job.Args.Schedule)
		return nil
	}
	if why := c.refuse(argv); why != "" {
		return w.finish(ctx, conn, name, id, &Result{Status: StatusFailed, Error: why})
	}
	if user != nil {
		if err := ActsFor(argv, *user); err != nil {
			return w.finish(ctx, conn, name, id, &Result{Status: StatusFailed, Error: fmt.Sprintf("refused to run %q: %v", strings.Join(argv, " "), err)})
		}
	}
	if late {
		c.observe("late")
	}
	c.Log.Info("schedule fire started", "schedule", name, "fire", id, "tick", job.Args.Tick.UTC().Format(time.RFC3339), "job", JobLine(argv))
	res := Exec(ctx, c.Exe, argv, c.Env, c.KillAfter)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// Not retried: the next attempt would time out as well.
		res.Status = StatusFailed
		res.Error = fmt.Sprintf("timed out after %s (helix worker --schedule-timeout): %s", w.Timeout(job), res.Error)
	}
	if err := w.finish(context.WithoutCancel(ctx), conn, name, id, res); err != nil {
		return err
	}
	if res.Status == StatusInterrupted {
		return fmt.Errorf("schedule %s fire %d: %w", name, id, errInterrupted)
	}
	return nil
}

// refuse says why a fire must not run argv, or "": first the commands that
// are no jobs (the job table, internal/jobs), then CheckJob, the very check
// schedule add made. schedule add refuses them against the command tree; a
// row written into helix_schedules by other means is checked again here, so
// a fire never migrates, configures or starts a worker.
func (c Config) refuse(argv []string) string {
	var words []string
	for _, a := range argv[:min(2, len(argv))] {
		if strings.HasPrefix(a, "-") {
			break
		}
		words = append(words, a)
	}
	if len(words) == 0 || jobs.NotSchedulable(words...) != "" {
		return fmt.Sprintf("refused to run %q: not a helix job (helix schedule add checks job lines)", strings.Join(argv, " "))
	}
	if c.CheckJob != nil {
		if err := c.CheckJob(argv); err != nil {
			return fmt.Sprintf("refused to run %q: %v", strings.Join(argv, " "), err)
		}
	}
	return ""
}

func (w *FireWorker) finish(ctx context.Context, conn db.Querier, name string, id int64, res *Result) error {
	return w.c.finish(ctx, conn, name, id, res)
}

// finish records a fire's outcome and, in the same transaction, the
// schedule's run of failures: max_failures failed fires in a row disable it.
func (c *Config) finish(ctx context.Context, conn db.Querier, name string, id int64, res *Result) error {
	var dur *int64
	if res.Duration > 0 {
		ms := res.Duration.Milliseconds()
		dur = &ms
	}
	var errText *string
	if res.Error != "" {
		errText = &res.Error
	}
	var disabled *string
	var policy string
	already := false
	err := db.InTx(ctx, conn, func(tx pgx.Tx) error {
		var sched int64
		if err := tx.QueryRow(ctx, `UPDATE helix_schedule_fires SET status = $2, exit_code = $3, finished_at = clock_timestamp(),
			duration_ms = $4, counts = $5, error = $6
			WHERE id = $1 AND status IN ('pending', 'running', 'interrupted') RETURNING schedule_id`,
			id, res.Status, res.ExitCode, dur, res.Counts, errText).Scan(&sched); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				// Recorded already (or removed): a reclaim that read the fire
				// as running just before its scheduler finished it must not
				// overwrite that outcome.
				already = true
				return nil
			}
			return err
		}
		err := tx.QueryRow(ctx, `WITH old AS (SELECT id, disabled_reason IS NULL AND $2 = 'failed' AND max_failures > 0
			                                   AND consecutive_failures + 1 >= max_failures AS disable
			                        FROM helix_schedules WHERE id = $1 FOR UPDATE)
			UPDATE helix_schedules s SET
			consecutive_failures = CASE WHEN $2 = 'failed' THEN consecutive_failures + 1
			                            WHEN $2 IN ('ok', 'partial') THEN 0 ELSE consecutive_failures END,
			disabled_reason = CASE WHEN old.disable
			                       THEN format('%s failures in a row; the last: %s', consecutive_failures + 1, $3::text)
			                       ELSE disabled_reason END,
			disabled_at = CASE WHEN old.disable THEN clock_timestamp() ELSE disabled_at END,
			updated_at = clock_timestamp()
			FROM old WHERE s.id = old.id
			RETURNING CASE WHEN old.disable THEN s.disabled_reason END, s.notify`,
			sched, res.Status, res.describe()).Scan(&disabled, &policy)
		if err != nil {
			return err
		}
		if ev, ok := fireEvent(policy, name, id, res, disabled, c.now()); ok {
			c.Outbox.InsertTx(ctx, tx, ev)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record schedule fire %d: %w", id, err)
	}
	if already {
		c.Log.Info("schedule fire already recorded: outcome kept", "schedule", name, "fire", id, "not", res.Status)
		return nil
	}
	c.observe(res.Status)
	if disabled != nil {
		c.observe("auto_disabled")
	}
	l := c.Log.With("schedule", name, "fire", id, "status", res.Status, "seconds", res.Duration.Seconds())
	if res.ExitCode != nil {
		l = l.With("exit_code", *res.ExitCode)
	}
	if res.Error != "" {
		l = l.With("err", res.Error)
	}
	switch res.Status {
	case StatusOK, StatusPartial, StatusSkipped:
		l.Info("schedule fire finished")
	default:
		l.Warn("schedule fire failed")
	}
	if disabled != nil {
		c.Log.Warn("schedule disabled: too many failures in a row; helix schedule resume "+name+" enables it again",
			"schedule", name, "reason", *disabled)
	}
	return nil
}

// fireEvent is the notification of a finished fire under the schedule's
// policy: on-failure tells of a failed fire (one event, schedule_disabled,
// when it disabled the schedule), always of every finished fire, never of none.
func fireEvent(policy, name string, id int64, res *Result, disabled *string, now time.Time) (notify.Event, bool) {
	subject := "schedule " + name
	failed := res.Status == StatusFailed
	switch {
	case policy == notify.PolicyNever:
		return notify.Event{}, false
	case disabled != nil:
		return notify.New(notify.KindScheduleDisabled, subject, fmt.Sprintf("disabled (helix schedule resume %s): %s", name, *disabled), now), true
	case failed:
		return notify.New(notify.KindFireFailed, subject, fmt.Sprintf("fire %d failed: %s", id, res.describe()), now), true
	case policy == notify.PolicyAlways && finished(res.Status):
		return notify.New(notify.KindFireFinished, subject, fmt.Sprintf("fire %d: %s", id, res.describe()), now), true
	}
	return notify.Event{}, false
}
