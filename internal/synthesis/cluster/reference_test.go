package cluster

// The k-means and silhouette of before issue 37's speed-ups, kept as the
// reference the faster code must equal bit for bit.

import (
	"context"
	"math"
	"math/rand/v2"
)

// KMeans runs spherical k-means (cosine) with k-means++ seeding (greedy, with
// 2+ln k local trials, as scikit-learn), keeping the best of nInit runs.
// Deterministic for a seed.
func refKMeans(ctx context.Context, m *Matrix, k, nInit int, seed uint64) (*KMeansResult, error) {
	k = min(k, m.N)
	var best *KMeansResult
	for run := range max(nInit, 1) {
		rng := rand.New(rand.NewPCG(seed, uint64(run)))
		r, err := refKmeansOnce(ctx, m, k, rng)
		if err != nil {
			return nil, err
		}
		if best == nil || r.Inertia < best.Inertia {
			best = r
		}
	}
	return best, nil
}

func refKmeansOnce(ctx context.Context, m *Matrix, k int, rng *rand.Rand) (*KMeansResult, error) {
	n := m.N
	cent := make([]float32, k*m.Stride)
	if k == 0 {
		return &KMeansResult{}, nil
	}
	// k-means++ on the squared chord distance 2(1-cos), which is the squared
	// Euclidean distance between unit vectors.
	sims := make([]float32, n)
	closest := make([]float64, n)
	first := rng.IntN(n)
	copy(cent, m.row(first))
	m.simsTo(first, sims)
	pot := 0.0
	for i, s := range sims {
		closest[i] = max(2*(1-float64(s)), 0)
		pot += closest[i]
	}
	trials := 2 + int(math.Log(float64(k)))
	cand := make([]float64, n)
	bestCand := make([]float64, n)
	for c := 1; c < k; c++ {
		bestPot, bestIdx := math.Inf(1), -1
		for range trials {
			idx := sample(closest, pot, rng)
			m.simsTo(idx, sims)
			p := 0.0
			for i, s := range sims {
				cand[i] = min(closest[i], max(2*(1-float64(s)), 0))
				p += cand[i]
			}
			if p < bestPot {
				bestPot, bestIdx = p, idx
				copy(bestCand, cand)
			}
		}
		copy(cent[c*m.Stride:], m.row(bestIdx))
		pot = bestPot
		copy(closest, bestCand)
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = -1
	}
	inertia := 0.0
	for iter := 0; iter < 300; iter++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		changed := 0
		inertia = refAssign(m, cent, k, labels, &changed)
		if changed == 0 && iter > 0 {
			break
		}
		refUpdateCentroids(m, cent, k, labels, rng)
	}
	return &KMeansResult{Labels: labels, K: k, Inertia: inertia}, nil
}

// assign labels each point with its most similar centroid, in blocks of
// columns, and returns the inertia.
func refAssign(m *Matrix, cent []float32, k int, labels []int, changed *int) float64 {
	n := m.N
	bc := min(n, max(1<<20/k, 1024))
	buf := make([]float32, k*bc)
	inertia := 0.0
	for lo := 0; lo < n; lo += bc {
		w := min(bc, n-lo)
		products(m.X[lo*m.Stride:(lo+w)*m.Stride], cent, m.Stride, buf[:w*k], k)
		for j := range w {
			bi, bs := 0, buf[j*k]
			for c := 1; c < k; c++ {
				if s := buf[j*k+c]; s > bs {
					bi, bs = c, s
				}
			}
			if labels[lo+j] != bi {
				labels[lo+j] = bi
				*changed++
			}
			inertia += dist(bs)
		}
	}
	return inertia
}

func refUpdateCentroids(m *Matrix, cent []float32, k int, labels []int, rng *rand.Rand) {
	n, d := m.N, m.Stride
	sum := make([]float64, k*d)
	size := make([]int, k)
	for i, l := range labels {
		size[l]++
		for dim, v := range m.row(i) {
			sum[l*d+dim] += float64(v)
		}
	}
	for c := range k {
		if size[c] == 0 { // an empty cluster restarts at a random point
			copy(cent[c*d:], m.row(rng.IntN(n)))
			continue
		}
		var ss float64
		for _, v := range sum[c*d : (c+1)*d] {
			ss += v * v
		}
		inv := 1 / math.Sqrt(max(ss, 1e-300))
		for dim := range d {
			cent[c*d+dim] = float32(sum[c*d+dim] * inv)
		}
	}
}

// KMeansAuto tries k = 2..kMax and keeps the k with the highest mean
// silhouette (exact, computed from cluster sums).
func refKMeansAuto(ctx context.Context, m *Matrix, kMax, nInit int, seed uint64) (*KMeansResult, error) {
	var best *KMeansResult
	for k := 2; k <= min(kMax, m.N-1); k++ {
		r, err := refKMeans(ctx, m, k, nInit, seed)
		if err != nil {
			return nil, err
		}
		r.Silhouette = Mean(refSilhouette(m, r.Labels))
		if best == nil || r.Silhouette > best.Silhouette {
			best = r
		}
	}
	if best == nil {
		return refKMeans(ctx, m, 1, nInit, seed)
	}
	return best, nil
}

// Silhouette returns each point's silhouette under cosine distance
// (scikit-learn's silhouette_samples). Noise points get 0 and do not count as
// a cluster. The mean distance from a unit vector x to a cluster C is
// 1 - x·ΣC/|C|, so it costs O(n·k·d) and no pairwise matrix.
func refSilhouette(m *Matrix, labels []int) []float64 {
	n, d := m.N, m.Stride
	k := 0
	for _, l := range labels {
		k = max(k, l+1)
	}
	out := make([]float64, n)
	if k < 2 {
		return out
	}
	sum := make([]float64, k*d)
	size := make([]int, k)
	for i, l := range labels {
		if l < 0 {
			continue
		}
		size[l]++
		for dim, v := range m.row(i) {
			sum[l*d+dim] += float64(v)
		}
	}
	for i, l := range labels {
		if l < 0 || size[l] < 2 {
			continue
		}
		row := m.row(i)
		var self float64
		for _, v := range row {
			self += float64(v) * float64(v)
		}
		a, b := 0.0, -1.0
		for c := range k {
			if size[c] == 0 {
				continue
			}
			dot := 0.0
			for dim, v := range row {
				dot += float64(v) * sum[c*d+dim]
			}
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
