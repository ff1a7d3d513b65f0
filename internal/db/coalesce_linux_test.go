package db_test

import (
	"context"
	"testing"

	"github.com/helixhq/helix/internal/db"
)

// TestReadsCoalesceLowat: the waits of a streamed result raise the
// socket's SO_RCVLOWAT and leave it at 1 (a read that parks with it high
// would not wake for a reply shorter than it), and the connection answers
// the next query.
func TestReadsCoalesceLowat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := openConn(t)
	r, err := c.Query(ctx, `SELECT repeat('x', 8000) FROM generate_series(1, 2000)`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	if _, waits := db.ReadCounts(c.Conn()); waits == 0 {
		t.Fatal("16 MB streamed without a wait")
	}
	if v, err := db.RcvLowat(c.Conn()); err != nil || v != 1 {
		t.Fatalf("SO_RCVLOWAT %d (%v) after the stream, want 1", v, err)
	}
	var n int
	if err := c.QueryRow(ctx, `SELECT 7`).Scan(&n); err != nil || n != 7 {
		t.Fatalf("the next query: %d, %v", n, err)
	}
}
