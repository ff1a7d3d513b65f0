package db_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

// TestReadsCoalesceNotReplies: request after request of a small reply, or
// of one of 200 kB, never waits for the stream to gather.
func TestReadsCoalesceNotReplies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openConn(t, pgtest.URL(t))
	reads0, waits0 := db.ReadCounts(c.Conn())
	for i := range 200 {
		var n int
		if err := c.QueryRow(ctx, `SELECT $1::int`, i).Scan(&n); err != nil || n != i {
			t.Fatalf("SELECT %d: %d, %v", i, n, err)
		}
	}
	for range 20 {
		var v string
		if err := c.QueryRow(ctx, `SELECT repeat('x', 200000)`).Scan(&v); err != nil || len(v) != 200000 {
			t.Fatalf("%d bytes, %v", len(v), err)
		}
	}
	reads, waits := db.ReadCounts(c.Conn())
	if reads-reads0 < 220 {
		t.Fatalf("220 round trips in %d reads: not counted", reads-reads0)
	}
	if waits != waits0 {
		t.Errorf("200 small replies and 20 of 200 kB waited %d times, want never", waits-waits0)
	}
}

// openConn is a connection of a pool db.Open made on url, released and
// closed when the test ends.
func openConn(t *testing.T, url string) *pgxpool.Conn {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, url, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	c, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Release)
	return c
}
