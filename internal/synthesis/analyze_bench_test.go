package synthesis

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/memories"
)

// BenchmarkAnalyzeUser is the analysis of one user of the all-users
// benchmarks (scripts/bench/synthesize_all.sh): 100 memories of 1,536
// dimensions, no database.
func BenchmarkAnalyzeUser(b *testing.B) {
	user := uuid.MustParse("99999999-9999-4999-8999-999999999999")
	ms := toMemories(Synthetic(user, 100, 1536, 1))
	ctx := context.Background()
	for b.Loop() {
		if _, err := Analyze(ctx, cloneMemories(ms), DefaultParams()); err != nil {
			b.Fatal(err)
		}
	}
}

func toMemories(in []memories.Memory) []Memory {
	out := make([]Memory, len(in))
	for i, m := range in {
		out[i] = Memory{ID: m.ID, Content: m.Content, Embedding: m.Embedding, CreatedAt: m.CreatedAt}
		if m.EmotionalValence != nil {
			v := float64(*m.EmotionalValence)
			out[i].Valence = &v
		}
	}
	return out
}

func cloneMemories(ms []Memory) []Memory {
	out := make([]Memory, len(ms))
	for i, m := range ms {
		m.Embedding = append([]float32(nil), m.Embedding...)
		out[i] = m
	}
	return out
}
