package synthesis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// changePointNaive is the permutation test as it was before the exceeds
// filter (issue 20): maxT of every one of the 999 permutations.
func changePointNaive(y []float64, seed uint64) (k int, t, p float64) {
	k, t = maxT(y)
	if k < 0 {
		return k, t, 0
	}
	n := len(y)
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	perm := append([]float64(nil), y...)
	exceed := 0
	for range permutations {
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		if _, pt := maxT(perm); pt >= t {
			exceed++
		}
	}
	return k, t, float64(exceed+1) / float64(permutations+1)
}

// cpSeries: series of the kinds the change-point test meets — noise, a step,
// a step in noise, rounded (tied) values, long constant runs, tiny and huge scales.
func cpSeries(r *rand.Rand) []float64 {
	n := 10 + r.IntN(200)
	y := make([]float64, n)
	at := r.IntN(n)
	step := []float64{0, 0.05, 0.3, 1, 5}[r.IntN(5)]
	noise := []float64{0, 1e-9, 0.01, 0.2, 1}[r.IntN(5)]
	scale := []float64{1, 1e-6, 1e6}[r.IntN(3)]
	for i := range y {
		v := r.NormFloat64() * noise
		if i >= at {
			v += step
		}
		if r.IntN(4) == 0 {
			v = math.Round(v*10) / 10
		}
		y[i] = v * scale
	}
	return y
}

// TestExceedsMatchesMaxT: on every permutation the filter decides
// maxT(perm) ≥ t exactly as maxT itself does, including permutations
// placed right at the threshold.
func TestExceedsMatchesMaxT(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for range 400 {
		y := cpSeries(r)
		k, tt := maxT(y)
		if k < 0 {
			continue
		}
		f := newExceeds(y, tt)
		perm := append([]float64(nil), y...)
		// the series itself reaches its own t: a permutation exactly at the threshold
		if !f.exceeds(perm) {
			t.Fatalf("the observed series does not reach its own t (n=%d)", len(y))
		}
		for range 200 {
			r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			_, pt := maxT(perm)
			if got, want := f.exceeds(perm), pt >= tt; got != want {
				t.Fatalf("n=%d t=%v pt=%v: filter says %v, maxT says %v", len(y), tt, pt, got, want)
			}
			checked++
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d permutations checked", checked)
	}
}

// TestChangePointSameAsNaive: the p-value (and split) of a full test equal
// those of computing maxT on all 999 permutations, bit for bit.
func TestChangePointSameAsNaive(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 60 {
		y := cpSeries(r)
		x := make([]float64, len(y))
		for j := range x {
			x[j] = float64(j)
		}
		seed := uint64(i)
		got, ok := changePoint(x, y, seed, nil)
		if !ok {
			continue
		}
		k, tt, p := changePointNaive(y, seed)
		if got.k != k || got.t != tt || got.p != p || got.stopped {
			t.Fatalf("series %d: got k=%d t=%v p=%v, naive k=%d t=%v p=%v", i, got.k, got.t, got.p, k, tt, p)
		}
	}
}

// TestChangePointStopsOnlyWhenSettled: with a stopping rule, the test stops
// early only when the full count would give the same decision.
func TestChangePointStopsOnlyWhenSettled(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	stopped := 0
	for i := range 60 {
		y := cpSeries(r)
		x := make([]float64, len(y))
		for j := range x {
			x[j] = float64(j)
		}
		tests, alpha := float64(2+r.IntN(5)), 0.01
		notReported := func(p float64) bool { return !(min(1, p*tests) < alpha) }
		got, ok := changePoint(x, y, uint64(i), notReported)
		if !ok {
			continue
		}
		_, _, p := changePointNaive(y, uint64(i))
		if got.stopped {
			stopped++
			if !notReported(p) || got.p > p {
				t.Fatalf("series %d stopped at p=%v but the full test gives p=%v", i, got.p, p)
			}
		} else if got.p != p {
			t.Fatalf("series %d: p=%v, naive %v", i, got.p, p)
		}
	}
	if stopped == 0 {
		t.Fatal("no series stopped early: the stopping rule is not exercised")
	}
}
