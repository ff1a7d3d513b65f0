package decay

import (
	"context"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
)

// BenchmarkRun times a full run over 100,000 memories (scripts/bench/decay.sh
// compares 1,000,000 against one SQL UPDATE and a row-at-a-time loop).
func BenchmarkRun(b *testing.B) {
	pool := pgtest.New(b)
	seed(b, pool, 50_000) // two users
	ctx := context.Background()
	at := created.Add(30 * 24 * time.Hour)
	for i := 0; b.Loop(); i++ {
		if _, err := Run(ctx, pool, Options{At: at.Add(time.Duration(i) * time.Hour)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(100_000*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkAdvance is the Go model's cost per memory, for comparison with the SQL.
func BenchmarkAdvance(b *testing.B) {
	p := DefaultFSRS()
	m := Memory{CreatedAt: created, LastAccessed: created.Add(5 * 24 * time.Hour), Stability: 10, Difficulty: 5}
	at := created.Add(30 * 24 * time.Hour)
	for b.Loop() {
		_ = p.Advance(m, at)
	}
}
