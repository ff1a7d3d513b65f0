// Package jobrun is the one envelope every helix job runs in, in-process or
// on a River worker: lock → start a job_runs row → run → map the error to a
// status → finish. It also closes job_runs rows whose process died (Reap).
package jobrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/redact"
)

// runLockClass is the first key of the two-int advisory lock each running
// job_runs row is held under ('helx'); the second is the row id mod 2^31.
// While the session that started a run lives, the lock is held; a row still
// 'running' without its lock belongs to a process that died.
const runLockClass = 0x68656c78

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
}

// Run is a started run. Conn is a connection of its own, held for the run's
// whole life (it holds the run's locks); per-user work should use it, so a
// run never waits on the pool it is part of.
type Run struct {
	ID     int64
	Conn   *pgxpool.Conn
	status string
}

// SetStatus overrides the status Do derives from the returned error.
func (r *Run) SetStatus(s string) { r.status = s }

// ErrHeld is returned (wrapped in *db.ErrLockHeld) when the run's lock is taken.
var ErrHeld = errors.New("lock held")

// Do runs fn inside the envelope. fn returns the counts to record and its
// error, which Do returns unchanged (or the lock's *db.ErrLockHeld, or the
// error starting or finishing the record when fn succeeded).
func Do(ctx context.Context, pool *pgxpool.Pool, spec Spec, fn func(ctx context.Context, run *Run) (any, error)) error {
	if spec.Now == nil {
		spec.Now = time.Now
	}
	if !spec.NoReap {
		if _, err := Reap(ctx, pool); err != nil {
			return err
		}
	}
	var (
		conn *pgxpool.Conn
		lock *db.Lock
		err  error
	)
	if spec.Lock != "" && spec.LockWait == 0 && spec.Check == nil && !spec.RecordSkipped {
		// A queue worker's path: the lock and the running row in one round trip.
		lock, run, err := lockAndStart(ctx, pool, spec)
		if err != nil {
			return err
		}
		return do(ctx, lock, run, fn)
	}
	if spec.Lock != "" {
		lock, err = db.WaitLock(ctx, pool, spec.Lock, spec.LockWait)
		if err != nil {
			if db.IsLockHeld(err) && spec.RecordSkipped {
				if run, e := start(ctx, pool, spec); e == nil {
					_ = run.finish(ctx, nil, db.RunSkipped, map[string]any{}, err)
				}
			}
			return err
		}
		conn = lock.Conn()
	}
	if spec.Check != nil {
		var q db.Querier = pool
		if conn != nil {
			q = conn
		}
		if err := spec.Check(ctx, q); err != nil {
			_ = lock.Release(ctx)
			return err
		}
	}
	run, err := startOn(ctx, pool, conn, spec)
	if err != nil {
		_ = lock.Release(ctx)
		return err
	}
	return do(ctx, lock, run, fn)
}

// do runs fn in a started run and finishes it.
func do(ctx context.Context, lock *db.Lock, run *Run, fn func(ctx context.Context, run *Run) (any, error)) error {
	defer func() {
		// A panic (River recovers them in workers) must not keep the
		// connection, and with it the locks, forever.
		if p := recover(); p != nil {
			_ = run.finish(ctx, lock, db.RunFailed, nil, fmt.Errorf("panic: %v", p))
			panic(p)
		}
	}()
	counts, err := fn(ctx, run)
	status := run.status
	if status == "" {
		status = Status(ctx, err)
	}
	if ferr := run.finish(ctx, lock, status, counts, err); ferr != nil && err == nil {
		return ferr
	}
	return err
}

// Status maps a job's error to its job_runs status.
func Status(ctx context.Context, err error) string {
	var pe interface{ IsPartial() bool }
	switch {
	case err == nil:
		return db.RunOK
	case errors.As(err, &pe) && pe.IsPartial():
		return db.RunPartial
	case db.IsLockHeld(err):
		return db.RunSkipped
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return db.RunInterrupted
	}
	return db.RunFailed
}

func start(ctx context.Context, pool *pgxpool.Pool, spec Spec) (*Run, error) {
	return startOn(ctx, pool, nil, spec)
}

// startOn inserts the running row and takes its run lock in one statement,
// so the row is never visible without its lock.
func startOn(ctx context.Context, pool *pgxpool.Pool, conn *pgxpool.Conn, spec Spec) (*Run, error) {
	p, err := json.Marshal(spec.Params)
	if err != nil {
		return nil, err
	}
	own := conn == nil
	if own {
		if conn, err = pool.Acquire(ctx); err != nil {
			return nil, err
		}
	}
	r := &Run{Conn: conn}
	err = conn.QueryRow(ctx, `WITH r AS (INSERT INTO job_runs (job, params, started_at, status) VALUES ($1, $2, $3, 'running') RETURNING id)
		SELECT id, pg_advisory_lock($4::int, (id % 2147483648)::int) FROM r`, spec.Job, p, spec.Now(), runLockClass).Scan(&r.ID, nil)
	if err != nil {
		if own {
			conn.Release()
		}
		return nil, err
	}
	return r, nil
}

// lockAndStart tries spec.Lock and, only when it got it, inserts the running
// row and takes its run lock, all in one statement on one connection.
func lockAndStart(ctx context.Context, pool *pgxpool.Pool, spec Spec) (*db.Lock, *Run, error) {
	p, err := json.Marshal(spec.Params)
	if err != nil {
		return nil, nil, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	var got bool
	var id *int64
	err = conn.QueryRow(ctx, `WITH l AS MATERIALIZED (
			SELECT pg_try_advisory_lock($1) AS got FROM (SELECT set_config('application_name', $2, false)) s),
		r AS (INSERT INTO job_runs (job, params, started_at, status) SELECT $3, $4, $5, 'running' FROM l WHERE l.got RETURNING id)
		SELECT l.got, r.id, (SELECT pg_advisory_lock($6::int, (r.id % 2147483648)::int)) FROM l LEFT JOIN r ON true`,
		db.LockKey(spec.Lock), db.SessionName(spec.Lock), spec.Job, p, spec.Now(), runLockClass).Scan(&got, &id, nil)
	switch {
	case err != nil:
		conn.Release()
		return nil, nil, err
	case !got:
		conn.Release()
		return nil, nil, db.Held(ctx, pool, spec.Lock)
	case id == nil:
		lock := db.HeldLock(conn, spec.Lock)
		_ = lock.Release(ctx)
		return nil, nil, errors.New("jobrun: no job_runs row inserted")
	}
	return db.HeldLock(conn, spec.Lock), &Run{ID: *id, Conn: conn}, nil
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

// finish records the outcome and gives the run lock back, and lock (if
// any) after it, in one round trip; then the run's connection goes back to
// the pool. The error is stored with every known secret masked (package
// redact), whatever produced it. It runs even when ctx was cancelled, so an
// interrupted job is marked as such.
func (r *Run) finish(ctx context.Context, lock *db.Lock, status string, counts any, jobErr error) error {
	ctx = context.WithoutCancel(ctx)
	c, err := json.Marshal(counts)
	if err != nil {
		c = []byte("null")
	}
	var msg *string
	if jobErr != nil {
		s := redact.String(jobErr.Error())
		msg = &s
	}
	b := &pgx.Batch{}
	b.Queue(`UPDATE job_runs SET finished_at = clock_timestamp(), status = $2, counts = $3, error = $4 WHERE id = $1`, r.ID, status, c, msg)
	b.Queue(`SELECT pg_advisory_unlock($1::int, ($2 % 2147483648)::int)`, runLockClass, r.ID)
	if lock != nil {
		if ferr := lock.ReleaseWith(ctx, b); ferr != nil {
			return errors.Join(err, ferr)
		}
		return err
	}
	br := r.Conn.SendBatch(ctx, b)
	_, uerr := br.Exec()
	_, lerr := br.Exec()
	if cerr := br.Close(); lerr == nil {
		lerr = cerr
	}
	if uerr != nil || lerr != nil {
		// The session may be broken; closing it frees the run lock for certain.
		_ = r.Conn.Conn().Close(ctx)
	}
	r.Conn.Release()
	return errors.Join(err, uerr)
}

// Reap marks 'interrupted' every job_runs row left 'running' whose run lock
// no session holds: the process that ran it was killed (or predates the lock).
// It returns how many rows it closed.
func Reap(ctx context.Context, q db.Querier) (int64, error) {
	tag, err := q.Exec(ctx, `UPDATE job_runs r SET status = 'interrupted', finished_at = clock_timestamp(),
			error = coalesce(r.error, 'the process running this job ended without recording how it finished')
		WHERE r.status = 'running' AND NOT EXISTS (
			SELECT 1 FROM pg_locks l
			WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
			  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
			  AND l.classid = $1::int::oid AND l.objid = (r.id % 2147483648)::int::oid)`, runLockClass)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}
