package queuestats

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
)

// BenchmarkRead reads the queue figures of a river_job in the shapes of
// TestReadShapes (HELIX_BENCH_QUEUE_ROWS rows, 500,000 by default;
// scripts/bench/queuestats.sh runs it at 5,000,000) as a worker does
// (Reader), while another connection changes jobs as a River fleet does
// (churn), and reports the database time of a read (p50, p95), the largest
// error of any figure against count(*), how much of river_job is
// all-visible before and after, and, as the reference in the same run and
// interleaved with the reads, River's count by state (JobCountByAllStates:
// SELECT state, count(*) … GROUP BY state, what riverui runs), which reads
// the whole table. On a shared machine the database time is mostly waiting
// for a core; the CPU time the PostgreSQL backend spent on each read
// (/proc/PID/schedstat, the server on this host) is the database's work
// itself, whatever the load.
//
// HELIX_BENCH_QUEUE_CLEAR_VM=P clears the all-visible bit of about P % of
// the pages before the reads (100: the worst case for index-only scans).
// Every 5th read is followed by a Read of everything (what a scrape read
// before the Reader), as a second reference.
//
// Time is scaled by 1/20: a worker reads at most every 5 s and counts a
// finalized group again after a minute; here a read every 250 ms and
// FinishedTTL 3 s, so the reads recount the finalized groups as a worker's
// do, 4 groups a read.
func BenchmarkRead(b *testing.B) {
	n := 500_000
	if s := os.Getenv("HELIX_BENCH_QUEUE_ROWS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatalf("HELIX_BENCH_QUEUE_ROWS: %v", err)
		}
	}
	ctx := context.Background()
	pool := pgtest.New(b)
	shapes(b, pool, n)
	visible := func() float64 {
		var v float64
		// relallvisible is as of the last VACUUM; pg_visibility is not
		// always installed: count the map's bits through it when it is.
		if err := pool.QueryRow(ctx, `SELECT 100 * relallvisible / greatest(relpages, 1)::float8 FROM pg_class WHERE oid = 'river_job'::regclass`).Scan(&v); err != nil {
			b.Fatal(err)
		}
		var all, pages int64
		if err := pool.QueryRow(ctx, `SELECT (pg_visibility_map_summary('river_job')).all_visible, pg_relation_size('river_job') / 8192`).Scan(&all, &pages); err == nil {
			v = 100 * float64(all) / float64(max(pages, 1))
		}
		return v
	}
	_, _ = pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_visibility`)
	// The VACUUM right after the INSERT leaves the all-visible bits unset
	// (PostgreSQL 15 here); a second one sets them, as autovacuum would on a
	// table left alone. The churn below clears them where it writes.
	if _, err := pool.Exec(ctx, `VACUUM river_job`); err != nil {
		b.Fatal(err)
	}
	if s := os.Getenv("HELIX_BENCH_QUEUE_CLEAR_VM"); s != "" {
		// Pages not all-visible, as on a server where a long transaction
		// holds VACUUM back: one row rewritten in about P % of the pages
		// (62 rows a page), so each index entry read there costs a heap
		// visit.
		p, err := strconv.Atoi(s)
		if err != nil || p < 1 || p > 100 {
			b.Fatalf("HELIX_BENCH_QUEUE_CLEAR_VM=%q: want a percentage of pages, 1 to 100", s)
		}
		if _, err := pool.Exec(ctx, `UPDATE river_job SET attempt = attempt WHERE id % 62 = 0 AND (id / 62) % 100 < $1`, p); err != nil {
			b.Fatal(err)
		}
	}
	visibleBefore := visible()

	// One connection, so that one backend does every read.
	cfg := pool.Config()
	cfg.MaxConns = 1
	one, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer one.Close()
	var pid int
	if err := one.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		b.Fatal(err)
	}
	cpu := func() time.Duration {
		buf, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
		if err != nil {
			return -1 // the server runs elsewhere
		}
		ns, _ := strconv.ParseInt(strings.Fields(string(buf))[0], 10, 64)
		return time.Duration(ns)
	}
	// the backend's CPU is readable only when the server runs on this host
	haveCPU := cpu() >= 0
	r := &Reader{DB: one, FinishedTTL: 3 * time.Second}
	if _, err := r.Read(ctx); err != nil { // warm the connection; counts every finalized group
		b.Fatal(err)
	}

	stop, done := make(chan struct{}), make(chan error, 1)
	var churned atomic.Int64
	go func() { done <- churn(ctx, pool, stop, &churned) }()
	var times, cpus, river, fullTimes, fullCPUs []time.Duration
	var probes, reads int
	b.ResetTimer()
	for b.Loop() {
		time.Sleep(250 * time.Millisecond)
		c0 := cpu()
		f, err := r.Read(ctx)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, f.DBTime)
		cpus = append(cpus, cpu()-c0)
		probes = max(probes, f.Probes)
		if reads%5 == 4 {
			c0 := cpu()
			f, err := Read(ctx, one, nil, 0)
			if err != nil {
				b.Fatal(err)
			}
			fullTimes = append(fullTimes, f.DBTime)
			fullCPUs = append(fullCPUs, cpu()-c0)
		}
		if reads++; reads%10 == 0 {
			start := time.Now()
			if _, err := pool.Exec(ctx, `SELECT state, count(*) FROM river_job GROUP BY state`); err != nil {
				b.Fatal(err)
			}
			river = append(river, time.Since(start))
		}
	}
	b.StopTimer()
	close(stop)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	visibleAfter := visible()
	// Accuracy, with the jobs at rest: a read against count(*), the
	// finalized groups as the Reader has them (counted up to 3 s ago,
	// while 500 jobs a second completed).
	exact := exactCounts(b, pool)
	f, err := r.Read(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var worst float64
	for _, c := range f.Counts {
		want := exact[[3]string{c.State, c.Queue, c.Kind}]
		if off := math.Abs(float64(c.Jobs-want)) / float64(max(want, 1)); off > worst {
			worst = off
			b.Logf("%s %s %s: %d (estimated %v), count(*) %d", c.State, c.Queue, c.Kind, c.Jobs, c.Estimated, want)
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	slices.Sort(times)
	slices.Sort(river)
	slices.Sort(cpus)
	if haveCPU {
		b.ReportMetric(ms(cpus[len(cpus)/2]), "cpu-p50-ms")
		b.ReportMetric(ms(cpus[min(len(cpus)-1, len(cpus)*95/100)]), "cpu-p95-ms")
	}
	slices.Sort(fullTimes)
	slices.Sort(fullCPUs)
	if len(fullTimes) > 0 {
		b.ReportMetric(ms(fullTimes[len(fullTimes)/2]), "full-read-p50-ms")
		b.ReportMetric(ms(fullTimes[len(fullTimes)-1]), "full-read-max-ms")
		if haveCPU {
			b.ReportMetric(ms(fullCPUs[len(fullCPUs)/2]), "full-read-cpu-p50-ms")
		}
	}
	b.ReportMetric(ms(times[len(times)/2]), "p50-ms")
	b.ReportMetric(ms(times[min(len(times)-1, len(times)*95/100)]), "p95-ms")
	b.ReportMetric(ms(times[len(times)-1]), "max-ms")
	b.ReportMetric(100*worst, "worst-err-%")
	b.ReportMetric(float64(probes), "probes")
	if len(river) > 0 {
		b.ReportMetric(ms(river[len(river)/2]), "river-groupby-ms")
	}
	b.ReportMetric(float64(n), "rows")
	b.ReportMetric(float64(churned.Load()), "jobs-changed")
	b.ReportMetric(visibleBefore, "all-visible-before-%")
	b.ReportMetric(visibleAfter, "all-visible-after-%")
}

// churn changes jobs as a River fleet does, about 500 jobs a second each
// way, until stop: every 50 ms, in one of the served queues by turn, it
// fetches the 25 first available jobs as River's fetch does (state,
// queue, priority, scheduled_at: river_job_prioritized_fetching_index;
// available → running), completes 25 running jobs (→ completed), and
// inserts 25 new available ones. Each update writes a new row version and
// clears its page's all-visible bit.
func churn(ctx context.Context, pool *pgxpool.Pool, stop <-chan struct{}, changed *atomic.Int64) error {
	queues := []string{"synthesize", "llm", "embed", "decay", "voice", "sync", "schedule"}
	kinds := []string{"synthesize", "synthesize_llm", "embed", "decay", "voice_transcribe", "sync_reconcile", "schedule_fire"}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return nil
		case <-tick.C:
		}
		q, k := queues[i%len(queues)], kinds[i%len(kinds)]
		for _, sql := range []string{
			`UPDATE river_job SET state = 'running', attempt = attempt + 1, attempted_at = now()
			 WHERE id IN (SELECT id FROM river_job WHERE state = 'available' AND queue = $1
			              ORDER BY priority, scheduled_at, id LIMIT 25 FOR UPDATE SKIP LOCKED)`,
			`UPDATE river_job SET state = 'completed', finalized_at = now()
			 WHERE id IN (SELECT id FROM river_job WHERE state = 'running' AND queue = $1
			              ORDER BY priority, scheduled_at, id LIMIT 25 FOR UPDATE SKIP LOCKED)`,
			`INSERT INTO river_job (kind, queue, state, args, max_attempts, priority)
			 SELECT $2, $1, 'available', '{}', 25, 1 + i % 4 FROM generate_series(1, 25) i`,
		} {
			var args []any
			if strings.Contains(sql, "$2") {
				args = []any{q, k}
			} else {
				args = []any{q}
			}
			tag, err := pool.Exec(ctx, sql, args...)
			if err != nil && !errors.Is(err, context.Canceled) {
				return fmt.Errorf("churn: %w", err)
			}
			changed.Add(tag.RowsAffected())
		}
	}
}
