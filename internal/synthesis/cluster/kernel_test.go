package cluster

import (
	"math"
	"math/rand/v2"
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
