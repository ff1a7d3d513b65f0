// Package jobrun is the one envelope every helix job runs in, in-process or
// on a River worker: lock → start a job_runs row → run → map the error to a
// status → finish. It also closes job_runs rows whose process died (Reap).
package jobrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/redact"
)

// RunLock names the lease a running job_runs row is held under: while the
// process that started the run lives, its heartbeat keeps the lease; a row
// still 'running' without a live lease belongs to a process that died.
func RunLock(id int64) string { return "job-run:" + strconv.FormatInt(id, 10) }

// MinConns is the smallest pool a run works in: its own connection (Run.Conn)
// and one for its lease's heartbeat.
const MinConns = 2

// Spec describes one run.
type Spec struct {
	Job    string // job_runs.job
	Params any    // job_runs.params (JSON)
	// Lock names the advisory lock the run holds ("" for none: jobs that
	// coordinate otherwise, like sync reconcile's SKIP LOCKED claims).
	Lock string
	// LockWait keeps trying a held Lock for this long before giving up.
	LockWait time.Duration
	// RecordSkipped writes a 'skipped' job_runs row when the lock is held.
	RecordSkipped bool
	// Check runs under the lock before the run is recorded; its error ends
	// the run unrecorded (decay's "this scheduled tick already ran").
	Check func(ctx context.Context, q db.Querier) error
	// NoReap skips closing dead runs' rows first (River workers reap on a timer instead).
	NoReap bool
	Now    func() time.Time
	// ExitCode, when set, is recorded in job_runs.exit_code for a run that
	// failed: the exit status the same failure gives a command in-process
	// (a worker's runs, which helix jobs wait reports; issue 44).
	ExitCode func(error) int
}

// Run is a started run. Conn is a connection of its own, held for the run's
// whole life; per-user work should use it, so a run never waits on the pool
// it is part of.
type Run struct {
	ID     int64
	Conn   *pgxpool.Conn
	lock   *db.Lock
	status string
	code   func(error) int
}

// SetStatus overrides the status Do derives from the returned error.
func (r *Run) SetStatus(s string) { r.status = s }

// ErrHeld is returned (wrapped in *db.ErrLockHeld) when the run's lock is taken.
var ErrHeld = errors.New("lock held")

// Do runs fn inside the envelope. fn returns the counts to record and its
// error, which Do returns unchanged (or the lock's *db.ErrLockHeld, or the
// error starting or finishing the record when fn succeeded). The run's
// record and its job lock (spec.Lock) are one lease (package db): fn's
// context is cancelled if the lease is lost.
func Do(ctx context.Context, pool *pgxpool.Pool, spec Spec, fn func(ctx context.Context, run *Run) (any, error)) error {
	if spec.Now == nil {
		spec.Now = time.Now
	}
	if n := pool.Config().MaxConns; n < MinConns {
		// The run's work and record hold one connection for its whole
		// life; its lease's heartbeat needs another, or the lease expires.
		return exitcode.AsInput(fmt.Errorf("setting db.max-conns = %d: a job run needs %d connections (one for its work and record, one to renew its lease): set db.max-conns to %d or more",
			n, MinConns, MinConns))
	}
	var lock *db.Lock
	if spec.Lock != "" {
		var err error
		lock, err = db.WaitLock(ctx, pool, spec.Lock, spec.LockWait)
		if err != nil {
			if db.IsLockHeld(err) && spec.RecordSkipped {
				if run, e := startOn(ctx, pool, db.Lease(pool, spec.Job), spec); e == nil {
					_ = run.finish(ctx, db.RunSkipped, map[string]any{}, err)
				}
			}
			return err
		}
	} else {
		lock = db.Lease(pool, spec.Job)
	}
	// Reaped once the job lock is ours: a killed run's lease (its lock and
	// its record, which expire together) has expired by the time the lock
	// could be taken, so its record is closed here, not left running.
	if !spec.NoReap {
		if _, err := Reap(ctx, pool); err != nil {
			_ = lock.Release(ctx)
			return err
		}
	}
	if spec.Check != nil {
		if err := spec.Check(ctx, pool); err != nil {
			_ = lock.Release(ctx)
			return err
		}
	}
	run, err := startOn(ctx, pool, lock, spec)
	if err != nil {
		_ = lock.Release(ctx)
		return err
	}
	return do(ctx, run, fn)
}

// do runs fn in a started run and finishes it.
func do(ctx context.Context, run *Run, fn func(ctx context.Context, run *Run) (any, error)) error {
	defer func() {
		// A panic (River recovers them in workers) must not keep the
		// connection, and with it the lease, forever.
		if p := recover(); p != nil {
			_ = run.finish(ctx, db.RunFailed, nil, fmt.Errorf("panic: %v", p))
			panic(p)
		}
	}()
	fctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	lost := run.lock.Lost()
	stop := context.AfterFunc(lost, func() {
		if errors.Is(context.Cause(lost), db.ErrLockLost) {
			cancel(db.ErrLockLost)
		}
	})
	defer stop()
	counts, err := fn(fctx, run)
	if err == nil && errors.Is(context.Cause(fctx), db.ErrLockLost) {
		err = db.ErrLockLost
	}
	status := run.status
	if status == "" {
		status = Status(fctx, err)
	}
	if ferr := run.finish(ctx, status, counts, err); ferr != nil && err == nil {
		return ferr
	}
	return err
}

// Status maps a job's error to its job_runs status.
func Status(ctx context.Context, err error) string {
	var pe *exitcode.PartialError
	switch {
	case err == nil:
		return db.RunOK
	case errors.As(err, &pe):
		return db.RunPartial
	case db.IsLockHeld(err):
		return db.RunSkipped
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return db.RunInterrupted
	}
	return db.RunFailed
}

// startOn inserts the running row and its lease (RunLock, under lock's
// token) in one statement, so the row is never visible without its lease,
// and starts the lease's heartbeat.
func startOn(ctx context.Context, pool *pgxpool.Pool, lock *db.Lock, spec Spec) (*Run, error) {
	p, err := json.Marshal(spec.Params)
	if err != nil {
		return nil, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	r := &Run{Conn: conn, lock: lock, code: spec.ExitCode}
	args := append([]any{spec.Job, p, spec.Now()}, lock.AddArgs()...)
	err = conn.QueryRow(ctx, `WITH r AS (INSERT INTO job_runs (job, params, started_at, status) VALUES ($1, $2, $3, 'running') RETURNING id),
		l AS (`+fmt.Sprintf(db.AddSQL, `'job-run:' || r.id`, 4, 5, 6)+` FROM r)
		SELECT id FROM r`, args...).Scan(&r.ID)
	if err != nil {
		conn.Release()
		return nil, err
	}
	lock.Start(1)
	return r, nil
}

// OKTx records the run as ok inside tx, the transaction that commits the
// run's results: a process killed after that commit leaves no 'running' row
// for work that was in fact done. The envelope's own finish rewrites it later.
func (r *Run) OKTx(ctx context.Context, tx db.Querier, counts any) error {
	c, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE job_runs SET finished_at = clock_timestamp(), status = 'ok', counts = $2 WHERE id = $1`, r.ID, c)
	return err
}

// finish records the outcome and gives the run's lease back (its record
// and its job lock) in one round trip; then the run's connection goes back
// to the pool. The error is stored with every known secret masked (package
// redact), whatever produced it. It runs even when ctx was cancelled, so an
// interrupted job is marked as such.
func (r *Run) finish(ctx context.Context, status string, counts any, jobErr error) error {
	ctx = context.WithoutCancel(ctx)
	c, err := json.Marshal(counts)
	if err != nil {
		c = []byte("null")
	}
	var msg *string
	var code *int
	if jobErr != nil {
		s := redact.String(jobErr.Error())
		msg = &s
		if r.code != nil {
			n := r.code(jobErr)
			code = &n
		}
	}
	r.Conn.Release()
	b := &pgx.Batch{}
	b.Queue(`UPDATE job_runs SET finished_at = clock_timestamp(), status = $2, counts = $3, error = $4, exit_code = $5 WHERE id = $1`, r.ID, status, c, msg, code)
	return errors.Join(err, r.lock.ReleaseWith(ctx, b))
}

// Reap marks 'interrupted' every job_runs row left 'running' whose lease
// (RunLock) expired: the process that ran it was killed (or predates
// leases). Expired leases of dead runs are deleted. It returns how many rows it closed.
func Reap(ctx context.Context, q db.Querier) (int64, error) {
	tag, err := q.Exec(ctx, `WITH gone AS (
			DELETE FROM helix_locks WHERE name LIKE 'job-run:%' AND expires_at < clock_timestamp() RETURNING name)
		UPDATE job_runs r SET status = 'interrupted', finished_at = clock_timestamp(),
			error = coalesce(r.error, 'the process running this job ended without recording how it finished')
		WHERE r.status = 'running' AND NOT EXISTS (
			SELECT 1 FROM helix_locks l WHERE l.name = 'job-run:' || r.id AND l.expires_at >= clock_timestamp())`)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}
