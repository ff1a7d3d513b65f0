package db

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrLockHeld is returned by TryLock when another session holds the lock.
type ErrLockHeld struct {
	Job    string
	Holder string // application_name of the holder, "helix-<job> host=H pid=P"
}

func (e *ErrLockHeld) Error() string {
	return fmt.Sprintf("skipped: %s is held by %s", e.Job, e.Holder)
}

// Lock is a session-level advisory lock held on one dedicated connection.
type Lock struct {
	conn *pgxpool.Conn
	key  int64
}

// LockKey maps a job name to the advisory lock key helix uses for it.
func LockKey(job string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("helix:" + job))
	return int64(h.Sum64())
}

// TryLock takes the advisory lock for job without waiting. The connection is
// taken out of the pool for as long as the lock is held, and its
// application_name names this host and process so a loser can say who holds it.
func TryLock(ctx context.Context, pool *pgxpool.Pool, job string) (*Lock, error) {
	return WaitLock(ctx, pool, job, 0)
}

// WaitLock is TryLock that keeps trying for up to wait before giving up
// (a desktop run waiting briefly for a nightly run to finish its user).
func WaitLock(ctx context.Context, pool *pgxpool.Pool, job string, wait time.Duration) (*Lock, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	me := SessionName(job)
	key := LockKey(job)
	var ok bool
	deadline := time.Now().Add(wait)
	for {
		// Naming the session and trying the lock in one round trip: a queue
		// worker takes a lock per job.
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1) FROM (SELECT set_config('application_name', $2, false)) s", key, me).Scan(&ok); err != nil {
			conn.Release()
			return nil, err
		}
		if ok || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			conn.Release()
			return nil, ctx.Err()
		case <-time.After(min(100*time.Millisecond, time.Until(deadline))):
		}
	}
	if !ok {
		conn.Release()
		return nil, Held(ctx, pool, job)
	}
	return &Lock{conn: conn, key: key}, nil
}

// SessionName is the application_name a session holding job's lock takes,
// so that a loser can say who holds it.
func SessionName(job string) string {
	host, _ := os.Hostname()
	me := fmt.Sprintf("helix-%s host=%s pid=%d", job, host, os.Getpid())
	if len(me) > 63 {
		me = me[:63]
	}
	return me
}

// Held is the *ErrLockHeld for job, naming the session that holds its lock.
func Held(ctx context.Context, q Querier, job string) *ErrLockHeld {
	holder := "another session"
	_ = q.QueryRow(ctx, `
		SELECT a.application_name || CASE WHEN a.client_addr IS NULL THEN '' ELSE ' from ' || host(a.client_addr) END
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted
		  AND l.classid = (($1::bigint >> 32) & x'ffffffff'::bigint)::oid
		  AND l.objid = ($1::bigint & x'ffffffff'::bigint)::oid
		LIMIT 1`, LockKey(job)).Scan(&holder)
	return &ErrLockHeld{Job: job, Holder: holder}
}

// HeldLock is job's lock, which the session of conn took itself (in a
// statement of its own making); Release gives it back as usual.
func HeldLock(conn *pgxpool.Conn, job string) *Lock { return &Lock{conn: conn, key: LockKey(job)} }

// Conn is the connection holding the lock: work done on it runs in the
// lock holder's session (and keeps the pool free for others).
func (l *Lock) Conn() *pgxpool.Conn { return l.conn }

// Release gives the lock back and returns the connection to the pool. If the
// connection died the server already released the lock, so the connection is closed.
func (l *Lock) Release(ctx context.Context) error {
	return l.ReleaseWith(ctx, nil)
}

// ReleaseWith sends the statements queued in b (nil: none) and then gives the
// lock back, in one round trip, and returns the connection to the pool. The
// first error of the batch is returned; the lock is given back regardless
// (a broken connection is closed, which frees it).
func (l *Lock) ReleaseWith(ctx context.Context, b *pgx.Batch) error {
	if l == nil || l.conn == nil {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	if b == nil {
		b = &pgx.Batch{}
	}
	var unlockErr error
	b.Queue("SELECT pg_advisory_unlock($1)", l.key)
	n := b.Len()
	br := l.conn.SendBatch(ctx, b)
	var err error
	for i := 0; i < n; i++ {
		if _, e := br.Exec(); e != nil {
			if i == n-1 {
				unlockErr = e
			} else if err == nil {
				err = e
			}
		}
	}
	if e := br.Close(); e != nil && err == nil && unlockErr == nil {
		unlockErr = e
	}
	if unlockErr != nil {
		err = errors.Join(err, unlockErr)
		_ = l.conn.Conn().Close(ctx)
	}
	l.conn.Release()
	l.conn = nil
	return err
}

// IsLockHeld reports whether err is ErrLockHeld.
func IsLockHeld(err error) bool {
	var h *ErrLockHeld
	return errors.As(err, &h)
}
