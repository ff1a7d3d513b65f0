package cluster

// Silhouette returns each point's silhouette under cosine distance
// (scikit-learn's silhouette_samples). Noise points get 0 and do not count as
// a cluster. The mean distance from a unit vector x to a cluster C is
// 1 - x·ΣC/|C|, so it costs O(n·k·d) and no pairwise matrix; or O(n²)
// when m's Gram matrix is at hand (the k-distances, DBSCAN and k-means of
// a few thousand points compute it), x·ΣC being Σ_{j∈C} G_ij, as
// KMeansAuto's silhouettes take it.
func Silhouette(m *Matrix, labels []int) []float64 {
	return (&work{m: m, g: m.gram}).silhouette(labels)
}

func (w *work) silhouette(labels []int) []float64 {
	m := w.m
	n, d := m.N, m.Stride
	k := 0
	for _, l := range labels {
		k = max(k, l+1)
	}
	out := make([]float64, n)
	if k < 2 {
		return out
	}
	if w.g != nil {
		w.gramSums(k, labels)
		w.dots = grow(w.dots, n*k)
		for i := range n {
			for c := range k {
				w.dots[i*k+c] = w.sum[c*n+i]
			}
		}
		if w.self == nil {
			w.self = make([]float64, n)
			for i := range n {
				w.self[i] = float64(w.g[i*n+i])
			}
		}
		return w.silhouetteFromDots(labels, k, out)
	}
	if w.self == nil {
		w.self = make([]float64, n)
		m.sumSquares(w.self)
	}
	w.clusterSums(k, labels)
	sum, size := w.sum, w.size
	w.dots = grow(w.dots, n*k)
	if hasKernel {
		w.clusterDots4x4(k)
	} else {
		for i, l := range labels {
			if l >= 0 && size[l] >= 2 {
				clusterDots(m.row(i), sum, d, k, w.dots[i*k:(i+1)*k])
			}
		}
	}
	return w.silhouetteFromDots(labels, k, out)
}

// silhouetteFromDots finishes silhouette from w.size and w.dots[i*k+c] =
// x_i·ΣC.
func (w *work) silhouetteFromDots(labels []int, k int, out []float64) []float64 {
	size := w.size
	for i, l := range labels {
		if l < 0 || size[l] < 2 {
			continue
		}
		dots := w.dots[i*k : (i+1)*k]
		self := w.self[i]
		a, b := 0.0, -1.0
		for c := range k {
			if size[c] == 0 {
				continue
			}
			dot := dots[c]
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

// clusterDots sets dots[c] = row·sum[c*d:(c+1)*d] for c < k, each a float64
// sum in the order of the dimensions. Four clusters go at a time: a lone sum
// waits on its previous addition at every step, four independent ones do not.
func clusterDots(row []float32, sum []float64, d, k int, dots []float64) {
	c := 0
	for ; c+4 <= k; c += 4 {
		s0 := sum[c*d : (c+1)*d]
		s1 := sum[(c+1)*d : (c+2)*d]
		s2 := sum[(c+2)*d : (c+3)*d]
		s3 := sum[(c+3)*d : (c+4)*d]
		s0, s1, s2, s3 = s0[:len(row)], s1[:len(row)], s2[:len(row)], s3[:len(row)]
		var a0, a1, a2, a3 float64
		for dim, v := range row {
			x := float64(v)
			a0 += x * s0[dim]
			a1 += x * s1[dim]
			a2 += x * s2[dim]
			a3 += x * s3[dim]
		}
		dots[c], dots[c+1], dots[c+2], dots[c+3] = a0, a1, a2, a3
	}
	for ; c < k; c++ {
		s := sum[c*d : (c+1)*d]
		s = s[:len(row)]
		var a float64
		for dim, v := range row {
			a += float64(v) * s[dim]
		}
		dots[c] = a
	}
}

// clusterDots4x4 sets w.dots[i*k+c] to x_i·w.sum[c*d:(c+1)*d] for every
// point, as clusterDots does (bit for bit), with the dots4x4 kernel: the sums
// are interleaved four clusters at a time (the last group padded with
// zeros) and four points go at a time.
func (w *work) clusterDots4x4(k int) {
	m := w.m
	n, d := m.N, m.Stride
	groups := (k + 3) / 4
	w.sumT = grow(w.sumT, groups*4*d)
	sumT := w.sumT
	clear(sumT)
	for c := range k {
		g, j := c/4, c%4
		t := sumT[g*4*d : (g+1)*4*d]
		for dim, v := range w.sum[c*d : (c+1)*d] {
			t[4*dim+j] = v
		}
	}
	var out [16]float64
	for i := 0; i < n; i += 4 {
		var x [4]*float32
		for r := range x {
			x[r] = &m.X[min(i+r, n-1)*d]
		}
		for g := range groups {
			dots4x4(x[0], x[1], x[2], x[3], &sumT[g*4*d], d, &out)
			for r := range min(4, n-i) {
				for j := range min(4, k-4*g) {
					w.dots[(i+r)*k+4*g+j] = out[4*r+j]
				}
			}
		}
	}
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
