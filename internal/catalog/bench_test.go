package catalog

import (
	"context"
	"github.com/helixhq/helix/internal/testbin"
	"os"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
)

// BenchmarkFetchFullSnapshot reads, parses and stores the full ~3 MB
// models.dev snapshot (147 providers, ~5,270 models) into Postgres: the work
// of `helix catalog fetch --source FILE`. The target is under 2 s per op.
func BenchmarkFetchFullSnapshot(b *testing.B) {
	path := testbin.Shared("realworld", "models.dev", "api-2026-07-02.json")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("full snapshot not present: %v", err)
	}
	ctx := context.Background()
	pool := pgtest.New(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		// Each round stores anew: identical content would be deduplicated.
		if _, err := pool.Exec(ctx, `DELETE FROM model_catalog_snapshots`); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		f, err := Fetch(ctx, path, FetchOptions{MaxBytes: 64 << 20})
		if err != nil {
			b.Fatal(err)
		}
		cat, err := Parse(f.Body)
		if err != nil {
			b.Fatal(err)
		}
		res, err := Store(ctx, pool, Snapshot{Source: path, FetchedAt: time.Now()}, cat)
		if err != nil || !res.Created {
			b.Fatal(err, res)
		}
		b.ReportMetric(float64(res.Snapshot.Models), "models")
	}
}

// BenchmarkParseFull parses the full snapshot and renders its canonical form (the CPU part of a fetch).
func BenchmarkParseFull(b *testing.B) {
	raw, err := os.ReadFile(testbin.Shared("realworld", "models.dev", "api-2026-07-02.json"))
	if err != nil {
		b.Skipf("full snapshot not present: %v", err)
	}
	b.SetBytes(int64(len(raw)))
	for i := 0; i < b.N; i++ {
		cat, err := Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cat.Canonical(); err != nil {
			b.Fatal(err)
		}
	}
}
