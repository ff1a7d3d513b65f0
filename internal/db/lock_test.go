package db_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
)

// noLocks fails t when any helix lock (lease or advisory) is still held.
func noLocks(t *testing.T, q db.Querier) {
	t.Helper()
	held, err := db.HeldLocks(context.Background(), q)
	if err != nil || len(held) > 0 {
		t.Errorf("helix locks still held (%v): %v", err, held)
	}
}

// TestLocksThroughEveryPath: on each connection path, from two pools (two
// helix processes), a lease is held by one at a time and names its holder;
// a transaction lock likewise, and it ends with its transaction; the lease
// outlives its TTL while its heartbeat runs; a lease whose holder died (no
// heartbeat past its expiry) is taken over; nothing is left held.
func TestLocksThroughEveryPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	urls := paths(t)
	t.Cleanup(func() { noLocks(t, openPath(t, urls[db.PathDirect], db.Options{})) })
	for _, p := range allPaths {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			o := db.Options{LockTTL: db.MinLockTTL}
			a, b := openPath(t, urls[p], o), openPath(t, urls[p], o)
			direct := openPath(t, urls[db.PathDirect], o)
			job := "test-job-" + string(p)

			l, err := db.TryLock(ctx, a, job)
			if err != nil {
				t.Fatal(err)
			}
			// Past its TTL, the heartbeat keeps it.
			time.Sleep(db.MinLockTTL + time.Second)
			_, err = db.TryLock(ctx, b, job)
			var held *db.ErrLockHeld
			if !errors.As(err, &held) || !strings.HasPrefix(held.Holder, db.SessionName(job)) {
				t.Fatalf("second holder: %v, want held by %s", err, db.SessionName(job))
			}
			select {
			case <-l.Lost().Done():
				t.Fatalf("lease lost while renewed: %v", context.Cause(l.Lost()))
			default:
			}
			if err := l.Release(ctx); err != nil {
				t.Fatal(err)
			}
			l2, err := db.TryLock(ctx, b, job)
			if err != nil {
				t.Fatalf("after release: %v", err)
			}
			_ = l2.Release(ctx)

			// A holder that died: its lease has expired, nobody renews it.
			if _, err := direct.Exec(ctx, `INSERT INTO helix_locks VALUES ($1, 'dead', 'helix-x host=h pid=1', now() - interval '1 minute', now() - interval '1 millisecond')`, job); err != nil {
				t.Fatal(err)
			}
			l3, err := db.TryLock(ctx, a, job)
			if err != nil {
				t.Fatalf("dead holder's lease not taken over: %v", err)
			}
			_ = l3.Release(ctx)

			// Transaction locks.
			// The subtests share one database: each path's lock has its own name.
			user := "user:1-" + string(p)
			txa, err := a.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = txa.Rollback(ctx) }() // a failed test must not leave a pool waiting for it
			if err := db.TryXactLock(ctx, txa, user, 0); err != nil {
				t.Fatal(err)
			}
			err = db.InTx(ctx, b, func(tx pgx.Tx) error { return db.TryXactLock(ctx, tx, user, 300*time.Millisecond) })
			if !errors.As(err, &held) || !strings.HasPrefix(held.Holder, db.SessionName(user)) {
				t.Errorf("second transaction: %v, want held by %s", err, db.SessionName(user))
			}
			if err := txa.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if err := db.InTx(ctx, b, func(tx pgx.Tx) error { return db.TryXactLock(ctx, tx, user, 0) }); err != nil {
				t.Errorf("after commit: %v", err)
			}
		})
	}
}

// TestLeaseLost: a lease another holder took (its own had expired, say
// while the database was unreachable) is reported lost at the next
// heartbeat, with ErrLockLost, so the work under it stops.
func TestLeaseLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := paths(t)[db.PathDirect]
	pool := openPath(t, u, db.Options{LockTTL: db.MinLockTTL})
	l, err := db.TryLock(ctx, pool, "stolen")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Release(ctx) }()
	if _, err := pool.Exec(ctx, `UPDATE helix_locks SET token = 'other' WHERE name = 'stolen'`); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Lost().Done():
		if !errors.Is(context.Cause(l.Lost()), db.ErrLockLost) {
			t.Errorf("cause %v", context.Cause(l.Lost()))
		}
	case <-time.After(db.MinLockTTL):
		t.Fatal("a stolen lease was not reported lost")
	}
	if _, err := pool.Exec(ctx, `DELETE FROM helix_locks`); err != nil {
		t.Fatal(err)
	}
}
