package cluster

// The N-space k-means of issue 37 as it was before issue 50 (every
// iteration sums each cluster's Gram rows afresh and divides for every
// point and cluster), kept as the reference the faster code must equal bit
// for bit.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func refGramKMeansAuto(m *Matrix, g []float32, kMax, nInit int, seed uint64) *KMeansResult {
	var best *KMeansResult
	for k := 2; k <= min(kMax, m.N-1); k++ {
		r := refGramKMeans(m, g, k, nInit, seed)
		r.Silhouette = Mean(refGramSilhouette(m, g, r.Labels))
		if best == nil || r.Silhouette > best.Silhouette {
			best = r
		}
	}
	if best == nil {
		return refGramKMeans(m, g, 1, nInit, seed)
	}
	return best
}

func refGramKMeans(m *Matrix, g []float32, k, nInit int, seed uint64) *KMeansResult {
	k = min(k, m.N)
	var best *KMeansResult
	for run := range max(nInit, 1) {
		r := refGramOnce(m, g, k, rand.New(rand.NewPCG(seed, uint64(run))))
		if best == nil || r.Inertia < best.Inertia {
			best = r
		}
	}
	return best
}

func refGramSums(g []float32, n, k int, labels []int) ([]float64, []int) {
	sum, size := make([]float64, k*n), make([]int, k)
	for j, l := range labels {
		if l < 0 {
			continue
		}
		size[l]++
		for i, v := range g[j*n : (j+1)*n] {
			sum[l*n+i] += float64(v)
		}
	}
	return sum, size
}

func refGramOnce(m *Matrix, g []float32, k int, rng *rand.Rand) *KMeansResult {
	n := m.N
	if k == 0 {
		return &KMeansResult{}
	}
	seedOf, norm := make([]int, k), make([]float64, k)
	closest, cand, bestCand := make([]float64, n), make([]float64, n), make([]float64, n)
	first := rng.IntN(n)
	seedOf[0] = first
	pot := 0.0
	for i, s := range g[first*n : (first+1)*n] {
		closest[i] = max(2*(1-float64(s)), 0)
		pot += closest[i]
	}
	trials := 2 + int(math.Log(float64(k)))
	for c := 1; c < k; c++ {
		bestPot, bestIdx := math.Inf(1), -1
		for range trials {
			idx := sample(closest, pot, rng)
			p := 0.0
			for i, s := range g[idx*n : (idx+1)*n] {
				cand[i] = min(closest[i], max(2*(1-float64(s)), 0))
				p += cand[i]
			}
			if p < bestPot {
				bestPot, bestIdx = p, idx
				copy(bestCand, cand)
			}
		}
		seedOf[c] = bestIdx
		pot = bestPot
		copy(closest, bestCand)
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = -1
	}
	var sum []float64
	inertia := 0.0
	for iter := 0; iter < 300; iter++ {
		changed := 0
		inertia = 0
		for i := range n {
			bi, bs := 0, math.Inf(-1)
			for c := range k {
				var s float64
				if p := seedOf[c]; p >= 0 {
					s = float64(g[p*n+i])
				} else {
					s = sum[c*n+i] / norm[c]
				}
				if s > bs {
					bi, bs = c, s
				}
			}
			if labels[i] != bi {
				labels[i] = bi
				changed++
			}
			inertia += min(max(1-bs, 0), 2)
		}
		if changed == 0 && iter > 0 {
			break
		}
		var size []int
		sum, size = refGramSums(g, n, k, labels)
		for c := range k {
			if size[c] == 0 {
				seedOf[c] = rng.IntN(n)
				continue
			}
			seedOf[c] = -1
			var ss float64
			for j, l := range labels {
				if l == c {
					ss += sum[c*n+j]
				}
			}
			norm[c] = math.Sqrt(max(ss, 1e-300))
		}
	}
	return &KMeansResult{Labels: labels, K: k, Inertia: inertia}
}

func refGramSilhouette(m *Matrix, g []float32, labels []int) []float64 {
	n := m.N
	k := 0
	for _, l := range labels {
		k = max(k, l+1)
	}
	out := make([]float64, n)
	if k < 2 {
		return out
	}
	sum, size := refGramSums(g, n, k, labels)
	for i, l := range labels {
		if l < 0 || size[l] < 2 {
			continue
		}
		self := float64(g[i*n+i])
		a, b := 0.0, -1.0
		for c := range k {
			if size[c] == 0 {
				continue
			}
			dot := sum[c*n+i]
			if c == l {
				a = (float64(size[c]-1) - (dot - self)) / float64(size[c]-1)
			} else if mc := 1 - dot/float64(size[c]); b < 0 || mc < b {
				b = mc
			}
		}
		if b < 0 {
			continue
		}
		if den := max(a, b); den > 0 {
			out[i] = (b - a) / den
		}
	}
	return out
}

// TestGramEqualsReference: KMeansAuto and KMeans in N-space give bit for
// bit what they gave before issue 50 moved only the changed points' Gram
// rows between cluster sums and kept each cluster's quotients until its
// members change: on synthesis-shaped users and other shapes, and on data
// where the sums are not exact (a pair of nearly orthogonal rows), where
// the sums are taken afresh each time.
func TestGramEqualsReference(t *testing.T) {
	cases := []struct {
		n, d, k       int
		spread, noise float64
		kMax          int
	}{
		{100, 1536, 25, 1.0, 0.05, 20},
		{100, 1536, 4, 0.6, 0, 20},
		{200, 1536, 8, 2.0, 0.2, 20},
		{60, 384, 3, 1.5, 0.2, 12},
		{37, 100, 5, 0.8, 0.1, 9},
		{12, 16, 2, 0.5, 0, 3},
	}
	exact, inexact := 0, 0
	for _, tc := range cases {
		for seed := range uint64(4) {
			for _, orthogonal := range []bool{false, true} {
				t.Run(fmt.Sprintf("n%d_d%d_k%d_seed%d_orthogonal%v", tc.n, tc.d, tc.k, seed, orthogonal), func(t *testing.T) {
					rows, _ := Planted(tc.n, tc.d, tc.k, tc.spread, tc.noise, seed+1)
					if orthogonal { // row 1 made orthogonal to row 0: a zero among the products
						var dot, ss float64
						for j := range rows[0] {
							dot += float64(rows[0][j]) * float64(rows[1][j])
							ss += float64(rows[0][j]) * float64(rows[0][j])
						}
						for j := range rows[1] {
							rows[1][j] -= float32(dot / ss * float64(rows[0][j]))
						}
						rows[1][0], rows[1][1] = 0, 0 // and a near zero, unless it is exactly zero
					}
					m := NewMatrix(rows)
					w := newWork(m, true)
					if w.g == nil {
						t.Fatal("not in N-space")
					}
					if w.exact {
						exact++
					} else {
						inexact++
					}
					g := m.Gram()
					got, err := KMeansAuto(context.Background(), m, tc.kMax, 3, seed)
					if err != nil {
						t.Fatal(err)
					}
					sameResult(t, "KMeansAuto", got, refGramKMeansAuto(m, g, tc.kMax, 3, seed))
					for _, k := range []int{1, 2, 5, 7} {
						got, err := KMeans(context.Background(), m, k, 2, seed)
						if err != nil {
							t.Fatal(err)
						}
						sameResult(t, fmt.Sprintf("KMeans k=%d", k), got, refGramKMeans(m, g, k, 2, seed))
					}
				})
			}
		}
	}
	t.Logf("%d data sets with exact sums, %d without", exact, inexact)
	if exact == 0 || inexact == 0 {
		t.Fatalf("%d data sets with exact sums, %d without: both paths must run", exact, inexact)
	}
}
