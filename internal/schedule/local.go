package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
)

// Put stores a schedule, or brings a stored one of that name to spec's
// cron, time zone, jitter and job line; its catch-up policy, failure limit,
// pause and history stay as they are (schedule pause/resume manage those).
// A changed cron or time zone restarts its ticks from now. It says what it
// did: "added", "updated" or "unchanged".
func Put(ctx context.Context, q db.Querier, spec Spec, now time.Time) (*Schedule, string, error) {
	sched, err := spec.Validate()
	if err != nil {
		return nil, "", err
	}
	next := sched.Next(now)
	if next.IsZero() {
		next = never
	}
	var did string
	var s *Schedule
	err = db.InTx(ctx, q, func(tx pgx.Tx) error {
		// INSERT … ON CONFLICT DO UPDATE takes the row lock a tick pass
		// takes, so a pass never fires the old job line after this commits.
		row := tx.QueryRow(ctx, `WITH old AS (SELECT spec, timezone, jitter_ms, argv FROM helix_schedules WHERE name = $1 AND user_id IS NULL)
			INSERT INTO helix_schedules AS s (name, spec, timezone, jitter_ms, catch_up, argv, max_failures, next_tick)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (user_id, name) DO UPDATE SET spec = $2, timezone = $3, jitter_ms = $4, argv = $6,
				next_tick = CASE WHEN (s.spec, s.timezone) = ($2, $3) THEN s.next_tick ELSE $8 END,
				updated_at = CASE WHEN (s.spec, s.timezone, s.jitter_ms, s.argv) = ($2, $3, $4, $6) THEN s.updated_at ELSE now() END
			RETURNING `+scheduleCols+`, CASE WHEN NOT EXISTS (SELECT 1 FROM old) THEN 'added'
				WHEN (SELECT (spec, timezone, jitter_ms, argv) = ($2, $3, $4, $6) FROM old) THEN 'unchanged' ELSE 'updated' END`,
			spec.Name, spec.Cron, spec.Timezone, spec.Jitter.Milliseconds(), spec.CatchUp, spec.Argv, spec.MaxFailures, next)
		var err error
		s, err = scanSchedule(scanExtra{row, &did})
		return err
	})
	return s, did, err
}

// scanExtra scans one more column after a schedule's.
type scanExtra struct {
	r     pgx.Row
	extra any
}

func (s scanExtra) Scan(dest ...any) error { return s.r.Scan(append(dest, s.extra)...) }

// Local fires one stored schedule in this process, without River or a
// worker: the single-process form (`helix decay schedule`). Its tick passes
// are the workers' (Pass, restricted to the schedule), so each tick fires
// once whoever passes first, a worker or another Local, and its fires are
// recorded as a worker records them (history, failures in a row, pause and
// resume); the job runs in-process, one fire at a time.
type Local struct {
	Pool *pgxpool.Pool
	Name string
	// Run does one fire's job: argv is the schedule's job line when the fire
	// was claimed. Its ctx is cancelled only when a stop outlasts ShutdownTimeout.
	Run func(ctx context.Context, tick time.Time, argv []string) *Result
	// RunNow fires once at start (a run_now fire), then on the schedule.
	RunNow          bool
	ShutdownTimeout time.Duration
	Grace           time.Duration // as a worker's --schedule-grace (default time.Minute)
	Poll            time.Duration // between tick passes (default TickInterval)
	Now             func() time.Time
	Log             *slog.Logger
}

// reclaimEvery is how often Serve closes fires whose Local died.
const reclaimEvery = time.Minute

// Serve runs tick passes and fires until ctx ends, then lets the fire in
// flight finish (or cancels it after ShutdownTimeout) and returns nil. A pass
// or fire that fails (the database is down) is logged and the next pass
// tries again. A fire due while another runs is on time if the run ends
// within the grace, else missed (the schedule's catch-up policy decides).
func (l Local) Serve(ctx context.Context) error {
	if l.Now == nil {
		l.Now = time.Now
	}
	if l.Log == nil {
		l.Log = slog.New(slog.DiscardHandler)
	}
	if l.Poll <= 0 {
		l.Poll = TickInterval
	}
	if l.Grace <= 0 {
		l.Grace = time.Minute
	}
	runCtx, cancelRun := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRun()
	log := l.Log.With("schedule", l.Name)
	if l.RunNow {
		if f, err := l.runNow(ctx); err != nil {
			log.Error("run-now: the schedule's next tick tries again", "err", err)
		} else {
			l.fire(ctx, runCtx, cancelRun, f, log)
		}
	}
	t := time.NewTicker(l.Poll)
	defer t.Stop()
	var reclaimed time.Time
	failing := false
	for ctx.Err() == nil {
		if time.Since(reclaimed) >= reclaimEvery {
			if err := l.reclaim(ctx, log); err == nil {
				reclaimed = time.Now()
			}
		}
		var fires []madeFire
		err := db.InTx(ctx, l.Pool, func(tx pgx.Tx) error {
			_, err := pass(ctx, tx, l.Name, l.Now(), l.Grace, log, func(made []madeFire) error {
				fires = made
				return nil
			})
			return err
		})
		switch {
		case err != nil && ctx.Err() == nil:
			// One line per outage, not one a second.
			if !failing {
				log.Error("schedule tick pass failed; the next pass tries again", "err", err)
			}
			failing = true
		case err == nil:
			if failing {
				log.Info("schedule tick pass works again")
			}
			failing = false
		}
		for i, f := range fires {
			if !l.fire(ctx, runCtx, cancelRun, f, log) {
				l.drop(fires[i+1:], log)
				break
			}
		}
		select {
		case <-ctx.Done():
		case <-t.C:
		}
	}
	return nil
}

// runNow inserts a run_now fire of the schedule at now.
func (l Local) runNow(ctx context.Context) (madeFire, error) {
	f := madeFire{name: l.Name, kind: KindRunNow}
	err := l.Pool.QueryRow(ctx, `INSERT INTO helix_schedule_fires (schedule_id, tick, kind)
		SELECT id, $2, 'run_now' FROM helix_schedules WHERE name = $1 AND user_id IS NULL
		ON CONFLICT (schedule_id, tick) DO NOTHING RETURNING id, tick`, l.Name, l.Now()).Scan(&f.id, &f.tick)
	if errors.Is(err, pgx.ErrNoRows) {
		return f, &NotFoundError{Name: l.Name}
	}
	return f, err
}

// fire runs one fire made by this Local: its jitter, the fire's lease (the
// one a worker holds), the claim, the job, the record. It reports whether
// the Local goes on (false: ctx ended).
func (l Local) fire(ctx, runCtx context.Context, cancelRun context.CancelFunc, f madeFire, log *slog.Logger) bool {
	c := &Config{Pool: l.Pool, Log: l.Log}
	log = log.With("fire", f.id, "tick", f.tick.UTC().Format(time.RFC3339))
	lock, err := db.TryLock(ctx, l.Pool, "schedule-fire "+strconv.FormatInt(f.id, 10))
	if err != nil {
		log.Error("schedule fire not run: its lease", "err", err)
		return ctx.Err() == nil
	}
	defer func() { _ = lock.Release(context.WithoutCancel(ctx)) }()
	if f.jitter > 0 && f.kind != KindRunNow {
		select {
		case <-time.After(rand.N(f.jitter)):
		case <-ctx.Done():
			l.drop([]madeFire{f}, log)
			return false
		}
	}
	var argv []string
	err = l.Pool.QueryRow(ctx, `WITH s AS (SELECT s.argv, s.paused OR s.disabled_reason IS NOT NULL AS off
			FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id WHERE f.id = $1 FOR SHARE OF s)
		UPDATE helix_schedule_fires f SET status = 'running', started_at = clock_timestamp(), attempts = attempts + 1
		FROM s WHERE f.id = $1 AND f.status = 'pending' AND (f.kind = 'run_now' OR NOT s.off) RETURNING s.argv`, f.id).Scan(&argv)
	if errors.Is(err, pgx.ErrNoRows) {
		// Paused or disabled since the pass (or removed): as a worker does.
		_ = c.finish(context.WithoutCancel(ctx), l.Pool, l.Name, f.id, &Result{Status: StatusSkipped, Error: "the schedule is paused or disabled"})
		return ctx.Err() == nil
	}
	if err != nil {
		log.Error("schedule fire not run: claim", "err", err)
		return ctx.Err() == nil
	}
	log.Info("schedule fire started")
	done := make(chan *Result, 1)
	go func() {
		start := time.Now()
		defer func() {
			if p := recover(); p != nil {
				done <- &Result{Status: StatusFailed, Error: fmt.Sprintf("panic: %v", p), Duration: time.Since(start)}
			}
		}()
		res := l.Run(runCtx, f.tick, argv)
		if res.Duration == 0 {
			res.Duration = time.Since(start)
		}
		done <- res
	}()
	var res *Result
	select {
	case res = <-done:
	case <-ctx.Done():
		log.Info("stopping: waiting for the fire in flight", "timeout", l.ShutdownTimeout.String())
		select {
		case res = <-done:
		case <-time.After(l.ShutdownTimeout):
			log.Warn("shutdown timeout: cancelling the fire in flight")
			cancelRun()
			res = <-done
		}
	}
	if err := c.finish(context.WithoutCancel(ctx), l.Pool, l.Name, f.id, res); err != nil {
		log.Error("schedule fire not recorded", "err", err)
	}
	return ctx.Err() == nil
}

// drop records fires made but not run because the Local stopped.
func (l Local) drop(fires []madeFire, log *slog.Logger) {
	c := &Config{Pool: l.Pool, Log: l.Log}
	for _, f := range fires {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := c.finish(ctx, l.Pool, l.Name, f.id, &Result{Status: StatusSkipped, Error: "the scheduler stopped before the fire ran"}); err != nil {
			log.Warn("schedule fire not recorded", "fire", f.id, "err", err)
		}
		cancel()
	}
}

// reclaim closes the schedule's fires a dead Local left unfinished: a fire
// without a River job (a worker's fire always has one) whose lease nobody
// holds is interrupted. A pending one younger than a minute may be another
// Local's, between its pass and its lease: it is left alone.
func (l Local) reclaim(ctx context.Context, log *slog.Logger) error {
	rows, err := l.Pool.Query(ctx, `SELECT f.id FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id
		WHERE s.name = $1 AND s.user_id IS NULL AND f.river_job_id IS NULL
		  AND (f.status = 'running' OR f.status = 'pending' AND f.created_at < now() - interval '1 minute')`, l.Name)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	c := &Config{Pool: l.Pool, Log: l.Log}
	for _, id := range ids {
		lock, err := db.TryLock(ctx, l.Pool, "schedule-fire "+strconv.FormatInt(id, 10))
		if db.IsLockHeld(err) {
			continue // a live Local runs it
		}
		if err != nil {
			return err
		}
		err = c.finish(ctx, l.Pool, l.Name, id, &Result{Status: StatusInterrupted, Error: "its scheduler stopped before the fire finished"})
		_ = lock.Release(context.WithoutCancel(ctx))
		if err != nil {
			return err
		}
		log.Info("schedule fire interrupted: its scheduler died", "fire", id)
	}
	return nil
}

// JobResult is the Result of a job run in-process, as Exec makes it of a
// child process: its exit status code, the counts of out (its JSON result)
// and its error message.
func JobResult(code int, out any, err error) *Result {
	r := &Result{ExitCode: &code, Status: statusOf(code)}
	if out != nil {
		if b, e := json.Marshal(out); e == nil {
			r.Counts = counts(b)
		}
	}
	if err != nil {
		r.Error = err.Error()
	}
	return r
}

// statusOf is a fire's status for a job's exit status.
func statusOf(code int) string {
	switch code {
	case 0:
		return StatusOK
	case exitPartial:
		return StatusPartial
	case exitSkipped:
		return StatusSkipped
	case exitInterrupted:
		return StatusInterrupted
	}
	return StatusFailed
}
