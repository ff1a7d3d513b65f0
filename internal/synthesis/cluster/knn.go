package cluster

import (
	"context"
	"math"
	"sort"
)

// KDistances returns, for every point, the cosine distance to its k-th
// nearest neighbour counting the point itself (scikit-learn's
// NearestNeighbors(n_neighbors=k).kneighbors(X) last column, and the hdbscan
// library's core distance for min_samples=k).
func KDistances(ctx context.Context, m *Matrix, k int) ([]float64, error) {
	out := make([]float64, m.N)
	others := k - 1 // the point itself is the first neighbour
	if others <= 0 || m.N == 0 {
		return out, nil
	}
	if others >= m.N {
		others = m.N - 1
	}
	// best[i*others:...] holds the largest similarities of i to other points, descending.
	best := make([]float32, m.N*others)
	for i := range best {
		best[i] = float32(math.Inf(-1))
	}
	push := func(i int, s float32) {
		b := best[i*others : (i+1)*others]
		if s <= b[others-1] {
			return
		}
		j := others - 1
		for j > 0 && b[j-1] < s {
			b[j] = b[j-1]
			j--
		}
		b[j] = s
	}
	err := m.upperBlocks(ctx, func(a, b int, sims []float32, stride int) {
		for i := a; i < b; i++ {
			row := sims[(i-a)*stride:]
			for j := i + 1; j < m.N; j++ {
				s := row[j-a]
				push(i, s)
				push(j, s)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i] = dist(best[i*others+others-1])
	}
	return out, nil
}

// ElbowEps picks DBSCAN's eps at the elbow of the sorted k-distance curve:
// the point farthest from the chord joining its ends, both axes scaled to [0,1]
// (the "kneedle" construction).
func ElbowEps(kd []float64) float64 {
	s := append([]float64(nil), kd...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n < 3 || s[n-1] == s[0] {
		return s[n-1]
	}
	lo, span := s[0], s[n-1]-s[0]
	best, at := -1.0, n-1
	for i, v := range s {
		x := float64(i) / float64(n-1)
		y := (v - lo) / span
		if d := x - y; d > best { // distance below the chord y=x, up to a constant
			best, at = d, i
		}
	}
	return s[at]
}
