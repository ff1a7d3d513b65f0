package cluster

// Silhouette returns each point's silhouette under cosine distance
// (scikit-learn's silhouette_samples). Noise points get 0 and do not count as
// a cluster. The mean distance from a unit vector x to a cluster C is
// 1 - x·ΣC/|C|, so it costs O(n·k·d) and no pairwise matrix.
func Silhouette(m *Matrix, labels []int) []float64 {
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

// Mean of xs (0 when empty).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
