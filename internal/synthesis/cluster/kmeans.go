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
	return newWork(m, true).kmeans(ctx, k, nInit, seed)
}

// KMeansAuto tries k = 2..kMax and keeps the k with the highest mean
// silhouette (exact, computed from cluster sums).
func KMeansAuto(ctx context.Context, m *Matrix, kMax, nInit int, seed uint64) (*KMeansResult, error) {
	w := newWork(m, true)
	w.reserve(min(kMax, m.N))
	var best *KMeansResult
	for k := 2; k <= min(kMax, m.N-1); k++ {
		r, err := w.kmeans(ctx, k, nInit, seed)
		if err != nil {
			return nil, err
		}
		r.Silhouette = Mean(w.silhouette(r.Labels))
		if best == nil || r.Silhouette > best.Silhouette {
			best = r
		}
	}
	if best == nil {
		return w.kmeans(ctx, 1, nInit, seed)
	}
	return best, nil
}

// simCacheMax bounds the rows whose similarity rows a work caches: n² floats,
// 64 MB at most.
const simCacheMax = 4096

// work is what the k-means runs on one matrix share (KMeansAuto makes
// nInit runs for each of up to 19 values of k): the Gram matrix in N-space;
// in d-space each point's similarities to all points, computed the first
// time k-means++ samples it, as the code before issue 37 computed them (the
// d-space results are the same bit for bit); and buffers.
type work struct {
	m        *Matrix
	g        []float32   // the n×n Gram matrix, when the runs go in N-space (see gramMax)
	seedOf   []int       // N-space: centroid c is point seedOf[c], or the mean of its cluster when -1
	norm     []float64   // N-space: |Σ_{j∈C} x_j| of each cluster
	simRows  [][]float32 // simRows[i]: row i's similarities to every row, once asked for
	sims     []float32   // scratch for simsOf when the cache is off
	self     []float64   // x_i·x_i in float64, for the silhouette; nil until needed
	seedings []seeding   // KMeansAuto's runs' k-means++ centres, by run
	cand     []float64
	bestCand []float64
	cent     []float32
	sum      []float64
	size     []int
	ss       []float64
	sumT     []float64 // the silhouette's cluster sums, four clusters interleaved
	dots     []float64 // the silhouette's point·cluster-sum products, n×k
	prod     []float32 // assign's block of products
	best     []float64 // assignGram's best similarity of each point so far
	at       []int64   // and the cluster it is to

	// N-space bookkeeping (issue 50). When exact, every sum of Gram values
	// that w.sum can hold is exact in float64 (see exactSums), so its value
	// does not depend on the order of the additions: gramSums then moves
	// only the points whose label changed since the sums were taken, and
	// the result is the full sum's, bit for bit.
	exact bool
	sumOf []int     // the labels w.sum and w.size hold the sums of; nil: none
	sumK  int       // w.sum holds clusters [0, sumK)
	moved []bool    // cluster c's members changed since its norm and quot were taken
	quot  []float64 // quot[c*n+i] = x_i·ΣC / |ΣC|: a point's similarity to the mean of C
}

// gramMax is the most points for which k-means runs in N-space, when there
// are also fewer points than dimensions: G = X·Xᵀ is computed once (n²·d), and
// then a point's similarity to a cluster's normalised mean is
// Σ_{j∈C} G_ij / sqrt(Σ_{j,l∈C} G_jl), so an iteration costs n² instead of
// n·k·d, and so does the silhouette (x_i·ΣC = Σ_{j∈C} G_ij). The sums round
// otherwise than the d-space ones, so a near tie may fall the other way.
var gramMax = 2000

// newWork prepares the runs on m; in N-space if gram allows and m is small
// enough.
func newWork(m *Matrix, gram bool) *work {
	w := &work{m: m}
	if gram && m.N > 0 && m.N <= gramMax && m.N < m.D {
		w.g = m.Gram()
		w.exact = exactSums(w.g, m.N)
		return w
	}
	if m.N <= simCacheMax {
		w.simRows = make([][]float32, m.N)
	}
	return w
}

// reserve allocates the buffers for runs of up to k clusters at once, not
// again for each larger k.
func (w *work) reserve(k int) {
	k = max(k, 1)
	n, d := w.m.N, w.m.Stride
	if w.g != nil {
		w.sum = make([]float64, k*n)
		w.size = make([]int, k)
		w.dots = make([]float64, n*k)
		w.quot = make([]float64, k*n)
		w.moved = make([]bool, k)
		return
	}
	w.cent = make([]float32, k*d)
	w.sum = make([]float64, k*d)
	w.size = make([]int, k)
	w.ss = make([]float64, k)
	w.sumT = make([]float64, (k+3)/4*4*d)
	w.dots = make([]float64, n*k)
	w.prod = make([]float32, k*min(n, max(1<<20/k, 1024)))
}

// simsOf returns row i's similarities to every row; the caller must not
// change them.
func (w *work) simsOf(i int) []float32 {
	if w.g != nil {
		return w.g[i*w.m.N : (i+1)*w.m.N]
	}
	if w.simRows == nil {
		w.sims = grow(w.sims, w.m.N)
		w.m.simsTo(i, w.sims)
		return w.sims
	}
	if w.simRows[i] == nil {
		w.simRows[i] = make([]float32, w.m.N)
		w.m.simsTo(i, w.simRows[i])
	}
	return w.simRows[i]
}

// grow returns s resliced to n, reallocated when its capacity is short; the
// contents are not kept.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func (w *work) kmeans(ctx context.Context, k, nInit int, seed uint64) (*KMeansResult, error) {
	k = min(k, w.m.N)
	var best *KMeansResult
	for run := range max(nInit, 1) {
		r, err := w.once(ctx, k, run, seed)
		if err != nil {
			return nil, err
		}
		if best == nil || r.Inertia < best.Inertia {
			best = r
		}
	}
	return best, nil
}

// seeding is one run's k-means++ centres as far as they have been chosen.
// A run's random source depends on the seed and the run's number only, so
// the runs for k and for k+1 draw the same numbers, and while they make the
// same number of local trials (2+ln k: 2 for k ≤ 2, 3 up to 7, 4 up to 20)
// their first k centres are the same: KMeansAuto's run for k+1 continues
// the seeding of its run for k instead of starting over (issue 50).
type seeding struct {
	seed    uint64
	trials  int
	centres []int
	after   []rand.PCG // the random source after centres[c] was chosen
	closest []float64  // each point's distance to the closest centre chosen
	pot     float64    // the sum of closest
}

// seeds returns run's first k centres and its random source after them, as
// seeding them afresh from rand.NewPCG(seed, run) would.
func (w *work) seeds(k, run int, seed uint64) ([]int, *rand.Rand) {
	n := w.m.N
	trials := 2 + int(math.Log(float64(k)))
	if len(w.seedings) <= run {
		w.seedings = append(w.seedings, make([]seeding, run+1-len(w.seedings))...)
	}
	s := &w.seedings[run]
	// k-means++ on the squared chord distance 2(1-cos), which is the squared
	// Euclidean distance between unit vectors.
	if len(s.centres) == 0 || s.seed != seed || s.trials != trials {
		src := rand.NewPCG(seed, uint64(run))
		first := rand.New(src).IntN(n)
		s.seed, s.trials = seed, trials
		s.centres, s.after = append(s.centres[:0], first), append(s.after[:0], *src)
		s.closest = grow(s.closest, n)
		s.pot = 0
		for i, v := range w.simsOf(first)[:n] {
			s.closest[i] = max(2*(1-float64(v)), 0)
			s.pot += s.closest[i]
		}
	}
	if len(s.centres) < k {
		src := new(rand.PCG)
		*src = s.after[len(s.after)-1]
		rng := rand.New(src)
		closest := s.closest
		cand := grow(w.cand, n)
		bestCand := grow(w.bestCand, n)
		w.cand, w.bestCand = cand, bestCand
		for len(s.centres) < k {
			bestPot, bestIdx := math.Inf(1), -1
			for range trials {
				idx := sample(closest, s.pot, rng)
				sims := w.simsOf(idx)[:n]
				p := 0.0
				for i, v := range sims {
					cand[i] = min(closest[i], max(2*(1-float64(v)), 0))
					p += cand[i]
				}
				if p < bestPot {
					bestPot, bestIdx = p, idx
					copy(bestCand, cand)
				}
			}
			s.pot = bestPot
			copy(closest, bestCand)
			s.centres, s.after = append(s.centres, bestIdx), append(s.after, *src)
		}
	}
	src := new(rand.PCG)
	*src = s.after[k-1]
	return s.centres[:k], rand.New(src)
}

func (w *work) once(ctx context.Context, k, run int, seed uint64) (*KMeansResult, error) {
	m := w.m
	n := m.N
	if k == 0 {
		return &KMeansResult{}, nil
	}
	var cent []float32
	if w.g == nil {
		cent = grow(w.cent, k*m.Stride) // every row is set by the seeding
		w.cent = cent
	} else {
		w.seedOf = grow(w.seedOf, k)
		w.norm = grow(w.norm, k)
	}
	centres, rng := w.seeds(k, run, seed)
	for c, i := range centres {
		w.setSeed(cent, c, i)
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
		if w.g != nil {
			inertia = w.assignGram(k, labels, &changed)
		} else {
			inertia = w.assign(cent, k, labels, &changed)
		}
		if changed == 0 && iter > 0 {
			break
		}
		if w.g != nil {
			w.updateGram(k, labels, rng)
		} else {
			w.updateCentroids(cent, k, labels, rng)
		}
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
func (w *work) assign(cent []float32, k int, labels []int, changed *int) float64 {
	m := w.m
	n := m.N
	bc := min(n, max(1<<20/k, 1024))
	buf := grow(w.prod, k*bc)
	w.prod = buf
	inertia := 0.0
	for lo := 0; lo < n; lo += bc {
		nb := min(bc, n-lo)
		products(m.X[lo*m.Stride:(lo+nb)*m.Stride], cent[:k*m.Stride], m.Stride, buf[:nb*k], k)
		for j := range nb {
			row := buf[j*k : (j+1)*k]
			bi, bs := 0, row[0]
			for c, s := range row[1:] {
				if s > bs {
					bi, bs = c+1, s
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

// clusterSums sets w.sum[c*d:(c+1)*d] to Σ x_i over the points labelled c
// (in float64, adding in the order of the points) and w.size[c] to their
// number; points labelled Noise are left out.
func (w *work) clusterSums(k int, labels []int) {
	m := w.m
	d := m.Stride
	w.sum = grow(w.sum, k*d)
	w.size = grow(w.size, k)
	sum, size := w.sum, w.size
	clear(sum)
	clear(size)
	for i, l := range labels {
		if l < 0 {
			continue
		}
		size[l]++
		s := sum[l*d : (l+1)*d]
		r := m.X[i*d : (i+1)*d]
		if hasKernel {
			addWiden(&s[0], &r[0], d)
			continue
		}
		s = s[:len(r)]
		for dim, v := range r {
			s[dim] += float64(v)
		}
	}
}

func (w *work) updateCentroids(cent []float32, k int, labels []int, rng *rand.Rand) {
	m := w.m
	n, d := m.N, m.Stride
	w.clusterSums(k, labels)
	sum, size := w.sum, w.size
	// Each centroid's squared norm, four clusters at a time: four independent
	// sums, each added in the order of its dimensions.
	w.ss = grow(w.ss, k)
	ss := w.ss
	c := 0
	for ; c+4 <= k; c += 4 {
		s0 := sum[c*d : (c+1)*d]
		s1 := sum[(c+1)*d : (c+2)*d]
		s2 := sum[(c+2)*d : (c+3)*d]
		s3 := sum[(c+3)*d : (c+4)*d]
		s1, s2, s3 = s1[:len(s0)], s2[:len(s0)], s3[:len(s0)]
		var a0, a1, a2, a3 float64
		for dim, v := range s0 {
			a0 += v * v
			a1 += s1[dim] * s1[dim]
			a2 += s2[dim] * s2[dim]
			a3 += s3[dim] * s3[dim]
		}
		ss[c], ss[c+1], ss[c+2], ss[c+3] = a0, a1, a2, a3
	}
	for ; c < k; c++ {
		var a float64
		for _, v := range sum[c*d : (c+1)*d] {
			a += v * v
		}
		ss[c] = a
	}
	for c := range k {
		if size[c] == 0 { // an empty cluster restarts at a random point
			copy(cent[c*d:], m.row(rng.IntN(n)))
			continue
		}
		inv := 1 / math.Sqrt(max(ss[c], 1e-300))
		s := sum[c*d : (c+1)*d]
		dst := cent[c*d : (c+1)*d]
		dst = dst[:len(s)]
		for dim, v := range s {
			dst[dim] = float32(v * inv)
		}
	}
}

// setSeed makes point i centroid c.
func (w *work) setSeed(cent []float32, c, i int) {
	if w.g != nil {
		w.seedOf[c] = i
		return
	}
	copy(cent[c*w.m.Stride:], w.m.row(i))
}

// gramSums sets w.sum[c*n+i] to Σ_{j labelled c} G_ij (x_i·ΣC) and w.size[c]
// to the size of cluster c; points labelled Noise are left out. It marks in
// w.moved the clusters whose members changed.
func (w *work) gramSums(k int, labels []int) {
	n := w.m.N
	w.moved = growKeep(w.moved, k)
	if w.exact && w.sumOf != nil && k >= w.sumK && cap(w.sum) >= k*n && cap(w.size) >= k {
		changed := 0
		for j, l := range labels {
			if l != w.sumOf[j] {
				changed++
			}
		}
		if 2*changed < n { // moving a point costs two rows, summing afresh one
			w.moveSums(k, labels)
			return
		}
	}
	w.sum = grow(w.sum, k*n)
	w.size = grow(w.size, k)
	sum, size := w.sum, w.size
	clear(sum)
	clear(size)
	for j, l := range labels {
		if l < 0 {
			continue
		}
		size[l]++
		addRow(sum[l*n:(l+1)*n], w.g[j*n:(j+1)*n])
	}
	for c := range k {
		w.moved[c] = true
	}
	if w.exact {
		w.sumOf = append(w.sumOf[:0], labels...)
		w.sumK = k
	}
}

// moveSums is gramSums when the sums are exact: each point whose label
// changed leaves its old cluster's sums and joins its new one's.
func (w *work) moveSums(k int, labels []int) {
	n := w.m.N
	w.sum, w.size = w.sum[:k*n], w.size[:k]
	clear(w.sum[w.sumK*n:])
	clear(w.size[w.sumK:])
	w.sumK = k
	for j, l := range labels {
		o := w.sumOf[j]
		if l == o {
			continue
		}
		row := w.g[j*n : (j+1)*n]
		if o >= 0 {
			w.size[o]--
			w.moved[o] = true
			subRow(w.sum[o*n:(o+1)*n], row)
		}
		if l >= 0 {
			w.size[l]++
			w.moved[l] = true
			addRow(w.sum[l*n:(l+1)*n], row)
		}
		w.sumOf[j] = l
	}
}

// exactSums reports whether every sum of up to n values of g, in any order
// and with any subtractions along the way, is exact in float64: every
// nonzero float32 v with |v| ≥ lo is a multiple of 2^(⌊log2 lo⌋-23) ≥
// lo·2⁻²⁴, so a sum of n of them is an integer multiple of that step below
// n·hi, exact while n·hi ≤ lo·2²⁹ (53 bits). The margin is a factor of two.
// Unit vectors make this hold unless some pair is orthogonal to within
// ~1e-7 relative (then the sums are taken afresh each time, as before).
func exactSums(g []float32, n int) bool {
	lo, hi := math.Inf(1), 0.0
	for _, v := range g {
		a := math.Abs(float64(v))
		switch {
		case math.IsNaN(a) || math.IsInf(a, 0):
			return false
		case a == 0:
		default:
			lo, hi = min(lo, a), max(hi, a)
		}
	}
	return hi == 0 || float64(n)*hi <= lo*(1<<28)
}

// addRow adds float64(row[i]) to s[i], each an IEEE addition as in Go.
func addRow(s []float64, row []float32) {
	s = s[:len(row)]
	i := 0
	if hasKernel && len(row) >= 8 {
		i = len(row) &^ 7
		addWiden(&s[0], &row[0], i)
	}
	for ; i < len(row); i++ {
		s[i] += float64(row[i])
	}
}

// subRow subtracts float64(row[i]) from s[i].
func subRow(s []float64, row []float32) {
	s = s[:len(row)]
	i := 0
	if hasKernel && len(row) >= 8 {
		i = len(row) &^ 7
		subWiden(&s[0], &row[0], i)
	}
	for ; i < len(row); i++ {
		s[i] -= float64(row[i])
	}
}

// divInto sets q[i] = s[i] / d.
func divInto(q, s []float64, d float64) {
	q = q[:len(s)]
	i := 0
	if hasKernel && len(s) >= 4 {
		i = len(s) &^ 3
		divBy(&q[0], &s[0], d, i)
	}
	for ; i < len(s); i++ {
		q[i] = s[i] / d
	}
}

// growKeep is grow keeping the contents (new elements are zero).
func growKeep[T any](s []T, n int) []T {
	if cap(s) < n {
		return append(s[:cap(s)], make([]T, n-cap(s))...)
	}
	return s[:n]
}

// assignGram is assign in N-space: a centroid is a point (a seed, or a
// restart of an empty cluster) or its cluster's normalised mean, whose
// similarity to x_i is x_i·ΣC / |ΣC| (w.quot, taken by updateGram).
func (w *work) assignGram(k int, labels []int, changed *int) float64 {
	n := w.m.N
	// Cluster by cluster, each point keeping its best so far: for a point,
	// the clusters come in the same order as one point's scan over them,
	// so it picks the same cluster (the first of equal bests).
	best, at := grow(w.best, n), grow(w.at, n)
	w.best, w.at = best, at
	for i := range best {
		best[i], at[i] = math.Inf(-1), 0
	}
	for c := range k {
		if p := w.seedOf[c]; p >= 0 {
			maxInto(best, at, w.g[p*n:(p+1)*n], c)
		} else {
			maxInto(best, at, w.quot[c*n:(c+1)*n], c)
		}
	}
	inertia := 0.0
	for i, bs := range best {
		if bi := int(at[i]); labels[i] != bi {
			labels[i] = bi
			*changed++
		}
		inertia += min(max(1-bs, 0), 2)
	}
	return inertia
}

// maxInto sets best[i], at[i] = s[i], c where s[i] > best[i].
func maxInto[T float32 | float64](best []float64, at []int64, s []T, c int) {
	n := len(best)
	s, at = s[:n], at[:n]
	i := 0
	if hasKernel && n >= 4 {
		i = n &^ 3
		switch s := any(s).(type) {
		case []float32:
			maxUpdate32(&best[0], &at[0], &s[0], int64(c), i)
		case []float64:
			maxUpdate64(&best[0], &at[0], &s[0], int64(c), i)
		}
	}
	for ; i < n; i++ {
		if v := float64(s[i]); v > best[i] {
			best[i], at[i] = v, int64(c)
		}
	}
}

// updateGram is updateCentroids in N-space: the cluster sums' products with
// every point, and their norms |ΣC|² = Σ_{j∈C} x_j·ΣC.
func (w *work) updateGram(k int, labels []int, rng *rand.Rand) {
	n := w.m.N
	w.gramSums(k, labels)
	w.quot = growKeep(w.quot, k*n)
	for c := range k {
		if w.size[c] == 0 { // an empty cluster restarts at a random point
			w.seedOf[c] = rng.IntN(n)
			continue
		}
		if w.seedOf[c] < 0 && !w.moved[c] {
			continue // the same members: the same sums, norm and quotients
		}
		w.seedOf[c] = -1
		w.moved[c] = false
		s := w.sum[c*n : (c+1)*n]
		var ss float64
		for j, l := range labels {
			if l == c {
				ss += s[j]
			}
		}
		w.norm[c] = math.Sqrt(max(ss, 1e-300))
		divInto(w.quot[c*n:(c+1)*n], s, w.norm[c])
	}
}
