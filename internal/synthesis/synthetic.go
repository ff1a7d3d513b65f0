package synthesis

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/synthesis/cluster"
)

// Synthetic makes n memories of d-dimensional embeddings for one user, for
// benchmarks and scale checks: 25 planted topics (each with its own words and
// valence) plus 5% random memories, over one year. Deterministic for a seed.
func Synthetic(user uuid.UUID, n, d int, seed uint64) []memories.Memory {
	const topics = 25
	rows, truth := cluster.Planted(n, d, topics, 1.0, 0.05, seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	vocab := func(t int) []string {
		w := make([]string, 8)
		for j := range w {
			w[j] = fmt.Sprintf("topic%cword%c", 'a'+t, 'a'+j)
		}
		return w
	}
	start := time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)
	out := make([]memories.Memory, n)
	for i := range out {
		t := truth[i]
		var words []string
		if t < 0 {
			words = []string{"misc", "random", "thing"}
			t = rng.IntN(topics)
		} else {
			words = vocab(t)
		}
		var b strings.Builder
		for range 8 {
			b.WriteString(words[rng.IntN(len(words))] + " ")
		}
		v := float32(max(-1, min(1, float64(t%5)/2-1+rng.NormFloat64()*0.2)))
		out[i] = memories.Memory{
			ID: uuid.NewSHA1(user, fmt.Appendf(nil, "%d", i)), UserID: user, Type: "episodic",
			Content: strings.TrimSpace(b.String()), Embedding: rows[i], EmotionalValence: &v,
			CreatedAt: start.Add(time.Duration(rng.Int64N(int64(365 * 24 * time.Hour)))),
		}
	}
	return out
}
