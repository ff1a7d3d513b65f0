package dsp

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

// TestRealFFT: the same coefficients as gonum's real FFT, and back.
func TestRealFFT(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{8, 64, 512} {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		want := fourier.NewFFT(n).Coefficients(nil, x)
		f := newRealFFT(n)
		got := f.forward(x, nil)
		for k := range want {
			if cmplx.Abs(got[k]-want[k]) > 1e-9 {
				t.Fatalf("n=%d: X[%d] = %v, want %v", n, k, got[k], want[k])
			}
		}
		back := f.inverse(got, nil)
		for i := range x {
			if math.Abs(back[i]-x[i]) > 1e-9 {
				t.Fatalf("n=%d: x[%d] = %v, want %v", n, i, back[i], x[i])
			}
		}
	}
}

func BenchmarkRealFFT512(b *testing.B) {
	f := newRealFFT(512)
	x := make([]float64, 512)
	var c []complex128
	for range b.N {
		c = f.forward(x, c)
		x = f.inverse(c, x)
	}
}

func BenchmarkGonumFFT512(b *testing.B) {
	f := fourier.NewFFT(512)
	x := make([]float64, 512)
	var c []complex128
	for range b.N {
		c = f.Coefficients(c, x)
		x = f.Sequence(x, c)
	}
}
