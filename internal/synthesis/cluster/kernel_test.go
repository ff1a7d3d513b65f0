package cluster

import (
	"github.com/helixhq/helix/internal/f32"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKernelMatchesGonum compares the SIMD kernel with gonum's Sgemm on
// shapes with odd rows, ragged column tiles and padded dimensions.
func TestKernelMatchesGonum(t *testing.T) {
	if !hasKernel {
		t.Log("no AVX2/FMA on this CPU: only the gonum path runs")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range [][3]int{{1, 1, 3}, {3, 7, 13}, {17, 130, 384}, {64, 67, 1536}} {
		na, nb, d := shape[0], shape[1], shape[2]
		a, b := NewEmpty(na, d), NewEmpty(nb, d)
		row := make([]float32, d)
		for _, m := range []*Matrix{a, b} {
			for i := range m.N {
				for k := range row {
					row[k] = float32(rng.NormFloat64())
				}
				m.SetRow(i, row)
			}
		}
		got := make([]float32, na*nb)
		want := make([]float32, na*nb)
		products(a.X, b.X, a.Stride, got, nb)
		saved := hasKernel
		hasKernel = false
		products(a.X, b.X, a.Stride, want, nb)
		hasKernel = saved
		for i := range got {
			if math.Abs(float64(got[i]-want[i])) > 1e-5 {
				t.Fatalf("%v: product %d = %v, gonum %v", shape, i, got[i], want[i])
			}
		}
	}
}

// TestKernelsMatchGo checks the kernels that stand in for Go loops against
// those loops bit for bit: a tile's last one to three columns against
// f32.Dot, addWiden against dst[i] += float64(src[i]), and dots4x4 against
// a float64 dot product added in order.
func TestKernelsMatchGo(t *testing.T) {
	if !hasKernel {
		t.Skip("no AVX2/FMA on this CPU: the kernels do not run")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, shape := range [][3]int{{1, 1, 8}, {1, 3, 16}, {2, 2, 64}, {3, 7, 384}, {5, 66, 1536}, {4, 130, 104}} {
		na, nb, d := shape[0], shape[1], shape[2]
		a, b := NewEmpty(na, d), NewEmpty(nb, d)
		row := make([]float32, d)
		for _, m := range []*Matrix{a, b} {
			for i := range m.N {
				for k := range row {
					row[k] = float32(rng.NormFloat64())
				}
				m.SetRow(i, row)
			}
		}
		got := make([]float32, na*nb)
		products(a.X, b.X, a.Stride, got, nb)
		for i := range na {
			// columns past the last whole group of four in their tile of 64
			for j := nb &^ 3; j < nb; j++ {
				t0 := j / tile * tile
				if j < t0+(min(t0+tile, nb)-t0)&^3 {
					continue
				}
				want := f32.Dot(a.row(i), b.row(j))
				if math.Float32bits(got[i*nb+j]) != math.Float32bits(want) {
					t.Fatalf("%v: product (%d,%d) = %v, f32.Dot %v", shape, i, j, got[i*nb+j], want)
				}
			}
		}
		dst := make([]float64, d)
		want := make([]float64, d)
		for i := range nb {
			addWiden(&dst[0], &b.row(i)[0], d)
			for k, v := range b.row(i) {
				want[k] += float64(v)
			}
		}
		for k := range dst {
			if math.Float64bits(dst[k]) != math.Float64bits(want[k]) {
				t.Fatalf("%v: addWiden [%d] = %v, want %v", shape, k, dst[k], want[k])
			}
		}
		s := make([]float64, 4*d)
		for k := range s {
			s[k] = rng.NormFloat64() * 10
		}
		var out [16]float64
		x := [4][]float32{a.row(0), a.row(min(1, na-1)), b.row(0), b.row(nb - 1)}
		dots4x4(&x[0][0], &x[1][0], &x[2][0], &x[3][0], &s[0], d, &out)
		for r := range 4 {
			for c := range 4 {
				var want float64
				for k, v := range x[r] {
					want += float64(v) * s[4*k+c]
				}
				if math.Float64bits(out[4*r+c]) != math.Float64bits(want) {
					t.Fatalf("%v: dots4x4 (%d,%d) = %v, want %v", shape, r, c, out[4*r+c], want)
				}
			}
		}
	}
}

// TestMaxIntoMatchesGo checks assignGram's running maximum with the kernels
// against the Go loop it stands for, on values with ties, NaNs and infinities
// (the first of equal values wins, a NaN never does).
func TestMaxIntoMatchesGo(t *testing.T) {
	if !hasKernel {
		t.Skip("no AVX2/FMA on this CPU: the kernels do not run")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 0.5}
	for _, n := range []int{1, 3, 4, 7, 8, 100, 101} {
		best, at := make([]float64, n), make([]int64, n)
		wbest, wat := make([]float64, n), make([]int64, n)
		for i := range n {
			best[i], wbest[i] = math.Inf(-1), math.Inf(-1)
		}
		for c := range 12 {
			s64 := make([]float64, n)
			s32 := make([]float32, n)
			for i := range n {
				v := math.Round(rng.NormFloat64()*4) / 4 // ties are common
				if rng.IntN(8) == 0 {
					v = special[rng.IntN(len(special))]
				}
				s64[i], s32[i] = v, float32(v)
			}
			if c%2 == 0 {
				maxInto(best, at, s32, c)
			} else {
				maxInto(best, at, s64, c)
			}
			for i := range n {
				v := s64[i]
				if c%2 == 0 {
					v = float64(s32[i])
				}
				if v > wbest[i] {
					wbest[i], wat[i] = v, int64(c)
				}
			}
			for i := range n {
				if math.Float64bits(best[i]) != math.Float64bits(wbest[i]) || at[i] != wat[i] {
					t.Fatalf("n=%d after cluster %d: point %d best %v at %d, want %v at %d", n, c, i, best[i], at[i], wbest[i], wat[i])
				}
			}
		}
	}
}

// TestSymmetricGramMatchesProducts: the Gram matrix taken a pair at a time
// equals products(X, X) bit for bit, for every N mod 4 (the last columns
// come from the other kernel) and padded rows.
func TestSymmetricGramMatchesProducts(t *testing.T) {
	if !hasKernel {
		t.Skip("no AVX2/FMA on this CPU: the kernels do not run")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, shape := range [][2]int{{1, 8}, {2, 16}, {3, 64}, {4, 8}, {5, 100}, {7, 384}, {8, 1536}, {97, 1536}, {100, 1536}, {101, 64}, {102, 40}, {103, 1536}, {symmetricMax, 24}} {
		n, d := shape[0], shape[1]
		m := NewEmpty(n, d)
		row := make([]float32, d)
		for i := range n {
			for k := range row {
				row[k] = float32(rng.NormFloat64())
			}
			m.SetRow(i, row)
		}
		want := make([]float32, n*n)
		products(m.X, m.X, m.Stride, want, n)
		got := m.Gram()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n=%d d=%d: G[%d][%d] = %v, products %v", n, d, i/n, i%n, got[i], want[i])
			}
		}
	}
}

// TestRowKernelsMatchGo checks the kernels behind the row normalisation,
// the silhouette's x·x, the k-means sums and quotients against the Go loops
// they stand for, bit for bit: InPlace against SetRow (sums of squares four
// rows at a time), sumSquares against a float64 sum in order, subRow and
// divInto against -= and /.
func TestRowKernelsMatchGo(t *testing.T) {
	if !hasKernel {
		t.Skip("no AVX2/FMA on this CPU: the kernels do not run")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, shape := range [][2]int{{1, 8}, {3, 16}, {4, 8}, {5, 1536}, {9, 384}, {100, 1536}} {
		n, d := shape[0], shape[1]
		x := make([]float32, n*d)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * math.Exp(rng.NormFloat64()*3))
		}
		want := NewEmpty(n, d)
		for i := range n {
			want.SetRow(i, x[i*d:(i+1)*d])
		}
		got := InPlace(slices.Clone(x), n, d)
		for i := range want.X {
			if math.Float32bits(got.X[i]) != math.Float32bits(want.X[i]) {
				t.Fatalf("%v: InPlace [%d] = %v, SetRow %v", shape, i, got.X[i], want.X[i])
			}
		}
		ss := make([]float64, n)
		got.sumSquares(ss)
		for i := range n {
			var w float64
			for _, v := range got.row(i) {
				w += float64(v) * float64(v)
			}
			if math.Float64bits(ss[i]) != math.Float64bits(w) {
				t.Fatalf("%v: sumSquares [%d] = %v, want %v", shape, i, ss[i], w)
			}
		}
		for _, m := range []int{1, 7, 8, 13, 100, 101} {
			s, w := make([]float64, m), make([]float64, m)
			row := make([]float32, m)
			for i := range m {
				s[i] = rng.NormFloat64() * 50
				w[i] = s[i]
				row[i] = float32(rng.NormFloat64())
			}
			subRow(s, row)
			for i := range m {
				w[i] -= float64(row[i])
			}
			div := rng.Float64()*3 + 0.1
			q := make([]float64, m)
			divInto(q, s, div)
			for i := range m {
				if math.Float64bits(s[i]) != math.Float64bits(w[i]) {
					t.Fatalf("subRow (%d) [%d] = %v, want %v", m, i, s[i], w[i])
				}
				if want := s[i] / div; math.Float64bits(q[i]) != math.Float64bits(want) {
					t.Fatalf("divInto (%d) [%d] = %v, want %v", m, i, q[i], want)
				}
			}
		}
	}
}
