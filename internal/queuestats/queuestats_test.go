package queuestats

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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
	add(1, "import", "nobody_serves", "available", 500)

	f, err := Read(ctx, pool, []string{"synthesize", "embed", "decay"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Count{
		{State: "available", Queue: "embed", Kind: "embed", Jobs: 3},
		{State: "available", Queue: "nobody_serves", Kind: "import", Jobs: 1},
		{State: "available", Queue: "synthesize", Kind: "synthesize", Jobs: 2},
		{State: "running", Queue: "synthesize", Kind: "synthesize_users", Jobs: 1},
		{State: "completed", Queue: "embed", Kind: "embed", Jobs: 7},
		{State: "completed", Queue: "synthesize", Kind: "synthesize", Jobs: 40},
	}
	if fmt.Sprint(f.Counts) != fmt.Sprint(want) {
		t.Errorf("counts\n%+v\nwant\n%+v", f.Counts, want)
	}
	// Every queue with available jobs has its oldest, served or not.
	if len(f.Oldest) != 3 || f.Oldest[0].Queue != "embed" || f.Oldest[1].Queue != "nobody_serves" || f.Oldest[2].Queue != "synthesize" {
		t.Fatalf("oldest %+v", f.Oldest)
	}
	if a := f.Oldest[1].AgeSeconds; a < 501 || a > 560 {
		t.Errorf("nobody_serves's oldest available job is %.0f s old, want about 501", a)
	}

	// Above the cap a group is estimated, its prefix counted.
	f, err = Read(ctx, pool, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	jobs, est := f.ByState()
	if !est["completed"] || est["available"] || est["running"] {
		t.Errorf("estimated states %v, want completed only", est)
	}
	if jobs["completed"] < 40 || jobs["completed"] > 52 || jobs["available"] != 6 {
		t.Errorf("by state %v, want 47 completed (estimated), 6 available", jobs)
	}
}

// shapes fills river_job with n rows in the shapes that defeated the
// block-sampled estimate (issue 48): a background of all states and eight
// kinds interleaved (id by id, as a busy fleet writes them), a retryable
// backlog of 15,000 synthesize jobs written together, about 300 completed
// jobs of a rare kind spread over the table, and 7 % of the table available
// in a queue no worker serves, written together 79 minutes ago.
func shapes(t testing.TB, pool *pgxpool.Pool, n int) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `
INSERT INTO river_job (kind, queue, state, args, max_attempts, attempt, priority, created_at, scheduled_at, attempted_at, finalized_at)
SELECT kind, queue, st::river_job_state, '{}', 25, CASE WHEN st IN ('available', 'scheduled') THEN 0 ELSE 1 END, 1 + (i % 4)::int,
       t, CASE WHEN special = 'unserved' THEN now() - interval '79 minutes' - (i * interval '1 ms')
               WHEN st IN ('scheduled', 'retryable') THEN now() + interval '1 hour' ELSE t END,
       CASE WHEN st = 'running' THEN now() WHEN st NOT IN ('available', 'scheduled') THEN t END,
       CASE WHEN st IN ('completed', 'discarded', 'cancelled') THEN t + interval '1 second' END
FROM (SELECT i, t, special,
        CASE special WHEN 'backlog' THEN 'synthesize' WHEN 'unserved' THEN 'import' WHEN 'rare' THEN 'rare_kind'
             ELSE (ARRAY['synthesize','synthesize_users','synthesize_llm','embed','decay','voice_transcribe','sync_reconcile','schedule_fire'])[1 + i % 8] END AS kind,
        CASE special WHEN 'backlog' THEN 'synthesize' WHEN 'unserved' THEN 'unserved' WHEN 'rare' THEN 'embed'
             ELSE (ARRAY['synthesize','synthesize','llm','embed','decay','voice','sync','schedule'])[1 + i % 8] END AS queue,
        CASE special WHEN 'backlog' THEN 'retryable' WHEN 'unserved' THEN 'available' WHEN 'rare' THEN 'completed' ELSE
             CASE WHEN i % 1000 < 970 THEN 'completed' WHEN i % 1000 < 980 THEN 'discarded'
                  WHEN i % 1000 < 985 THEN 'cancelled' WHEN i % 1000 < 990 THEN 'available'
                  WHEN i % 1000 < 994 THEN 'retryable' WHEN i % 1000 < 998 THEN 'scheduled' ELSE 'running' END END AS st
      FROM (SELECT i, now() - (($1 - i) * interval '1 ms') AS t,
                   CASE WHEN i % ($1 / 300) = 7 THEN 'rare'
                        WHEN i >= $1 * 4 / 10 AND i < $1 * 4 / 10 + 15000 THEN 'backlog'
                        WHEN i >= $1 * 6 / 10 AND i < $1 * 6 / 10 + $1 * 7 / 100 THEN 'unserved' END AS special
            FROM generate_series(1, $1::int) i) a) g`, n)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(context.Background(), `VACUUM ANALYZE river_job`); err != nil {
		t.Fatal(err)
	}
}

// exactCounts counts river_job by state, queue and kind, reading it through.
func exactCounts(t testing.TB, pool *pgxpool.Pool) map[[3]string]int64 {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT state::text, queue, kind, count(*) FROM river_job GROUP BY 1, 2, 3`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[[3]string]int64{}
	for rows.Next() {
		var k [3]string
		var n int64
		if err := rows.Scan(&k[0], &k[1], &k[2], &n); err != nil {
			t.Fatal(err)
		}
		out[k] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadShapes checks every figure against count(*) on 500,000 jobs in the
// shapes of issue 48.
func TestReadShapes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fills river_job with 500,000 rows")
	}
	ctx := context.Background()
	pool := pgtest.New(t)
	shapes(t, pool, 500_000)
	exact := exactCounts(t, pool)
	var unservedOldest time.Time
	if err := pool.QueryRow(ctx, `SELECT min(scheduled_at) FROM river_job WHERE state = 'available' AND queue = 'unserved'`).Scan(&unservedOldest); err != nil {
		t.Fatal(err)
	}
	if exact[[3]string{"completed", "embed", "rare_kind"}] < 290 || exact[[3]string{"retryable", "synthesize", "synthesize"}] < 15_000 {
		t.Fatalf("the shapes are not there: %v", exact)
	}

	// Served by a worker of the synthesize queue only: unserved is not named.
	f, err := Read(ctx, pool, []string{"synthesize"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("database time %v, %d probes, %d groups", f.DBTime, f.Probes, len(f.Counts))
	checkFigures(t, f, exact, unservedOldest)

	// A worker's Reader: the same figures at first; then the live groups
	// are read fresh every time, while a finalized group's count is reused
	// until FinishedTTL, and then at most FinishedPerRead of them are
	// counted again a read, the oldest first (ties by key: cancelled
	// groups before completed ones).
	clock := time.Now()
	r := &Reader{DB: pool, Queues: []string{"synthesize"}, FinishedTTL: time.Minute, FinishedPerRead: 4,
		Now: func() time.Time { return clock }}
	first := clock
	f, err = r.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkFigures(t, f, exact, unservedOldest)
	rare := Key{"completed", "embed", "rare_kind"}
	fresh := Key{"running", "synthesize", "fresh_kind"}
	// 120 jobs of a new kind start; River's cleaner deletes half of the
	// rare kind's completed jobs.
	if _, err := pool.Exec(ctx, `INSERT INTO river_job (kind, queue, state, args, max_attempts, attempt, attempted_at)
		SELECT 'fresh_kind', 'synthesize', 'running', '{}', 5, 1, now() FROM generate_series(1, 120)`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM river_job WHERE id IN (SELECT id FROM river_job WHERE kind = 'rare_kind' ORDER BY id LIMIT 150)`); err != nil {
		t.Fatal(err)
	}
	after := exactCounts(t, pool)
	if after[rare] >= exact[rare] {
		t.Fatalf("rare kind: %d jobs after the delete, %d before", after[rare], exact[rare])
	}
	count := func(f *Figures, k Key) int64 {
		for _, c := range f.Counts {
			if c.key() == k {
				return c.Jobs
			}
		}
		return -1
	}
	read := func(wantRare int64, wantFinishedAt time.Time) *Figures {
		t.Helper()
		f, err := r.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := count(f, fresh); got != 120 {
			t.Errorf("running fresh_kind: %d jobs, want 120 (live groups are read every time)", got)
		}
		if got := count(f, rare); got != wantRare {
			t.Errorf("completed rare_kind: %d jobs, want %d", got, wantRare)
		}
		if !f.FinishedAt.Equal(wantFinishedAt) {
			t.Errorf("finished counts taken at %v, want %v", f.FinishedAt, wantFinishedAt)
		}
		return f
	}
	read(exact[rare], first) // reused within the TTL
	clock = clock.Add(61 * time.Second)
	read(exact[rare], first) // 4 cancelled groups counted again, not yet this one
	r.FinishedPerRead = 100
	f = read(after[rare], clock) // all the others now
	checkFigures(t, f, after, unservedOldest)
}

// checkFigures checks every figure against count(*) (exact, within 10 %
// where estimated), every group reported, and the unserved queue's oldest
// available job's age within 10 s.
func checkFigures(t *testing.T, f *Figures, exact map[[3]string]int64, unservedOldest time.Time) {
	t.Helper()
	seen := map[[3]string]bool{}
	var estimated int
	for _, c := range f.Counts {
		k := [3]string{c.State, c.Queue, c.Kind}
		seen[k] = true
		want := exact[k]
		off := float64(c.Jobs-want) / float64(max(want, 1))
		if c.Estimated {
			estimated++
			t.Logf("%s %s %s: %d estimated, %d exact (%+.1f %%)", c.State, c.Queue, c.Kind, c.Jobs, want, 100*off)
		}
		if !c.Estimated && c.Jobs != want || math.Abs(off) > 0.10 {
			t.Errorf("%s %s %s: %d jobs (estimated %v), count(*) says %d", c.State, c.Queue, c.Kind, c.Jobs, c.Estimated, want)
		}
	}
	for k, n := range exact {
		if !seen[k] {
			t.Errorf("%v: %d jobs, not reported", k, n)
		}
	}
	if estimated == 0 {
		t.Errorf("nothing estimated: the test does not exercise the estimate")
	}
	jobs, _ := f.ByState()
	for _, s := range States {
		var want int64
		for k, n := range exact {
			if k[0] == s {
				want += n
			}
		}
		if math.Abs(float64(jobs[s]-want)) > 0.10*float64(want) {
			t.Errorf("%s: %d jobs, count(*) says %d", s, jobs[s], want)
		}
	}
	var age float64 = -1
	for _, o := range f.Oldest {
		if o.Queue == "unserved" {
			age = o.AgeSeconds
		}
	}
	if want := f.At.Sub(unservedOldest).Seconds(); math.Abs(age-want) > 10 {
		t.Errorf("unserved queue's oldest available job %.0f s old, want %.0f (79 minutes and more)", age, want)
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
