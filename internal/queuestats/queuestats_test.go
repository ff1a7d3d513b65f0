package queuestats

import (
	"context"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
)

func TestRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	add := func(n int, kind, queue, state string, ago int) {
		t.Helper()
		_, err := pool.Exec(ctx, `INSERT INTO river_job (kind, queue, state, args, max_attempts, scheduled_at, finalized_at)
			SELECT $1, $2, $3::river_job_state, '{}', 5, now() - make_interval(secs => $4 + i),
			       CASE WHEN $3 IN ('completed', 'cancelled', 'discarded') THEN now() END
			FROM generate_series(1, $5) i`, kind, queue, state, ago, n)
		if err != nil {
			t.Fatal(err)
		}
	}
	add(3, "embed", "embed", "available", 100)
	add(2, "synthesize", "synthesize", "available", 10)
	add(1, "synthesize_users", "synthesize", "running", 0)
	add(40, "synthesize", "synthesize", "completed", 0)
	add(7, "embed", "embed", "completed", 0)

	f, err := Read(ctx, pool, []string{"synthesize", "embed", "decay"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Count{
		{State: "available", Kind: "embed", Jobs: 3}, {State: "available", Kind: "synthesize", Jobs: 2},
		{State: "running", Kind: "synthesize_users", Jobs: 1},
		{State: "completed", Kind: "embed", Jobs: 7}, {State: "completed", Kind: "synthesize", Jobs: 40},
	}
	if len(f.Counts) != len(want) {
		t.Fatalf("counts %+v, want %+v", f.Counts, want)
	}
	for i := range want {
		if f.Counts[i] != want[i] {
			t.Errorf("count %d: %+v, want %+v", i, f.Counts[i], want[i])
		}
	}
	if len(f.Oldest) != 2 || f.Oldest[0].Queue != "embed" || f.Oldest[1].Queue != "synthesize" {
		t.Fatalf("oldest %+v", f.Oldest)
	}
	if a := f.Oldest[0].AgeSeconds; a < 103 || a > 160 {
		t.Errorf("embed's oldest available job is %.0f s old, want about 103", a)
	}

	// Above the cap a state is estimated, never below cap+1, split by kind.
	f, err = Read(ctx, pool, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	jobs, est := f.ByState()
	if !est["completed"] || est["available"] || est["running"] {
		t.Errorf("estimated states %v, want completed only", est)
	}
	if jobs["completed"] < 6 || jobs["available"] != 5 {
		t.Errorf("by state %v", jobs)
	}
}

// TestCache reads once per TTL.
func TestCache(t *testing.T) {
	t.Parallel()
	n := 0
	c := &Cache{TTL: time.Hour, Read: func(context.Context) (*Figures, error) { n++; return &Figures{}, nil }}
	for range 3 {
		if _, err := c.Get(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n != 1 {
		t.Errorf("%d reads within the TTL, want 1", n)
	}
}
