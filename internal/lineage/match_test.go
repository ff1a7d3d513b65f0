package lineage

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"
)

// best is the largest total weight of a one-to-one pairing, by brute force.
func best(w [][]float64, row int, used []bool) float64 {
	if row == len(w) {
		return 0
	}
	top := best(w, row+1, used) // row left unpaired
	for j := range w[row] {
		if !used[j] {
			used[j] = true
			top = math.Max(top, w[row][j]+best(w, row+1, used))
			used[j] = false
		}
	}
	return top
}

// TestAssignIsOptimal checks the Hungarian algorithm against brute force on
// random matrices of every shape up to 6 × 6, with zeros for "no pair".
func TestAssignIsOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n, m := 1+rng.IntN(6), 1+rng.IntN(6)
		w := make([][]float64, n)
		for i := range w {
			w[i] = make([]float64, m)
			for j := range w[i] {
				if rng.Float64() < 0.6 {
					w[i][j] = rng.Float64()
				}
			}
		}
		got := assign(w)
		total, cols := 0.0, map[int]bool{}
		for i, j := range got {
			if j < 0 {
				continue
			}
			if cols[j] {
				t.Fatalf("trial %d: column %d given twice: %v", trial, j, got)
			}
			cols[j] = true
			total += w[i][j]
		}
		if want := best(w, 0, make([]bool, m)); math.Abs(total-want) > 1e-9 {
			t.Fatalf("trial %d: %v: assignment %v weighs %v, optimum %v", trial, w, got, total, want)
		}
	}
}

func ids(n int, tag string) []uuid.UUID {
	out := make([]uuid.UUID, n)
	for i := range out {
		out[i] = uuid.NewSHA1(uuid.Nil, []byte(tag+string(rune('a'+i))))
	}
	return out
}

// TestMatchRule: a one-to-one match by the best total overlap, none below
// MinOverlap, kinds kept apart, and windows for bursts.
func TestMatchRule(t *testing.T) {
	a, b := ids(10, "a"), ids(10, "b")
	prev := []Previous{
		{Kind: "semantic_cluster", Members: a},
		{Kind: "semantic_cluster", Members: b},
		{Kind: "emotional_trigger", Members: a},
	}
	news := []Sighting{
		{Kind: "semantic_cluster", Members: append(append([]uuid.UUID{}, b[:8]...), ids(2, "x")...)}, // J = 8/12
		{Kind: "semantic_cluster", Members: append(append([]uuid.UUID{}, a[:5]...), ids(6, "y")...)}, // J = 5/16 < 0.5
		{Kind: "emotional_trigger", Members: a[:9]},                                                  // J = 0.9
	}
	got := Match(Statistical, news, prev)
	if got[0] != 1 || got[1] != -1 || got[2] != 2 {
		t.Fatalf("match %v, want [1 -1 2]", got)
	}
	// A burst that gained members at both ends shares few of them, but its window.
	day := 24 * time.Hour
	t0 := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	burst := []Previous{{Kind: "temporal_burst", Members: a[:3], From: t0, To: t0.Add(4 * day)}}
	moved := []Sighting{{Kind: "temporal_burst", Members: append(append([]uuid.UUID{}, a[:2]...), b[:4]...), From: t0.Add(-day), To: t0.Add(5 * day)}}
	if got := Match(Statistical, moved, burst); got[0] != 0 {
		t.Fatalf("burst with 4/6 of its window: match %v", got)
	}
	// llm evidence: overlap coefficient
	if s := Score(LLM, Sighting{Members: a[:3]}, Previous{Members: a}); s != 1 {
		t.Fatalf("llm score of a subset %v, want 1", s)
	}
	if Status(10, 11) != Growing || Status(10, 9) != Shrinking || Status(10, 10) != Persisting || Status(30, 32) != Persisting {
		t.Fatal("status rule")
	}
}
