// Package cluster groups L2-normalised vectors by cosine distance: DBSCAN and
// HDBSCAN as scikit-learn and the hdbscan library define them, and spherical
// k-means++. Distances come from blocks of one gonum matrix multiply, so no
// n×n matrix is ever held.
package cluster

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Noise is the label of points that belong to no cluster.
const Noise = -1

// Matrix holds n L2-normalised rows of d dimensions, stored transposed
// (d×n, row-major): gonum's Sgemm is three times faster with a
// non-transposed right operand, and one copy of the data keeps memory at n·d·4 bytes.
type Matrix struct {
	N, D int
	T    []float32 // T[k*N+i] is dimension k of row i
}

// NewMatrix copies rows into a Matrix, scaling each to unit length. A zero
// row stays zero: its cosine similarity to everything is 0, as in scikit-learn.
func NewMatrix(rows [][]float32) *Matrix {
	n := len(rows)
	d := 0
	if n > 0 {
		d = len(rows[0])
	}
	m := &Matrix{N: n, D: d, T: make([]float32, n*d)}
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return m
}

// NewEmpty allocates an n×d matrix to be filled with SetRow.
func NewEmpty(n, d int) *Matrix { return &Matrix{N: n, D: d, T: make([]float32, n*d)} }

// SetRow stores row i, normalised.
func (m *Matrix) SetRow(i int, r []float32) {
	var ss float64
	for _, v := range r {
		ss += float64(v) * float64(v)
	}
	inv := float32(0)
	if ss > 0 {
		inv = float32(1 / math.Sqrt(ss))
	}
	for k, v := range r {
		m.T[k*m.N+i] = v * inv
	}
}

// Row copies row i into dst (len D).
func (m *Matrix) Row(i int, dst []float32) {
	for k := range dst {
		dst[k] = m.T[k*m.N+i]
	}
}

var impl gonum.Implementation

// blockRows keeps a block of similarities near 32 MB.
func (m *Matrix) blockRows() int {
	return min(max(8<<20/max(m.N, 1), 64), 1024)
}

// upperBlocks calls fn for each block of rows [a,b) with sims, the
// (b-a)×(N-a) similarities between those rows and rows a..N-1 (stride N-a).
// Together the blocks cover every pair i<j once (and the diagonal).
func (m *Matrix) upperBlocks(ctx context.Context, fn func(a, b int, sims []float32, stride int)) error {
	br := m.blockRows()
	a := make([]float32, br*m.D)
	c := make([]float32, br*m.N)
	for lo := 0; lo < m.N; lo += br {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+br, m.N)
		rows, width := hi-lo, m.N-lo
		for i := lo; i < hi; i++ {
			m.Row(i, a[(i-lo)*m.D:(i-lo+1)*m.D])
		}
		impl.Sgemm(blas.NoTrans, blas.NoTrans, rows, width, m.D, 1, a, m.D, m.T[lo:], m.N, 0, c, width)
		fn(lo, hi, c[:rows*width], width)
	}
	return nil
}

// simsTo computes the similarities of row i to every row into dst (len N).
func (m *Matrix) simsTo(i int, row, dst []float32) {
	m.Row(i, row)
	impl.Sgemv(blas.Trans, m.D, m.N, 1, m.T, m.N, row, 1, 0, dst, 1)
}

// dist is scikit-learn's cosine distance from a similarity, clipped to [0, 2].
func dist(s float32) float64 {
	return min(max(1-float64(s), 0), 2)
}
