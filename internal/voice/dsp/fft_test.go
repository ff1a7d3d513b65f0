package dsp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFFTFilterMatchesDirectConvolution streams noise through the overlap-save
// filter in uneven blocks and compares it with the plain centred convolution.
func TestFFTFilterMatchesDirectConvolution(t *testing.T) {
	h := lowpass(22050, 7000, 8000, 100)
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 20000)
	for i := range x {
		x[i] = float32(rng.Float64()*2 - 1)
	}
	f := newFFTFilter(h)
	var y []float32
	for i := 0; i < len(x); {
		n := min(len(x)-i, 1+rng.IntN(5000))
		y = f.process(x[i:i+n], y)
		i += n
	}
	y = f.flush(y)
	if len(y) != len(x) {
		t.Fatalf("%d outputs for %d inputs", len(y), len(x))
	}
	c := (len(h) - 1) / 2
	var worst float64
	for n := range x {
		var s float64
		for k, v := range h {
			if j := n + c - k; j >= 0 && j < len(x) {
				s += v * float64(x[j])
			}
		}
		worst = math.Max(worst, math.Abs(s-float64(y[n])))
	}
	if worst > 1e-5 {
		t.Errorf("largest difference from direct convolution %.3g", worst)
	}
}
