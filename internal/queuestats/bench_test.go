package queuestats

import (
	"context"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
)

// BenchmarkRead reads the queue figures of a river_job in the shapes of
// TestReadShapes (HELIX_BENCH_QUEUE_ROWS rows, 500,000 by default;
// scripts/bench/queuestats.sh runs it at 5,000,000) and reports the
// database time of a read (p50, p95), the largest error of any figure
// against count(*), and, as the reference in the same run, River's count by
// state (JobCountByAllStates: SELECT state, count(*) … GROUP BY state, what
// riverui runs), which reads the whole table.
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
	if _, err := Read(ctx, pool, nil, 0); err != nil { // warm the connection and the cache
		b.Fatal(err)
	}
	var times []time.Duration
	var worst float64
	var probes int
	b.ResetTimer()
	for b.Loop() {
		f, err := Read(ctx, pool, nil, 0)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, f.DBTime)
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
	b.ReportMetric(ms(times[len(times)/2]), "p50-ms")
	b.ReportMetric(ms(times[min(len(times)-1, len(times)*95/100)]), "p95-ms")
	b.ReportMetric(100*worst, "worst-err-%")
	b.ReportMetric(float64(probes), "probes")
	b.ReportMetric(ms(river[len(river)/2]), "river-groupby-ms")
	b.ReportMetric(float64(n), "rows")
}
