package aac

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// TestFFTKernelMatchesGo runs the FFT with the AVX2/FMA stages and with the Go
// ones over the same random input, for every size the IMDCTs use (and a few
// more), and checks both against the DFT's definition: within 1e-12 of the
// input's magnitude (float64 all through; the kernel fuses multiply-adds, so
// it may differ from Go in the last bits, not more). A wrong twiddle, stage or
// block is off by about the magnitude itself.
func TestFFTKernelMatchesGo(t *testing.T) {
	if !hasFFTKernel {
		t.Skip("no AVX2/FMA on this CPU: the Go FFT is the only one")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{8, 16, 32, 64, 128, 256, 512} {
		f := newFFT(n)
		in := make([]complex128, n)
		var mag float64
		for i := range in {
			in[i] = complex(rng.NormFloat64(), rng.NormFloat64())
			mag += cmplx.Abs(in[i])
		}
		// fft.run takes its input in bit-reversed order
		zGo, zAsm := make([]complex128, n), make([]complex128, n)
		for i := range in {
			zGo[f.rev[i]] = in[i]
		}
		copy(zAsm, zGo)
		f.run2(zGo, false)
		f.run2(zAsm, true)
		var worst float64
		for k := 0; k < n; k++ {
			var want complex128
			for j := range in {
				want += in[j] * cmplx.Exp(complex(0, -2*math.Pi*float64(j*k%n)/float64(n)))
			}
			eGo, eAsm := cmplx.Abs(zGo[k]-want), cmplx.Abs(zAsm[k]-want)
			if eGo > 1e-12*mag || eAsm > 1e-12*mag {
				t.Fatalf("n=%d, bin %d: definition %v, Go %v, AVX2 %v", n, k, want, zGo[k], zAsm[k])
			}
			worst = max(worst, eAsm/mag)
		}
		t.Logf("n=%d: largest AVX2 error %.2g of Σ|x|", n, worst)
	}
}

// TestWindowKernelsMatchGo runs the only-long windowing and overlap-add in
// AVX2/FMA and in Go over the same random block, window halves and overlap:
// the new overlap within 1e-15 (float64; the kernel fuses multiply-adds) and
// the float32 output within one float32 rounding; then the stereo
// interleaving of the two outputs (f32.Interleave2), exactly.
func TestWindowKernelsMatchGo(t *testing.T) {
	if !hasFFTKernel {
		t.Skip("no AVX2/FMA on this CPU: the Go windowing is the only one")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var u, left, right, ov [1024]float64
	for i := range u {
		u[i], left[i], right[i], ov[i] = rng.NormFloat64(), rng.Float64(), rng.Float64(), rng.NormFloat64()
	}
	ovGo, ovAsm := ov, ov
	var oGo, oAsm [1024]float32
	longWindowGo(&u, &left, &right, &ovGo, &oGo)
	longWindowAVX2(&u, &left, &right, &ovAsm, &oAsm)
	for i := range ovGo {
		if math.Abs(ovGo[i]-ovAsm[i]) > 1e-15 {
			t.Fatalf("overlap %d: Go %v, AVX2 %v", i, ovGo[i], ovAsm[i])
		}
		if d := math.Abs(float64(oGo[i] - oAsm[i])); d > math.Abs(float64(oGo[i]))*0x1p-23 {
			t.Fatalf("output %d: Go %v, AVX2 %v", i, oGo[i], oAsm[i])
		}
	}
	out := make([]float32, 2048)
	interleave(&oGo, &oAsm, out)
	for n := range oGo {
		if out[2*n] != oGo[n] || out[2*n+1] != oAsm[n] {
			t.Fatalf("interleaved %d: %v %v, want %v %v", n, out[2*n], out[2*n+1], oGo[n], oAsm[n])
		}
	}
}

// TestDCT4KernelMatchesGo runs the whole DCT-IV (pre-twiddle, FFT,
// post-twiddle) with the AVX2 kernels and in Go, for both IMDCT sizes, on
// random coefficients: within 1e-12 of Σ|x| (float64 all through).
func TestDCT4KernelMatchesGo(t *testing.T) {
	if !hasFFTKernel {
		t.Skip("no AVX2/FMA on this CPU: the Go DCT-IV is the only one")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, m := range []int{128, 1024} {
		d := newIMDCT(m, 1.5)
		x := make([]float32, m)
		var mag float64
		for i := range x {
			x[i] = float32(rng.NormFloat64())
			mag += math.Abs(float64(x[i]))
		}
		want := append([]float64(nil), d.dct4k(x, false)...)
		got := d.dct4k(x, true)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12*mag {
				t.Fatalf("M=%d, u[%d]: AVX2 %v, Go %v", m, i, got[i], want[i])
			}
		}
	}
}
