package synthstore

import (
	"context"
	"fmt"
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

// BenchmarkWrite writes WriteBatch-sized batches of users, each with 11
// patterns (as many as the all-users benchmark finds per user) and a state:
// "one" a transaction per user (Write.One), "many" a transaction per batch
// (Write.Many). ns/op is per user.
func BenchmarkWrite(b *testing.B) {
	pool := pgtest.New(b)
	ctx := context.Background()
	const batch = 64
	rs := make([]Result, batch)
	for i := range rs {
		u := uuid.NewSHA1(uuid.NameSpaceOID, []byte{'b', byte(i)})
		ps := make([]synthesis.Pattern, 11)
		for k := range ps {
			ps[k] = synthesis.Pattern{Type: synthesis.SemanticCluster, MemoryIDs: []uuid.UUID{u, u, u, u, u}, Content: "a theme of five memories",
				Confidence: 0.9, Evidence: map[string]any{"silhouette": 0.5, "size": 5}, Fingerprint: fmt.Sprintf("semantic_cluster:%d", k)}
		}
		st, err := Snapshot(ctx, pool, u, Filter{}, synthesis.DefaultParams())
		if err != nil {
			b.Fatal(err)
		}
		rs[i] = Result{User: u, Memories: 100, Patterns: ps, State: st}
	}
	w := &Write{Now: testNow}
	b.Run("one", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := w.One(ctx, pool, rs[i%batch]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("many", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if i%batch == 0 {
				if _, err := w.Many(ctx, pool, rs); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
