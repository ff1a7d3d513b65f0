package decay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/pgtest"
)

const (
	userA = "aaaaaaaa-0000-0000-0000-000000000001"
	userB = "bbbbbbbb-0000-0000-0000-000000000002"
)

var created = time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)

// seed inserts n memories per user with a spread of ages, accesses and
// stabilities, and the seven layers of each user.
func seed(t testing.TB, pool *pgxpool.Pool, n int) {
	t.Helper()
	ctx := context.Background()
	_, err := pool.Exec(ctx, `
		INSERT INTO memories (id, user_id, type, content, created_at, last_accessed, access_count, stability, difficulty)
		SELECT md5(u || g::text)::uuid, u, 'episodic', 'memory ' || g,
		       $1::timestamptz + g * interval '37 minutes',
		       CASE WHEN g % 3 = 0 THEN $1::timestamptz + g * interval '37 minutes' + (g % 17) * interval '1 day' END,
		       CASE WHEN g % 3 = 0 THEN 1 + g % 5 ELSE 0 END,
		       CASE WHEN g % 4 = 0 THEN 1 + (g % 30) END,
		       CASE WHEN g % 5 = 0 THEN 1 + (g % 9) END
		FROM generate_series(1, $2) g, unnest(ARRAY[$3, $4]::uuid[]) u`, created, n, userA, userB)
	if err != nil {
		t.Fatal(err)
	}
	_, err = pool.Exec(ctx, `
		INSERT INTO psychology_layers (id, user_id, layer_number, layer_name, last_updated, stability)
		SELECT md5(u || 'layer' || n)::uuid, u, n, 'layer ' || n, $1::timestamptz + n * interval '1 day', CASE WHEN n = 6 THEN 100 END
		FROM generate_series(1, 7) n, unnest(ARRAY[$2, $3]::uuid[]) u`, created, userA, userB)
	if err != nil {
		t.Fatal(err)
	}
}

type memRow struct {
	id string
	Memory
	forgotten bool
}

func readMemories(t testing.TB, pool *pgxpool.Pool) map[string]memRow {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		SELECT id::text, created_at, coalesce(last_accessed, 'epoch'), coalesce(reviewed_at, 'epoch'),
		       coalesce(stability, 0), coalesce(difficulty, 0), coalesce(retention, -1), coalesce(decayed_at, 'epoch'), forgotten
		FROM memories`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]memRow{}
	for rows.Next() {
		var r memRow
		if err := rows.Scan(&r.id, &r.CreatedAt, &r.LastAccessed, &r.ReviewedAt, &r.Stability, &r.Difficulty, &r.Retention, &r.DecayedAt, &r.forgotten); err != nil {
			t.Fatal(err)
		}
		for _, tm := range []*time.Time{&r.CreatedAt, &r.LastAccessed, &r.ReviewedAt, &r.DecayedAt} {
			if tm.Unix() == 0 {
				*tm = time.Time{}
			}
			*tm = tm.UTC()
		}
		out[r.id] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// The SQL computes what the Go models compute, for memories and layers,
// over several chunks, and records a job_runs row.
func TestRunMatchesModels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	seed(t, pool, 60)
	before := readMemories(t, pool)
	at := created.Add(40 * 24 * time.Hour)
	res, err := Run(ctx, pool, Options{At: at, ChunkSize: 7, ForgetBelow: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Memories != 120 || res.Layers != 14 || res.Chunks != 18+2 {
		t.Errorf("result = %+v, want 120 memories, 14 layers in 20 chunks", res)
	}
	p := DefaultFSRS()
	after := readMemories(t, pool)
	var forgotten int64
	for id, b := range before {
		want := p.Advance(b.Memory, at)
		got := after[id]
		if !closeTo(got.Stability, want.Stability) || !closeTo(got.Retention, want.Retention) ||
			!got.ReviewedAt.Equal(want.ReviewedAt) || !got.DecayedAt.Equal(at) || !closeTo(got.Difficulty, want.Difficulty) {
			t.Fatalf("memory %s: SQL gave %+v, Go %+v", id, got.Memory, want)
		}
		if got.forgotten != (want.Retention < 0.5) {
			t.Errorf("memory %s: forgotten = %v at retention %v", id, got.forgotten, got.Retention)
		}
		if got.forgotten {
			forgotten++
		}
	}
	rows, err := pool.Query(ctx, `SELECT layer_number, last_updated, coalesce(stability, 0), retention, forgotten FROM psychology_layers`)
	if err != nil {
		t.Fatal(err)
	}
	ls := DefaultLayers()
	for rows.Next() {
		var n int
		var upd time.Time
		var s, r float64
		var f bool
		if err := rows.Scan(&n, &upd, &s, &r, &f); err != nil {
			t.Fatal(err)
		}
		want := ls[n].Retention(at.Sub(upd).Hours(), s)
		if !closeTo(r, want) {
			t.Errorf("layer %d: retention %v, want %v", n, r, want)
		}
		if f != (want < 0.5) {
			t.Errorf("layer %d: forgotten = %v at retention %v", n, f, r)
		} else if f {
			forgotten++
		}
	}
	if res.Forgotten != forgotten || forgotten == 0 {
		t.Errorf("result counts %d forgotten, table has %d (want > 0)", res.Forgotten, forgotten)
	}
	var status string
	var counted int64
	if err := pool.QueryRow(ctx, `SELECT status, (counts->>'memories')::bigint FROM job_runs WHERE id = $1`, res.RunID).Scan(&status, &counted); err != nil {
		t.Fatal(err)
	}
	if status != db.RunOK || counted != 120 {
		t.Errorf("job_runs: status %s, memories %d", status, counted)
	}
}

// Running once, twice in a row or 24 times before T leaves the same values at T.
func TestRunCountDoesNotMatter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	at := created.Add(20 * 24 * time.Hour)
	counts := []int{1, 2, 24}
	results := make([]map[string]memRow, len(counts))
	t.Run("runs", func(t *testing.T) {
		for i, runs := range counts {
			t.Run(fmt.Sprint(runs), func(t *testing.T) {
				t.Parallel()
				pool := pgtest.New(t)
				seed(t, pool, 40)
				for k := 1; k <= runs; k++ {
					instant := created.Add(time.Duration(k) * at.Sub(created) / time.Duration(runs))
					if _, err := Run(ctx, pool, Options{At: instant, ChunkSize: 25, Full: true}); err != nil {
						t.Fatal(err)
					}
				}
				results[i] = readMemories(t, pool)
			})
		}
	})
	if t.Failed() {
		return
	}
	if len(results[0]) != 80 {
		t.Fatalf("%d memories after one run, want 80", len(results[0]))
	}
	for id, one := range results[0] {
		for i, other := range results[1:] {
			o := other[id]
			if !closeTo(o.Retention, one.Retention) || !closeTo(o.Stability, one.Stability) {
				t.Fatalf("memory %s: after %d runs R=%v S=%v, after 1 run R=%v S=%v",
					id, []int{2, 24}[i], o.Retention, o.Stability, one.Retention, one.Stability)
			}
		}
	}
}

// An interrupted run leaves whole chunks and a checkpoint; the next run
// resumes after it and finishes the rest.
func TestRunResumesAfterInterrupt(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	seed(t, pool, 500) // 1000 memories
	at := created.Add(10 * 24 * time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	chunks := 0
	_, err := Run(ctx, pool, Options{At: at, ChunkSize: 100, OnChunk: func(string, int64) {
		if chunks++; chunks == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run returned %v", err)
	}
	bg := context.Background()
	var done int
	var status string
	if err := pool.QueryRow(bg, `SELECT count(*) FROM memories WHERE decayed_at IS NOT NULL`).Scan(&done); err != nil {
		t.Fatal(err)
	}
	if done != 300 {
		t.Errorf("after 3 chunks of 100, %d memories were updated", done)
	}
	if err := pool.QueryRow(bg, `SELECT status FROM job_runs ORDER BY id DESC LIMIT 1`).Scan(&status); err != nil || status != db.RunInterrupted {
		t.Errorf("job_runs status %q (%v), want interrupted", status, err)
	}
	res, err := Run(bg, pool, Options{At: at, ChunkSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.Memories != 700 || res.ResumedFrom == "" {
		t.Errorf("resumed run: %+v, want 700 memories resumed from a checkpoint", res)
	}
	if err := pool.QueryRow(bg, `SELECT count(*) FROM memories WHERE decayed_at IS NULL`).Scan(&done); err != nil || done != 0 {
		t.Errorf("%d memories left undone (%v)", done, err)
	}
	if err := pool.QueryRow(bg, `SELECT count(*) FROM decay_progress`).Scan(&done); err != nil || done != 0 {
		t.Errorf("%d checkpoints left (%v)", done, err)
	}
	// A finished run leaves nothing to resume: the next one is incremental
	// and finds nothing new at the same instant; --full starts over.
	res, err = Run(bg, pool, Options{At: at, ChunkSize: 100})
	if err != nil || res.ResumedFrom != "" || res.Mode != ModeIncremental || res.Memories != 0 {
		t.Errorf("run after a complete one: %+v, %v", res, err)
	}
	res, err = Run(bg, pool, Options{At: at, ChunkSize: 100, Full: true})
	if err != nil || res.ResumedFrom != "" || res.Memories != 1000 {
		t.Errorf("run after a complete one: %+v, %v", res, err)
	}
}

func TestRunUserScope(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	seed(t, pool, 30)
	res, err := Run(ctx, pool, Options{At: created.Add(24 * time.Hour), UserID: userA, ChunkSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	var a, b int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE user_id = $1), count(*) FILTER (WHERE user_id <> $1)
		FROM memories WHERE decayed_at IS NOT NULL`, userA).Scan(&a, &b); err != nil {
		t.Fatal(err)
	}
	if res.Memories != 30 || res.Layers != 7 || a != 30 || b != 0 {
		t.Errorf("user run: %+v; updated %d of user A, %d of user B", res, a, b)
	}
}

func TestRunLockHeldAndTick(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	seed(t, pool, 5)
	lock, err := db.TryLock(ctx, pool, JobName)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(ctx, pool, Options{At: created})
	var held *db.ErrLockHeld
	if !errors.As(err, &held) {
		t.Fatalf("run under a held lock returned %v", err)
	}
	_ = lock.Release(ctx)
	var skipped int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM job_runs WHERE status = 'skipped'`).Scan(&skipped); err != nil || skipped != 1 {
		t.Errorf("skipped job_runs rows: %d (%v)", skipped, err)
	}

	// A scheduled run records its fire's tick; once per tick is the
	// scheduler's rule (one fire per schedule and tick), not decay's: two
	// schedules may fire at one instant.
	tick := "2026-11-01T12:00:00Z"
	for range 2 {
		if _, err := Run(ctx, pool, Options{At: created, Tick: tick}); err != nil {
			t.Fatal(err)
		}
	}
	var ticked int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM job_runs WHERE status = 'ok' AND params->'options'->>'tick' = $1`, tick).Scan(&ticked); err != nil || ticked != 2 {
		t.Errorf("ok runs recording tick %s: %d (%v)", tick, ticked, err)
	}
}

// A "what if" run (a future --at, a high --forget-below) leaves no flag that
// later runs without a threshold keep: the flag is each run's verdict, and a
// dry run tells the same counts while writing nothing (issue 49).
func TestWhatIfLeavesNoForgottenFlags(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	seed(t, pool, 60)
	flags := func() (n int64) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM memories WHERE forgotten) + (SELECT count(*) FROM psychology_layers WHERE forgotten)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var runs int
	jobRuns := func() int {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM job_runs`).Scan(&runs); err != nil {
			t.Fatal(err)
		}
		return runs
	}
	now := created.Add(20 * 24 * time.Hour)
	if _, err := Run(ctx, pool, Options{At: now}); err != nil {
		t.Fatal(err)
	}
	whatIf := Options{At: created.Add(400 * 24 * time.Hour), ForgetBelow: 0.5}
	dry, err := DryRun(ctx, pool, whatIf)
	if err != nil {
		t.Fatal(err)
	}
	if flags() != 0 || jobRuns() != 1 {
		t.Fatalf("the dry run wrote: %d flags, %d job runs", flags(), runs)
	}
	if !dry.DryRun || dry.Memories != 120 || dry.Layers != 14 || dry.Forgotten == 0 || dry.Cleared != 0 {
		t.Errorf("dry run = %+v, want 120 memories, 14 layers, some forgotten, none cleared", dry)
	}
	res, err := Run(ctx, pool, whatIf)
	if err != nil {
		t.Fatal(err)
	}
	if res.Forgotten != dry.Forgotten || res.Memories != dry.Memories || res.Layers != dry.Layers || flags() != dry.Forgotten {
		t.Errorf("the run did %+v (%d flags), its dry run said %+v", res, flags(), dry)
	}
	// The dry run of going back to no threshold says it clears them all.
	back := Options{At: created.Add(401 * 24 * time.Hour)}
	if dry, err = DryRun(ctx, pool, back); err != nil || dry.Cleared != res.Forgotten || dry.Forgotten != 0 {
		t.Errorf("dry run without a threshold = %+v, %v; want %d cleared", dry, err, res.Forgotten)
	}
	if res, err = Run(ctx, pool, back); err != nil {
		t.Fatal(err)
	}
	if n := flags(); n != 0 || res.Mode != ModeFull {
		t.Errorf("after a run without --forget-below: %d items still flagged (%s run)", n, res.Mode)
	}
}

// A run works on the connection that holds its record, so two connections
// are enough for a run that outlives its lease's TTL: one for the work, one
// for the heartbeat. One connection is refused up front, naming the setting
// (before, the run waited for a second until it was killed).
func TestRunOnTwoConnections(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	open := func(conns int32) *pgxpool.Pool {
		pool, err := db.Open(context.Background(), url, db.Options{MaxConns: conns, LockTTL: db.MinLockTTL})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		return pool
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	at := created.Add(40 * 24 * time.Hour)
	_, err := Run(ctx, open(1), Options{At: at})
	var ce exitcode.Classed
	if !errors.As(err, &ce) || !strings.Contains(fmt.Sprint(err), "db.max-conns") {
		t.Fatalf("a run on one connection: %v, want bad input naming db.max-conns", err)
	}
	if code, _ := ce.Class(); code != exitcode.Usage {
		t.Fatalf("a run on one connection: exit %d, want %d", code, exitcode.Usage)
	}
	pool := open(2)
	seed(t, pool, 10)
	start := time.Now()
	res, err := Run(ctx, pool, Options{At: at, ChunkSize: 7, OnChunk: func(string, int64) { time.Sleep(db.MinLockTTL / 2) }})
	if err != nil {
		t.Fatalf("a run of %s on two connections with a lease TTL of %s: %v", time.Since(start).Round(time.Second), db.MinLockTTL, err)
	}
	if took := time.Since(start); took < 2*db.MinLockTTL {
		t.Fatalf("the run took %s, not long enough to need its lease renewed (%d chunks)", took, res.Chunks)
	}
	if res, err := Run(ctx, pool, Options{At: at.Add(time.Hour)}); err != nil || res.Mode != ModeIncremental {
		t.Fatalf("the next run: %+v, %v; want an incremental run", res, err)
	}
}
