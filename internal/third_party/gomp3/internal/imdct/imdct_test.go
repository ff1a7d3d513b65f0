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
