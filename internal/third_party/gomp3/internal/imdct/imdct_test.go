package imdct

import (
	"math"
	"math/rand"
	"testing"
)

// TestWinToMatchesWin checks the fast IMDCT (18-point DCT-IV through a 9-point
// DFT) against upstream's direct 36-point sum for every block type.
func TestWinToMatchesWin(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for trial := 0; trial < 100; trial++ {
		var in [18]float32
		for i := range in {
			in[i] = float32(r.NormFloat64())
		}
		for bt := 0; bt < 4; bt++ {
			want := Win(in[:], bt)
			var got [36]float32
			WinTo(&got, &in, bt)
			for i := range got {
				if math.Abs(float64(got[i]-want[i])) > 1e-4 {
					t.Fatalf("block type %d, sample %d: %g, upstream %g", bt, i, got[i], want[i])
				}
			}
		}
	}
}

// TestLongKernelMatchesGo runs LongOverlapAdd's AVX2/FMA kernel and the Go
// reference (WinTo plus the overlap-add) over the same random lines and
// overlap, for the three long block types and 1 to 32 subbands, and checks
// every line and every stored value: within 1e-5 of the reference (the sums
// of 18 products of numbers of about 1, in float32 in another order), and
// nothing outside the n subbands is touched.
func TestLongKernelMatchesGo(t *testing.T) {
	if !hasLongKernel {
		t.Skip("no AVX2/FMA on this CPU: the Go IMDCT is the only one")
	}
	r := rand.New(rand.NewSource(2))
	var worst float64
	for _, bt := range []int{0, 1, 3} {
		for n := 1; n <= 32; n++ {
			var in [576 + 18]float32
			var store [33][18]float32
			for i := range in {
				in[i] = float32(r.NormFloat64())
			}
			for i := range store {
				for j := range store[i] {
					store[i][j] = float32(r.NormFloat64())
				}
			}
			in2, store2 := in, store
			LongOverlapAdd(in[:], store[:n], bt)
			longOverlapAddGo(in2[:], store2[:n], bt)
			for i := range in {
				d := math.Abs(float64(in[i] - in2[i]))
				worst = max(worst, d)
				if d > 1e-5 || (i >= 18*n && in[i] != in2[i]) {
					t.Fatalf("block type %d, %d subbands, line %d: kernel %g, Go %g", bt, n, i, in[i], in2[i])
				}
			}
			for i := range store {
				for j := range store[i] {
					d := math.Abs(float64(store[i][j] - store2[i][j]))
					worst = max(worst, d)
					if d > 1e-5 || (i >= n && store[i][j] != store2[i][j]) {
						t.Fatalf("block type %d, %d subbands, overlap %d/%d: kernel %g, Go %g", bt, n, i, j, store[i][j], store2[i][j])
					}
				}
			}
		}
	}
	t.Logf("largest difference %.2g", worst)
}
