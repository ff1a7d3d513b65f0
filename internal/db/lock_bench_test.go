package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
)

// BenchmarkUserLock is the cost of taking and releasing one user's lock
// (one op = one user; scripts/bench/locks.sh runs 10,000), on each path:
//
//   - advisory: the session advisory lock helix took per user before issue
//     28 (a pooled connection, pg_try_advisory_lock, pg_advisory_unlock) —
//     not safe through a transaction pooler, so not run there;
//   - xact: the transaction lock helix takes now, in the user's write
//     transaction (BEGIN, pg_try_advisory_xact_lock, COMMIT: the BEGIN and
//     COMMIT are the write's own, so this is an upper bound; none-tx-only
//     is the BEGIN and COMMIT alone, and the difference the lock's cost);
//   - lease: a lease in helix_locks (TryLock, Release), what jobs hold.
func BenchmarkUserLock(b *testing.B) {
	ctx := context.Background()
	urls := benchPaths(b)
	for _, p := range allPaths {
		pool, err := db.Open(ctx, urls[p], db.Options{PoolMode: string(p)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(pool.Close)
		if p != db.PathTransaction {
			b.Run(fmt.Sprintf("path=%s/lock=advisory", string(p)), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					key := db.LockKey(fmt.Sprintf("synthesize:%d", i))
					conn, err := pool.Acquire(ctx)
					if err != nil {
						b.Fatal(err)
					}
					var ok bool
					if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1) FROM (SELECT set_config('application_name', $2, false)) s`, key, "helix-bench").Scan(&ok); err != nil || !ok {
						b.Fatal(ok, err)
					}
					if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, key); err != nil {
						b.Fatal(err)
					}
					conn.Release()
				}
			})
		}
		// The write transaction alone (BEGIN, COMMIT): xact minus this is
		// what the per-user lock adds to a user's write.
		b.Run(fmt.Sprintf("path=%s/lock=none-tx-only", string(p)), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := db.InTx(ctx, pool, func(pgx.Tx) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("path=%s/lock=xact", string(p)), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := db.InTx(ctx, pool, func(tx pgx.Tx) error {
					return db.TryXactLock(ctx, tx, fmt.Sprintf("synthesize:%d", i), 0)
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("path=%s/lock=lease", string(p)), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				l, err := db.TryLock(ctx, pool, fmt.Sprintf("synthesize:%d", i))
				if err != nil {
					b.Fatal(err)
				}
				if err := l.Release(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
