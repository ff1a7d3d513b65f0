package lineage

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/memories"
)

// Planting is planted data for checking lineages (scripts/lineage-planted.sh
// and the tests): a user's memories on Topics topics before, and what changes
// between two runs of synthesize: Grow memories added to each of the first
// Topics−1 topics (10 %), the last topic's memories deleted, a new topic added.
type Planting struct {
	User    uuid.UUID
	Before  []memories.Memory
	Added   []memories.Memory // to the first Topics−1 topics, and the new topic
	Deleted []uuid.UUID       // the last topic's memories
	Topic   map[uuid.UUID]int // every memory's topic: 0..Topics (Topics is the new one)
}

// PlantOptions size a planting. The zero value is the issue's: 4 topics of 30
// memories, 16 dimensions.
type PlantOptions struct {
	Topics   int
	PerTopic int
	Dim      int
}

// Plant makes a planting for user, deterministic for seed: topics are random
// orthogonal directions in Dim dimensions (Dim > Topics), memories scatter around
// them (cosine ≈ 0.85), each topic has its own words, and memories spread over
// eight weeks before 2026-11-01; the added ones fall in the week after.
func Plant(user uuid.UUID, seed uint64, o PlantOptions) Planting {
	if o.Topics <= 0 {
		o.Topics = 4
	}
	if o.PerTopic <= 0 {
		o.PerTopic = 30
	}
	if o.Dim <= 0 {
		o.Dim = 16
	}
	rng := rand.New(rand.NewPCG(seed, 45))
	centers := make([][]float64, o.Topics+1)
	for t := range centers {
		c := make([]float64, o.Dim)
		for j := range c {
			c[j] = rng.NormFloat64()
		}
		// Gram–Schmidt: orthogonal topics, so that what is tested is the
		// lineages, not whether clustering can part two topics that lie close
		for _, prev := range centers[:t] {
			var dot float64
			for j := range c {
				dot += c[j] * prev[j]
			}
			for j := range c {
				c[j] -= dot * prev[j]
			}
		}
		centers[t] = normalize(c)
	}
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	p := Planting{User: user, Topic: map[uuid.UUID]int{}}
	n := 0
	mem := func(t int, at time.Time) memories.Memory {
		n++
		e := make([]float64, o.Dim)
		for j := range e {
			e[j] = centers[t][j] + rng.NormFloat64()*0.6/math.Sqrt(float64(o.Dim))
		}
		e = normalize(e)
		emb := make([]float32, o.Dim)
		for j, x := range e {
			emb[j] = float32(x)
		}
		words := make([]string, 8)
		for j := range words {
			words[j] = fmt.Sprintf("topic%cword%c", 'a'+t, 'a'+rng.IntN(6))
		}
		v := float32(max(-1, min(1, rng.NormFloat64()*0.3)))
		m := memories.Memory{ID: uuid.NewSHA1(user, fmt.Appendf(nil, "planted %d %d", seed, n)), UserID: user, Type: "episodic",
			Content: strings.Join(words, " "), Embedding: emb, EmotionalValence: &v, CreatedAt: at}
		p.Topic[m.ID] = t
		return m
	}
	for t := range o.Topics {
		for range o.PerTopic {
			m := mem(t, end.Add(-time.Duration(rng.Int64N(int64(8*7*24*time.Hour)))))
			p.Before = append(p.Before, m)
			if t == o.Topics-1 {
				p.Deleted = append(p.Deleted, m.ID)
			}
		}
	}
	grow := int(math.Ceil(float64(o.PerTopic) * 0.10))
	week := func() time.Time { return end.Add(time.Duration(rng.Int64N(int64(7 * 24 * time.Hour)))) }
	for t := range o.Topics - 1 {
		for range grow {
			p.Added = append(p.Added, mem(t, week()))
		}
	}
	for range o.PerTopic {
		p.Added = append(p.Added, mem(o.Topics, week()))
	}
	return p
}

func normalize(v []float64) []float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	s = math.Sqrt(s)
	for i := range v {
		v[i] /= s
	}
	return v
}
