package cluster

import (
	"context"
	"math"
	"math/rand/v2"
)

// KMeansResult is a spherical k-means labelling.
type KMeansResult struct {
	Labels     []int
	K          int
	Inertia    float64 // Σ (1 - cos) to the assigned centroid
	Silhouette float64 // mean silhouette (cosine) when k was chosen by silhouette
}

// KMeans runs spherical k-means (cosine) with k-means++ seeding (greedy, with
// 2+ln k local trials, as scikit-learn), keeping the best of nInit runs.
// Deterministic for a seed.
func KMeans(ctx context.Context, m *Matrix, k, nInit int, seed uint64) (*KMeansResult, error) {
	k = min(k, m.N)
	var best *KMeansResult
	for run := range max(nInit, 1) {
		rng := rand.New(rand.NewPCG(seed, uint64(run)))
		r, err := kmeansOnce(ctx, m, k, rng)
		if err != nil {
			return nil, err
		}
		if best == nil || r.Inertia < best.Inertia {
			best = r
		}
	}
	return best, nil
}

func kmeansOnce(ctx context.Context, m *Matrix, k int, rng *rand.Rand) (*KMeansResult, error) {
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
		inertia = assign(m, cent, k, labels, &changed)
		if changed == 0 && iter > 0 {
			break
		}
		updateCentroids(m, cent, k, labels, rng)
	}
	return &KMeansResult{Labels: labels, K: k, Inertia: inertia}, nil
}

func sample(w []float64, total float64, rng *rand.Rand) int {
	if total <= 0 {
		return rng.IntN(len(w))
	}
	x := rng.Float64() * total
	for i, v := range w {
		x -= v
		if x < 0 {
			return i
		}
	}
	return len(w) - 1
}

// assign labels each point with its most similar centroid, in blocks of
// columns, and returns the inertia.
func assign(m *Matrix, cent []float32, k int, labels []int, changed *int) float64 {
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

func updateCentroids(m *Matrix, cent []float32, k int, labels []int, rng *rand.Rand) {
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
func KMeansAuto(ctx context.Context, m *Matrix, kMax, nInit int, seed uint64) (*KMeansResult, error) {
	var best *KMeansResult
	for k := 2; k <= min(kMax, m.N-1); k++ {
		r, err := KMeans(ctx, m, k, nInit, seed)
		if err != nil {
			return nil, err
		}
		r.Silhouette = Mean(Silhouette(m, r.Labels))
		if best == nil || r.Silhouette > best.Silhouette {
			best = r
		}
	}
	if best == nil {
		return KMeans(ctx, m, 1, nInit, seed)
	}
	return best, nil
}
