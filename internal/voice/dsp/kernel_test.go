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
	for _, k := range []int{32, 64, 288} {
		const phases, n = 5, 1000
		taps, buf := noise(phases*k), noise(n+k)
		at, ph := make([]int32, n), make([]int32, n)
		for i := range at {
			at[i], ph[i] = int32(rng.IntN(n)), int32(rng.IntN(phases))
		}
		got, want := make([]float32, n), make([]float32, n)
		polyDots(got, buf, taps, at, ph, k)
		polyDotsGo(want, buf, taps, at, ph, k)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("polyphase k=%d: output %d is %v, Go %v", k, i, got[i], want[i])
			}
		}
	}
}

// TestResamplerWithoutKernel checks that the Go path, which a CPU without AVX
// (or another architecture) runs, gives the kernels' output exactly.
func TestResamplerWithoutKernel(t *testing.T) {
	x := tone(44100, 997, 0.5, 44100)
	for i := range x {
		x[i] += float32(i%7) * 1e-3
	}
	with := resampleAll(t, 44100, 16000, x)
	saved := hasKernel
	hasKernel = false
	without := resampleAll(t, 44100, 16000, x)
	hasKernel = saved
	if len(with) != len(without) {
		t.Fatalf("%d samples with the kernels, %d without", len(with), len(without))
	}
	for i := range with {
		if with[i] != without[i] {
			t.Fatalf("sample %d is %v with the kernels, %v without", i, with[i], without[i])
		}
	}
}
