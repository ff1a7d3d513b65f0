package synthstore

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/synthesis"
)

// BenchmarkJob10k is the whole job for one user with 10,000 memories of 384
// dimensions: read from PostgreSQL, analyse, replace the synthesis.
func BenchmarkJob10k(b *testing.B) {
	pool := pgtest.New(b)
	ctx := context.Background()
	user := uuid.MustParse("99999999-9999-4999-8999-999999999999")
	if _, err := memories.Insert(ctx, pool, synthesis.Synthetic(user, 10000, 384, 1)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		ms, err := Load(ctx, pool, user, Filter{})
		if err != nil {
			b.Fatal(err)
		}
		ps, err := synthesis.Analyze(ctx, ms, synthesis.DefaultParams())
		if err != nil {
			b.Fatal(err)
		}
		if err := Replace(ctx, pool, user, nil, testNow, ps); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(ps)), "patterns")
	}
}
