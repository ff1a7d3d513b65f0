package db

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// helix's one lock mechanism, safe through any connection path:
//
//   - A Lock (TryLock, WaitLock) is a lease: a row of helix_locks naming its
//     holder, renewed by a heartbeat every TTL/4 and free once its expiry
//     passes. It needs no session of its own, so a transaction pooler cannot
//     strand it on a server connection, and a holder killed with SIGKILL
//     frees it within the TTL (db.lock-ttl, 20 s by default, at most 30 s).
//     Jobs, schedule fires, migrations and job_runs records hold these.
//   - TryXactLock is an advisory lock scoped to one transaction, for work that
//     is one transaction (one user's synthesis write): it dies with the
//     transaction on every path and costs one statement.
//
// No helix code takes a session advisory lock: behind a transaction pooler
// it stays on the pooled server connection after helix exits.

// Lease TTL bounds (db.lock-ttl).
const (
	DefaultLockTTL = 20 * time.Second
	MinLockTTL     = 3 * time.Second
	MaxLockTTL     = 30 * time.Second
)

// ErrLockHeld is returned by TryLock when another holder has the lock.
type ErrLockHeld struct {
	Job    string
	Holder string // "helix-<job> host=H pid=P", the holder's own description
}

func (e *ErrLockHeld) Error() string {
	return fmt.Sprintf("skipped: %s is held by %s", e.Job, e.Holder)
}

// ErrLockLost is the cause of a Lock's Lost context when its lease could not
// be renewed before it expired: another holder may have it by now.
var ErrLockLost = errors.New("lock lost: its lease expired before the heartbeat could renew it (database unreachable?)")

// LockKey maps a name to the advisory lock key helix uses for it (the
// transaction-scoped locks of TryXactLock, and other helpers' xact locks).
func LockKey(job string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("helix:" + job))
	return int64(h.Sum64())
}

// Lock is a held lease on one or more names of helix_locks, sharing one
// token and one heartbeat.
type Lock struct {
	pool   *pgxpool.Pool
	token  string
	holder string
	ttl    time.Duration

	stop     chan struct{} // closed by Release
	done     chan struct{} // closed when the heartbeat has stopped
	lost     context.Context
	loseOnce sync.Once
	lose     context.CancelCauseFunc
	mu       sync.Mutex
	started  bool
	released bool
	names    int // rows of helix_locks under token
}

// Lease returns a Lock holding no name yet (AddTo adds names in the
// caller's own statement): jobrun's record of a run without a job lock.
func Lease(pool *pgxpool.Pool, job string) *Lock {
	ttl := info(pool).ttl
	l := &Lock{pool: pool, token: newToken(), holder: SessionName(job), ttl: ttl,
		stop: make(chan struct{}), done: make(chan struct{})}
	l.lost, l.lose = context.WithCancelCause(context.Background())
	return l
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// TryLock takes job's lock without waiting.
func TryLock(ctx context.Context, pool *pgxpool.Pool, job string) (*Lock, error) {
	return WaitLock(ctx, pool, job, 0)
}

// WaitLock is TryLock that keeps trying for up to wait before giving up
// (a desktop run waiting briefly for a nightly run to finish its user).
func WaitLock(ctx context.Context, pool *pgxpool.Pool, job string, wait time.Duration) (*Lock, error) {
	l := Lease(pool, job)
	deadline := time.Now().Add(wait)
	for {
		holder, err := l.try(ctx, job)
		if err != nil {
			return nil, err
		}
		if holder == "" {
			l.Start(1)
			return l, nil
		}
		if !time.Now().Before(deadline) {
			return nil, &ErrLockHeld{Job: job, Holder: holder}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(250*time.Millisecond, time.Until(deadline))):
		}
	}
}

// acquireSQL takes name for token unless an unexpired lease holds it, and
// says who holds it otherwise (the snapshot read is from before the insert).
const acquireSQL = `WITH t AS (
		INSERT INTO helix_locks AS l (name, token, holder, acquired_at, expires_at)
		VALUES ($1, $2, $3, clock_timestamp(), clock_timestamp() + $4 * interval '1 millisecond')
		ON CONFLICT (name) DO UPDATE SET token = excluded.token, holder = excluded.holder,
			acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
		WHERE l.expires_at < clock_timestamp()
		RETURNING true AS got)
	SELECT EXISTS (SELECT 1 FROM t), coalesce((SELECT holder || ' since ' || to_char(acquired_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') FROM helix_locks WHERE name = $1), 'another holder')`

// try takes name under l's token; "" means taken, else the holder.
func (l *Lock) try(ctx context.Context, name string) (string, error) {
	var got bool
	var holder string
	err := l.pool.QueryRow(ctx, acquireSQL, name, l.token, l.holder, l.ttl.Milliseconds()).Scan(&got, &holder)
	if err != nil {
		return "", lockErr(err)
	}
	if got {
		return "", nil
	}
	return holder, nil
}

// lockErr explains the one error an operator can fix here.
func lockErr(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" {
		return fmt.Errorf("take lock: %w (run helix migrate up)", err)
	}
	return err
}

// AddSQL is the INSERT that adds a name to l, for a caller's own statement
// (a data-modifying CTE): the name's SQL expression, then the placeholder
// numbers of l.AddArgs(). The name expires with the lease's other names
// (the first to expire), so a lease whose holder died frees all its names at
// once: a run that takes the job lock of a killed run finds that run's
// record lease expired too (jobrun.Reap), not a few milliseconds later.
const AddSQL = `INSERT INTO helix_locks (name, token, holder, acquired_at, expires_at)
	SELECT %[1]s, $%[2]d, $%[3]d, clock_timestamp(), coalesce(
		(SELECT min(expires_at) FROM helix_locks WHERE token = $%[2]d),
		clock_timestamp() + $%[4]d * interval '1 millisecond')`

// AddArgs are the token, holder and TTL (ms) AddSQL's placeholders take.
func (l *Lock) AddArgs() []any { return []any{l.token, l.holder, l.ttl.Milliseconds()} }

// Start counts the names the caller's own statement added to the lease
// (AddSQL) and begins its heartbeat, if not yet begun.
func (l *Lock) Start(added int) {
	l.mu.Lock()
	l.names += added
	l.mu.Unlock()
	l.start()
}

func (l *Lock) start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started || l.released {
		return
	}
	l.started = true
	go l.heartbeat()
}

// heartbeat renews every name of the lease each TTL/4; a lease that could
// not be renewed before its expiry (or that another holder took) is lost.
func (l *Lock) heartbeat() {
	defer close(l.done)
	every := l.ttl / 4
	renewed := time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		// As long as the lease lasts: a busy pool may keep the heartbeat
		// waiting for a connection.
		ctx, cancel := context.WithTimeout(context.Background(), max(every, l.ttl-time.Since(renewed)))
		tag, err := l.pool.Exec(ctx, `UPDATE helix_locks SET expires_at = clock_timestamp() + $2 * interval '1 millisecond'
			WHERE token = $1 AND expires_at >= clock_timestamp()`, l.token, l.ttl.Milliseconds())
		cancel()
		l.mu.Lock()
		names := int64(l.names)
		l.mu.Unlock()
		switch {
		case err == nil && tag.RowsAffected() >= names:
			renewed = time.Now()
		case err == nil, time.Since(renewed) >= l.ttl:
			// A name expired and was taken (or deleted) by another, or
			// the lease was not renewed in time.
			l.loseOnce.Do(func() { l.lose(ErrLockLost) })
			return
		}
	}
}

// Lost is done when the lease could not be kept: work under it must stop.
func (l *Lock) Lost() context.Context { return l.lost }

// Release gives the lock back (every name of the lease).
func (l *Lock) Release(ctx context.Context) error {
	return l.ReleaseWith(ctx, nil)
}

// ReleaseWith sends the statements queued in b (nil: none) and then gives
// the lock back, in one round trip. The first error of the batch is
// returned; the lease is deleted regardless (a failed delete expires).
func (l *Lock) ReleaseWith(ctx context.Context, b *pgx.Batch) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	if l.released {
		l.mu.Unlock()
		return nil
	}
	l.released = true
	started := l.started
	l.mu.Unlock()
	if started {
		close(l.stop)
		<-l.done
	}
	ctx = context.WithoutCancel(ctx)
	if b == nil {
		b = &pgx.Batch{}
	}
	b.Queue(`DELETE FROM helix_locks WHERE token = $1`, l.token)
	n := b.Len()
	br := l.pool.SendBatch(ctx, b)
	var err, unlockErr error
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
	l.loseOnce.Do(func() { l.lose(context.Canceled) })
	var pe *pgconn.PgError
	if errors.As(unlockErr, &pe) && pe.Code == "42P01" {
		unlockErr = nil // migrate down dropped helix_locks with the lock in it
	}
	return errors.Join(err, unlockErr)
}

// SessionName is the holder name of job's lock: which process holds it, so
// that a loser can say so.
func SessionName(job string) string {
	host, _ := os.Hostname()
	me := fmt.Sprintf("helix-%s host=%s pid=%d", job, host, os.Getpid())
	if len(me) > 63 {
		me = me[:63]
	}
	return me
}

// Held is the *ErrLockHeld for job, naming its lease's holder.
func Held(ctx context.Context, q Querier, job string) *ErrLockHeld {
	holder := "another holder"
	_ = q.QueryRow(ctx, `SELECT holder FROM helix_locks WHERE name = $1 AND expires_at >= clock_timestamp()`, job).Scan(&holder)
	return &ErrLockHeld{Job: job, Holder: holder}
}

// TryXactLock takes name's transaction-scoped advisory lock in tx, trying
// for up to wait; held is *ErrLockHeld naming the holder's application_name.
// The lock ends with tx, whatever the connection path.
func TryXactLock(ctx context.Context, tx pgx.Tx, name string, wait time.Duration) error {
	key := LockKey(name)
	deadline := time.Now().Add(wait)
	for {
		var got bool
		// The holder's name for the length of the transaction, so a loser can say who.
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1) FROM (SELECT set_config('application_name', $2, true)) s`,
			key, SessionName(name)).Scan(&got); err != nil {
			return err
		}
		if got {
			return nil
		}
		if !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(100*time.Millisecond, time.Until(deadline))):
		}
	}
	holder := "another session"
	_ = tx.QueryRow(ctx, `
		SELECT a.application_name || CASE WHEN a.client_addr IS NULL THEN '' ELSE ' from ' || host(a.client_addr) END
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted
		  AND l.classid = (($1::bigint >> 32) & x'ffffffff'::bigint)::oid
		  AND l.objid = ($1::bigint & x'ffffffff'::bigint)::oid
		LIMIT 1`, key).Scan(&holder)
	return &ErrLockHeld{Job: name, Holder: holder}
}

// TryXactLocks tries once, in one query, for the transaction-scoped
// advisory lock of each of names (TryXactLock's locks, the same keys) and
// reports which it took; a lock already held is not waited for (TryXactLock
// it alone to wait and to learn its holder). The session is named holder
// (SessionName) for as long as tx lasts.
func TryXactLocks(ctx context.Context, tx pgx.Tx, holder string, names []string) ([]bool, error) {
	keys := make([]int64, len(names))
	for i, n := range names {
		keys[i] = LockKey(n)
	}
	got := make([]bool, 0, len(names))
	rows, err := tx.Query(ctx, `SELECT pg_try_advisory_xact_lock(k.key) FROM (SELECT set_config('application_name', $2, true)) s,
		unnest($1::int8[]) WITH ORDINALITY k(key, i) ORDER BY k.i`, keys, SessionName(holder))
	if err != nil {
		return nil, err
	}
	var ok bool
	if _, err := pgx.ForEachRow(rows, []any{&ok}, func() error { got = append(got, ok); return nil }); err != nil {
		return nil, err
	}
	if len(got) != len(names) {
		return nil, fmt.Errorf("tried %d locks, got %d answers", len(names), len(got))
	}
	return got, nil
}

// HeldLocks lists the helix locks held now in the database: unexpired
// leases and advisory locks of sessions named helix-* (none after every
// test, and none with no helix process alive once the TTL has passed).
func HeldLocks(ctx context.Context, q Querier) ([]string, error) {
	rows, err := q.Query(ctx, `
		SELECT 'lease ' || name || ' held by ' || holder FROM helix_locks WHERE expires_at >= clock_timestamp()
		UNION ALL
		SELECT 'advisory lock held by ' || a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND a.application_name LIKE 'helix%'
		  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// IsLockHeld reports whether err is ErrLockHeld.
func IsLockHeld(err error) bool {
	var h *ErrLockHeld
	return errors.As(err, &h)
}
