// Package cluster groups L2-normalised vectors by cosine distance: DBSCAN and
// HDBSCAN as scikit-learn and the hdbscan library define them, and spherical
// k-means++. Similarities come a block of rows at a time (one matrix
// product per block), so no n×n matrix is ever held.
package cluster

import (
	"context"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Noise is the label of points that belong to no cluster.
const Noise = -1

// Matrix holds n L2-normalised rows of d dimensions, row-major, each row
// padded with zeros to a multiple of 8 floats (Stride) for the SIMD kernel.
type Matrix struct {
	N, D, Stride int
	X            []float32

	// gram caches X·Xᵀ (n×n) once something asked for it: the k-distances,
	// DBSCAN and N-space k-means of one user all compute the same products
	// (issue 50), and the product is the same call each time, bit for bit.
	// Rows must not change after it is taken.
	gram []float32
}

// NewMatrix copies rows into a Matrix, scaling each to unit length. A zero
// row stays zero: its cosine similarity to everything is 0, as in scikit-learn.
func NewMatrix(rows [][]float32) *Matrix {
	d := 0
	if len(rows) > 0 {
		d = len(rows[0])
	}
	m := NewEmpty(len(rows), d)
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return m
}

// NewEmpty allocates an n×d matrix to be filled with SetRow.
func NewEmpty(n, d int) *Matrix {
	s := (d + 7) &^ 7
	return &Matrix{N: n, D: d, Stride: s, X: make([]float32, n*s)}
}

// SetRow stores row i, normalised.
func (m *Matrix) SetRow(i int, r []float32) {
	var ss float64
	for _, v := range r {
		ss += float64(v) * float64(v)
	}
	m.setScaled(i, r, ss)
}

// setScaled stores r scaled to unit length, ss being Σ r_k² in float64.
func (m *Matrix) setScaled(i int, r []float32, ss float64) {
	inv := float32(0)
	if ss > 0 {
		inv = float32(1 / math.Sqrt(ss))
	}
	dst := m.row(i)
	for k, v := range r {
		dst[k] = v * inv
	}
}

// sumSquares sets ss[r] = Σ_k float64(x[r][k])² over rows [0, len(ss)) of
// m (each row's whole stride, in order), as SetRow and the silhouette
// add them; four rows at a time with the kernel, bit for bit.
func (m *Matrix) sumSquares(ss []float64) {
	s := m.Stride
	r := 0
	if hasKernel && s >= 4 {
		var out [4]float64
		for ; r+4 <= len(ss); r += 4 {
			sumSquares4(&m.X[r*s], &m.X[(r+1)*s], &m.X[(r+2)*s], &m.X[(r+3)*s], s&^3, &out)
			for q := range 4 {
				for _, v := range m.row(r + q)[s&^3:] {
					out[q] += float64(v) * float64(v)
				}
			}
			copy(ss[r:r+4], out[:])
		}
	}
	for ; r < len(ss); r++ {
		var a float64
		for _, v := range m.row(r) {
			a += float64(v) * float64(v)
		}
		ss[r] = a
	}
}

func (m *Matrix) row(i int) []float32 { return m.X[i*m.Stride : (i+1)*m.Stride] }

// Row copies row i into dst (len D).
func (m *Matrix) Row(i int, dst []float32) { copy(dst, m.row(i)[:m.D]) }

// blockRows keeps a block of similarities near 32 MB.
func (m *Matrix) blockRows() int {
	return min(max(8<<20/max(m.N, 1), 64), 1024)
}

// upperBlocks calls fn for each block of rows [a,b) with sims, the
// (b-a)×(N-a) similarities between those rows and rows a..N-1 (stride N-a).
// Together the blocks cover every pair i<j once (and the diagonal).
func (m *Matrix) upperBlocks(ctx context.Context, fn func(a, b int, sims []float32, stride int)) error {
	br := m.blockRows()
	if m.N <= br {
		// one block: the whole product, the very call Gram makes
		if err := ctx.Err(); err != nil {
			return err
		}
		fn(0, m.N, m.Gram(), m.N)
		return nil
	}
	c := make([]float32, br*m.N)
	for lo := 0; lo < m.N; lo += br {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+br, m.N)
		width := m.N - lo
		products(m.X[lo*m.Stride:hi*m.Stride], m.X[lo*m.Stride:], m.Stride, c[:(hi-lo)*width], width)
		fn(lo, hi, c[:(hi-lo)*width], width)
	}
	return nil
}

// Gram returns X·Xᵀ, n×n row-major, computed on the first call and kept:
// the caller must not change it, nor the rows after the call.
func (m *Matrix) Gram() []float32 {
	if m.gram == nil {
		m.gram = make([]float32, m.N*m.N)
		if hasKernel && m.N <= symmetricMax {
			m.symmetricGram()
		} else {
			products(m.X, m.X, m.Stride, m.gram, m.N)
		}
	}
	return m.gram
}

// symmetricMax is the most rows whose Gram matrix symmetricGram computes,
// on one goroutine; larger ones are spread over the CPUs by products.
const symmetricMax = 512

// symmetricGram sets m.gram to what products(X, X) gives, bit for bit,
// computing each pair once. dot2x4 gives a_i·b_j and a_j·b_i the same bits
// (lane by lane the same FMAs of the same products, then the same sums),
// and so does dotLanes2x3 (products rounded, then added in the same order),
// but the two kernels differ: products takes the last N mod 4 columns with
// dotLanes2x3, so those columns, and the rows past the last group of four
// against the other columns, are taken as products takes them.
func (m *Matrix) symmetricGram() {
	n, s, g := m.N, m.Stride, m.gram
	n4 := n &^ 3
	var out [8]float32
	for i := 0; i < n4; i += 2 {
		a0, a1 := m.X[i*s:(i+1)*s], m.X[(i+1)*s:(i+2)*s]
		for j := i &^ 3; j < n4; j += 4 {
			dot2x4(&a0[0], &a1[0], &m.X[j*s], &m.X[(j+1)*s], &m.X[(j+2)*s], &m.X[(j+3)*s], s, &out)
			copy(g[i*n+j:i*n+j+4], out[:4])
			copy(g[(i+1)*n+j:(i+1)*n+j+4], out[4:])
		}
	}
	for i := range n4 {
		for j := range i &^ 3 {
			g[i*n+j] = g[j*n+i]
		}
	}
	if n4 == n {
		return
	}
	// the last columns, for every row, and the last rows' first columns
	tail := make([]float32, n*(n-n4))
	products(m.X[:n*s], m.X[n4*s:n*s], s, tail, n-n4)
	for i := range n {
		copy(g[i*n+n4:(i+1)*n], tail[i*(n-n4):(i+1)*(n-n4)])
	}
	if n4 > 0 {
		products(m.X[n4*s:n*s], m.X[:n4*s], s, g[n4*n:], n)
	}
}

// simsTo computes the similarities of row i to every row into dst (len N).
func (m *Matrix) simsTo(i int, dst []float32) {
	products(m.row(i), m.X, m.Stride, dst, m.N)
}

// products sets c[i*ldc+j] = a_i·b_j for the rows of a and b (both with
// the given stride), spreading columns over the CPUs.
func products(a, b []float32, stride int, c []float32, ldc int) {
	na, nb := len(a)/stride, len(b)/stride
	if !hasKernel {
		impl.Sgemm(blas.NoTrans, blas.Trans, na, nb, stride, 1, a, stride, b, stride, 0, c, ldc)
		return
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, na*nb/4096))
	if workers == 1 {
		productsRange(a, b, stride, c, ldc, 0, nb)
		return
	}
	// Column ranges in multiples of 4 so each worker keeps whole kernel tiles.
	per := ((nb+workers-1)/workers + 3) &^ 3
	var wg sync.WaitGroup
	for lo := 0; lo < nb; lo += per {
		hi := min(lo+per, nb)
		wg.Go(func() { productsRange(a, b, stride, c, ldc, lo, hi) })
	}
	wg.Wait()
}

// impl is the portable path: gonum's BLAS, for CPUs without AVX2 and FMA.
var impl gonum.Implementation

// tile is how many columns of b are reused against every row of a before
// moving on: 64 rows of b stay in L2 while a streams past.
const tile = 64

func productsRange(a, b []float32, stride int, c []float32, ldc, jlo, jhi int) {
	na := len(a) / stride
	var out [8]float32
	var lanes [24]float32
	for t := jlo; t < jhi; t += tile {
		te := min(t+tile, jhi)
		for i := 0; i < na; i += 2 {
			a0 := a[i*stride : (i+1)*stride]
			a1 := a0
			if i+1 < na {
				a1 = a[(i+1)*stride : (i+2)*stride]
			}
			j := t
			for ; j+4 <= te; j += 4 {
				dot2x4(&a0[0], &a1[0], &b[j*stride], &b[(j+1)*stride], &b[(j+2)*stride], &b[(j+3)*stride], stride, &out)
				copy(c[i*ldc+j:i*ldc+j+4], out[:4])
				if i+1 < na {
					copy(c[(i+1)*ldc+j:(i+1)*ldc+j+4], out[4:])
				}
			}
			if j < te { // one to three columns left: f32.Dot's result, bit for bit
				b0 := &b[j*stride]
				b1, b2 := b0, b0
				if j+1 < te {
					b1 = &b[(j+1)*stride]
				}
				if j+2 < te {
					b2 = &b[(j+2)*stride]
				}
				dotLanes2x3(&a0[0], &a1[0], b0, b1, b2, stride, &lanes)
				for q := range te - j {
					l := lanes[8*q : 8*q+4]
					c[i*ldc+j+q] = (l[0] + l[1]) + (l[2] + l[3])
					if i+1 < na {
						l = lanes[8*q+4 : 8*q+8]
						c[(i+1)*ldc+j+q] = (l[0] + l[1]) + (l[2] + l[3])
					}
				}
			}
		}
	}
}

// dist is scikit-learn's cosine distance from a similarity, clipped to [0, 2].
func dist(s float32) float64 {
	return min(max(1-float64(s), 0), 2)
}

// InPlace makes a Matrix of the n×d rows in x (d a multiple of 8),
// normalising them in x itself: the caller's vectors become unit vectors.
func InPlace(x []float32, n, d int) *Matrix {
	m := &Matrix{N: n, D: d, Stride: d, X: x[:n*d]}
	ss := make([]float64, n)
	m.sumSquares(ss)
	for i := range n {
		m.setScaled(i, m.row(i), ss[i])
	}
	return m
}
