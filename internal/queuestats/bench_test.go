package queuestats

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
)

// BenchmarkRead reads the queue figures of a river_job in the shapes of
// TestReadShapes (HELIX_BENCH_QUEUE_ROWS rows, 500,000 by default;
// scripts/bench/queuestats.sh runs it at 5,000,000) and reports the
// database time of a read (p50, p95), the largest error of any figure
// against count(*), and, as the reference in the same run, River's count by
// state (JobCountByAllStates: SELECT state, count(*) … GROUP BY state, what
// riverui runs), which reads the whole table. On a shared machine the
// database time is mostly waiting for a core; the CPU time the PostgreSQL
// backend spent on each read (/proc/PID/schedstat, the server on this
// host) is the database's work itself, whatever the load.
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
	exact := exactCounts(b, pool)
	// An index-only scan reads the heap page of an entry whose page is not
	// all-visible: a long transaction anywhere on the server keeps VACUUM
	// from marking pages, and the same read costs about twice the CPU.
	var visible float64
	if err := pool.QueryRow(ctx, `SELECT 100 * relallvisible / greatest(relpages, 1)::float8 FROM pg_class WHERE oid = 'river_job'::regclass`).Scan(&visible); err != nil {
		b.Fatal(err)
	}
	var river []time.Duration
	for range 5 {
		start := time.Now()
		rows, err := pool.Query(ctx, `SELECT state, count(*) FROM river_job GROUP BY state`)
		if err != nil {
			b.Fatal(err)
		}
		rows.Close()
		river = append(river, time.Since(start))
	}
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
	if _, err := Read(ctx, one, nil, 0); err != nil { // warm the connection and the cache
		b.Fatal(err)
	}
	var times, cpus []time.Duration
	var worst float64
	var probes int
	b.ResetTimer()
	for b.Loop() {
		c0 := cpu()
		f, err := Read(ctx, one, nil, 0)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, f.DBTime)
		cpus = append(cpus, cpu()-c0)
		probes = f.Probes
		for _, c := range f.Counts {
			want := exact[[3]string{c.State, c.Queue, c.Kind}]
			worst = max(worst, math.Abs(float64(c.Jobs-want))/float64(max(want, 1)))
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	slices.Sort(times)
	slices.Sort(river)
	slices.Sort(cpus)
	if cpus[0] >= 0 {
		b.ReportMetric(ms(cpus[len(cpus)/2]), "cpu-p50-ms")
		b.ReportMetric(ms(cpus[min(len(cpus)-1, len(cpus)*95/100)]), "cpu-p95-ms")
	}
	b.ReportMetric(ms(times[len(times)/2]), "p50-ms")
	b.ReportMetric(ms(times[min(len(times)-1, len(times)*95/100)]), "p95-ms")
	b.ReportMetric(100*worst, "worst-err-%")
	b.ReportMetric(float64(probes), "probes")
	b.ReportMetric(ms(river[len(river)/2]), "river-groupby-ms")
	b.ReportMetric(float64(n), "rows")
	b.ReportMetric(visible, "all-visible-%")
}
