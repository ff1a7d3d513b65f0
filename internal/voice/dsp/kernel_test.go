package dsp

import (
	"math/rand/v2"
	"testing"
)

// TestKernelsMatchGo holds the AVX kernels to the Go loops they stand in
// for, bit for bit, on lengths with ragged ends and on the resampler's own
// filters; without it a kernel that adds in another order would still pass
// the quality tests and give other bytes on a machine without AVX.
func TestKernelsMatchGo(t *testing.T) {
	if !hasKernel {
		t.Skip("no AVX on this CPU: only the Go loops run")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	noise := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	for _, nj := range []int{1, 8, 14, 16} {
		for _, n := range []int{31, 32, 33, 100, 4099} {
			g, e, o := noise(nj), noise(n), noise(n+2*nj-1)
			got, want := make([]float32, n), make([]float32, n)
			halfBandRun(got, e, o, 0.5, g)
			halfBandGo(want, e, o, 0.5, g)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("half-band J=%d n=%d: output %d is %v, Go %v", nj, n, i, got[i], want[i])
				}
			}
		}
	}
	// a stage's outputs: output n reads phase t mod l from input t/l, t = n·m + c
	for _, r := range [][3]int{{16, 2, 3}, {32, 1, 2}, {288, 320, 441}, {272, 3, 4}} {
		k, l, m := r[0], r[1], r[2]
		n := 5*l + 7 // runs of 4·l outputs and a ragged end
		taps, buf := noise(l*k), noise(n*m/l+k+8)
		at, ph := make([]int32, n), make([]int32, n)
		for i := range at {
			t := i*m + 5
			at[i], ph[i] = int32(t/l), int32(t%l)
		}
		got, want := make([]float32, n), make([]float32, n)
		polyDots(got, buf, taps, at, ph, k, l, m) // reads the first period of at and ph
		polyDotsGo(want, buf, taps, at, ph, k, 0)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("polyphase k=%d %d/%d: output %d is %v, Go %v", k, l, m, i, got[i], want[i])
			}
		}
	}
}

// TestResamplerWithoutKernel checks that the Go loops, which a CPU without
// AVX (or another architecture) runs, give the kernels' output exactly, on
// both designs and on rates whose stages have other phase counts.
func TestResamplerWithoutKernel(t *testing.T) {
	if !hasKernel {
		t.Skip("no AVX on this CPU: only the Go loops run")
	}
	bothDesigns(t, func(t *testing.T) {
		for _, in := range []int{44100, 48000, 32000, 22050} {
			x := tone(in, 997, 0.5, in/2)
			for i := range x {
				x[i] += float32(i%7) * 1e-3
			}
			with := resampleAll(t, in, 16000, x)
			hasKernel = false
			without := resampleAll(t, in, 16000, x)
			hasKernel = true
			if len(with) != len(without) {
				t.Fatalf("%d: %d samples with the kernels, %d without", in, len(with), len(without))
			}
			for i := range with {
				if with[i] != without[i] {
					t.Fatalf("%d: sample %d is %v with the kernels, %v without", in, i, with[i], without[i])
				}
			}
		}
	})
}
