package llmsynth

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/synthesis"
)

// BenchmarkBuildBrief times one user's brief (selection, scrubbing of every
// quoted memory and of the whole brief, hashing) from 2,000 memories and
// their statistical patterns, at the default limits.
func BenchmarkBuildBrief(b *testing.B) {
	user := uuid.MustParse("11111111-1111-4111-8111-111111111111")
	var ms []synthesis.Memory
	for _, m := range synthesis.Synthetic(user, 2000, 32, 1) {
		v := float64(*m.EmotionalValence)
		ms = append(ms, synthesis.Memory{ID: m.ID, Content: m.Content + " mail me at jo@example.com", Embedding: m.Embedding, Valence: &v, CreatedAt: m.CreatedAt})
	}
	pats, err := synthesis.Analyze(context.Background(), ms, synthesis.DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	lim := Limits{MaxMemories: 120, MaxMemoryChars: 600, MaxChars: 120000}
	b.ReportAllocs()
	var br Brief
	for b.Loop() {
		br = BuildBrief(ms, pats, Types, DefaultModel, lim)
	}
	b.ReportMetric(float64(len(br.Text)), "brief-bytes")
	b.ReportMetric(float64(br.Scrubbed.Total()), "scrubbed")
}
