package dsp

import (
	"math"
	"math/cmplx"
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

// TestFFTMatchesDFT checks the radix-4 passes (and the radix-2 pass of odd
// powers of two) against the definition.
func TestFFTMatchesDFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{2, 4, 8, 16, 32, 64, 512, 1024} {
		x := make([]complex128, n)
		for i := range x {
			x[i] = complex(rng.Float64()*2-1, rng.Float64()*2-1)
		}
		y := append([]complex128(nil), x...)
		newFFT(n).transform(y)
		var worst float64
		for k := range y {
			var s complex128
			for j, v := range x {
				sn, cs := math.Sincos(-2 * math.Pi * float64(j*k%n) / float64(n))
				s += v * complex(cs, sn)
			}
			worst = math.Max(worst, cmplx.Abs(s-y[k]))
		}
		if worst > 1e-12*float64(n) {
			t.Errorf("n=%d: largest difference from the DFT %.3g", n, worst)
		}
	}
}
