package db_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

// TestReadsCoalesce: a large result is read in few, large reads (each
// wake-up takes what the kernel gathered while the last read's bytes were
// used), not one per 8 kB the server writes; and request after request of
// a small reply, or of one of 200 kB, never waits.
func TestReadsCoalesce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openConn(t)

	reads0, waits0 := db.ReadCounts(c.Conn())
	for i := range 200 {
		var n int
		if err := c.QueryRow(ctx, `SELECT $1::int`, i).Scan(&n); err != nil || n != i {
			t.Fatalf("SELECT %d: %d, %v", i, n, err)
		}
	}
	reads, waits := db.ReadCounts(c.Conn())
	if waits != waits0 {
		t.Errorf("200 small round trips waited %d times, want never", waits-waits0)
	}
	if reads-reads0 < 200 {
		t.Fatalf("200 round trips in %d reads: not counted", reads-reads0)
	}
	for range 20 {
		var v string
		if err := c.QueryRow(ctx, `SELECT repeat('x', 200000)`).Scan(&v); err != nil || len(v) != 200000 {
			t.Fatalf("%d bytes, %v", len(v), err)
		}
	}
	if _, waits = db.ReadCounts(c.Conn()); waits != waits0 {
		t.Errorf("20 replies of 200 kB waited %d times, want never", waits-waits0)
	}

	// 3,000 rows of 8,000 bytes: 24 MB, 3,000 server writes or more
	const rows, width = 3000, 8000
	reads0, waits0 = db.ReadCounts(c.Conn())
	r, err := c.Query(ctx, `SELECT repeat('x', $2) FROM generate_series(1, $1)`, rows, width)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for r.Next() {
		if v := r.RawValues()[0]; len(v) != width {
			t.Fatalf("row %d: %d bytes", got, len(v))
		}
		got++
	}
	if r.Err() != nil || got != rows {
		t.Fatalf("%d rows (%v), want %d", got, r.Err(), rows)
	}
	reads, waits = db.ReadCounts(c.Conn())
	t.Logf("%d MB in %d reads (%d waited)", rows*width>>20, reads-reads0, waits-waits0)
	if max := rows * width / (32 << 10); reads-reads0 > max {
		t.Errorf("%d MB in %d reads, want at most %d (32 kB a read)", rows*width>>20, reads-reads0, max)
	}
}

// openConn is a connection of a pool db.Open made on the test server,
// released and closed when the test ends.
func openConn(t *testing.T) *pgxpool.Conn {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, pgtest.URL(t), db.Options{})
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
