package synthstore

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/synthesis"
)

var ana = uuid.MustParse("11111111-1111-4111-8111-111111111111")

func demoDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := pgtest.New(t)
	if _, err := memories.Insert(context.Background(), pool, demoRows(t)); err != nil {
		t.Fatal(err)
	}
	return pool
}

type row struct {
	Type, Fingerprint, Content string
	Confidence                 float32
	Members                    int
}

func stored(t *testing.T, pool *pgxpool.Pool, user uuid.UUID) []row {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT pattern_type, fingerprint, synthesis_content,
		confidence_score, cardinality(memory_ids) FROM memory_synthesis WHERE user_id = $1 ORDER BY fingerprint`, user)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func synthesize(ctx context.Context, t *testing.T, pool *pgxpool.Pool) error {
	ms, err := Load(ctx, pool, ana, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := synthesis.Analyze(ctx, ms, synthesis.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	return Replace(ctx, pool, ana, nil, testNow, ps)
}

func TestLoadFilters(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	ctx := context.Background()
	all, err := Load(ctx, pool, ana, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 300 || !slices.IsSortedFunc(all, func(a, b synthesis.Memory) int { return a.CreatedAt.Compare(b.CreatedAt) }) {
		t.Fatalf("loaded %d memories (sorted: %v), want 300 in time order", len(all), slices.IsSortedFunc(all, func(a, b synthesis.Memory) int { return a.CreatedAt.Compare(b.CreatedAt) }))
	}
	// Embeddings arrive back to back in one array, so Analyze clusters them in place.
	var withEmb []int
	for i, m := range all {
		if m.Embedding != nil {
			withEmb = append(withEmb, i)
		}
	}
	if len(withEmb) < 250 || !backToBack(all, withEmb, 384) {
		t.Fatalf("%d embeddings not loaded into one array", len(withEmb))
	}
	recent, _ := Load(ctx, pool, ana, Filter{Limit: 50})
	if len(recent) != 50 || recent[49].ID != all[299].ID || recent[0].ID != all[250].ID {
		t.Fatalf("--limit 50 did not keep the 50 most recent memories")
	}
	since := all[100].CreatedAt
	late, _ := Load(ctx, pool, ana, Filter{Since: since})
	if len(late) != 200 || late[0].ID != all[100].ID {
		t.Fatalf("since %s: %d memories, want 200", since, len(late))
	}
	users, err := Users(ctx, pool, Filter{})
	if err != nil || len(users) != 4 || users[0] != ana {
		t.Fatalf("users %v, %v", users, err)
	}
}

func TestRerunLeavesSameRows(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	ctx := context.Background()
	if err := synthesize(ctx, t, pool); err != nil {
		t.Fatal(err)
	}
	first := stored(t, pool, ana)
	if len(first) < 10 {
		t.Fatalf("only %d patterns stored", len(first))
	}
	if err := synthesize(ctx, t, pool); err != nil {
		t.Fatal(err)
	}
	if second := stored(t, pool, ana); !slices.Equal(first, second) {
		t.Fatalf("re-run changed the rows:\n%v\n%v", first, second)
	}
}

// TestCancelledRunKeepsPreviousSynthesis cancels a run while it is writing,
// after it has deleted the previous rows inside its transaction.
func TestCancelledRunKeepsPreviousSynthesis(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	ctx := context.Background()
	if err := synthesize(ctx, t, pool); err != nil {
		t.Fatal(err)
	}
	before := stored(t, pool, ana)
	// Every insert now stalls, so the run is caught mid-write.
	if _, err := pool.Exec(ctx, `
		CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM pg_sleep(60); RETURN NEW; END $$;
		CREATE TRIGGER stall BEFORE INSERT ON memory_synthesis FOR EACH ROW EXECUTE FUNCTION stall();`); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- synthesize(runCtx, t, pool) }()
	for {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil || !errors.Is(err, context.Canceled) && runCtx.Err() == nil {
		t.Fatalf("cancelled run returned %v", err)
	}
	if after := stored(t, pool, ana); !slices.Equal(before, after) {
		t.Fatalf("cancelled run changed the previous synthesis: %d rows before, %d after", len(before), len(after))
	}
}

// Write.Many writes every user of a batch in one transaction, with their
// states, except a user whose lock another run holds: that one is left as
// it was and named in held. Written again, a batch replaces, never adds.
func TestWriteManyLeavesHeldUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	p, f := synthesis.DefaultParams(), Filter{}
	p.MinConfidence = 0 // every user has patterns to write
	var rs []Result
	for i := range 4 {
		u := uuid.NewSHA1(uuid.NameSpaceOID, []byte{'w', byte(i)})
		if _, err := memories.Insert(ctx, pool, synthesis.Synthetic(u, 30, 8, uint64(i+1))); err != nil {
			t.Fatal(err)
		}
		r, err := Compute(ctx, u, ReadUser(ctx, pool, u, f, p), p)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Patterns) == 0 {
			t.Fatalf("user %d: no patterns to write", i)
		}
		rs = append(rs, r)
	}
	locked := rs[2].User
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := db.TryXactLock(ctx, tx, UserLock(locked), 0); err != nil {
		t.Fatal(err)
	}
	w := &Write{Now: testNow}
	for range 2 {
		held, err := w.Many(ctx, pool, rs)
		if err != nil || !slices.Equal(held, []int{2}) {
			t.Fatalf("held %v, err %v: want [2]", held, err)
		}
	}
	for _, r := range rs {
		want := len(r.Patterns)
		if r.User == locked {
			want = 0
		}
		if n := count(t, pool, `SELECT count(*) FROM memory_synthesis WHERE user_id = $1`, r.User); n != want {
			t.Errorf("user %s: %d patterns stored, want %d", r.User, n, want)
		}
		if n := count(t, pool, `SELECT count(*) FROM helix_synthesis_state WHERE user_id = $1 AND memories = 30 AND seen IS NOT NULL`, r.User); n != min(want, 1) {
			t.Errorf("user %s: %d states recorded, want %d", r.User, n, min(want, 1))
		}
	}
	if n := count(t, pool, `SELECT count(*) FROM helix_memory_changes WHERE user_id <> $1`, locked); n != 0 {
		t.Errorf("%d change markers of written users left", n)
	}
	// once the lock is free, One writes the user (Complete in the same transaction)
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	completed := false
	w.Complete = func(context.Context, pgx.Tx) error { completed = true; return nil }
	if err := w.One(ctx, pool, rs[2]); err != nil || !completed {
		t.Fatalf("One: %v (completed %v)", err, completed)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_synthesis WHERE user_id = $1`, locked); n != len(rs[2].Patterns) {
		t.Errorf("held user: %d patterns after One, want %d", n, len(rs[2].Patterns))
	}
}
