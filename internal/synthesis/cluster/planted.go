package cluster

import (
	"math"
	"math/rand/v2"
)

// Planted generates n unit vectors of d dimensions around k random centres
// (cosine similarity to the centre about 1/√(1+spread²)), plus a fraction of
// uniformly random directions labelled Noise. It is synthetic data with known
// labels for tests and benchmarks; deterministic for a seed.
func Planted(n, d, k int, spread, noise float64, seed uint64) (rows [][]float32, truth []int) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	gauss := func(v []float64) {
		var ss float64
		for i := range v {
			v[i] = rng.NormFloat64()
			ss += v[i] * v[i]
		}
		for i := range v {
			v[i] /= math.Sqrt(ss)
		}
	}
	centres := make([][]float64, k)
	for c := range centres {
		centres[c] = make([]float64, d)
		gauss(centres[c])
	}
	z := make([]float64, d)
	nNoise := int(float64(n) * noise)
	for i := range n {
		row := make([]float32, d)
		gauss(z)
		l := Noise
		if i >= nNoise {
			l = i % k
			for j := range row {
				row[j] = float32(centres[l][j] + spread*z[j])
			}
		} else {
			for j := range row {
				row[j] = float32(z[j])
			}
		}
		rows = append(rows, row)
		truth = append(truth, l)
	}
	// Shuffle so that labels are not in index order.
	rng.Shuffle(n, func(a, b int) { rows[a], rows[b] = rows[b], rows[a]; truth[a], truth[b] = truth[b], truth[a] })
	return rows, truth
}
