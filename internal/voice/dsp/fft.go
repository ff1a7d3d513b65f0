package dsp

import (
	"math"
	"math/bits"
)

// fft is an iterative complex FFT of one size: radix-4 passes (one radix-2
// pass first when the size is an odd power of two), twiddles laid out in the
// order each pass reads them. The bit-reversal permutation is left to the
// caller, which can write its input in that order as it builds it.
type fft struct {
	n   int
	rev []int32
	tw  [][]complex128 // per radix-4 pass of span q: W^k, W^2k, W^3k for k < q, W = e^{-2πi/4q}
}

func newFFT(n int) *fft {
	f := &fft{n: n, rev: make([]int32, n)}
	shift := bits.UintSize - bits.TrailingZeros(uint(n))
	for i := range f.rev {
		f.rev[i] = int32(bits.Reverse(uint(i)) >> shift)
	}
	for q := f.firstSpan(); 4*q <= n; q *= 4 {
		tw := make([]complex128, 3*q)
		for k := 0; k < q; k++ {
			for j := 1; j <= 3; j++ {
				s, c := math.Sincos(-2 * math.Pi * float64(j*k) / float64(4*q))
				tw[3*k+j-1] = complex(c, s)
			}
		}
		f.tw = append(f.tw, tw)
	}
	return f
}

// firstSpan is the length of the sub-transforms the first radix-4 pass combines.
func (f *fft) firstSpan() int {
	if bits.TrailingZeros(uint(f.n))%2 == 1 {
		return 2
	}
	return 1
}

// transform replaces x, given in natural order, by its DFT.
func (f *fft) transform(x []complex128) {
	for i, j := range f.rev {
		if i < int(j) {
			x[i], x[j] = x[j], x[i]
		}
	}
	f.reversed(x)
}

// reversed replaces x, given in bit-reversed order, by its DFT in natural order.
func (f *fft) reversed(x []complex128) {
	x = x[:f.n]
	if f.firstSpan() == 2 {
		for i := 0; i+1 < len(x); i += 2 {
			a, b := x[i], x[i+1]
			x[i], x[i+1] = a+b, a-b
		}
	}
	q := f.firstSpan()
	for _, tw := range f.tw {
		for s := 0; s < len(x); s += 4 * q {
			// In bit-reversed order the four sub-transforms hold the inputs
			// whose index is 0, 2, 1 and 3 mod 4.
			x0, x2, x1, x3 := x[s:s+q], x[s+q:s+2*q], x[s+2*q:s+3*q], x[s+3*q:s+4*q]
			tw := tw[:3*len(x0)]
			for k := range x0 {
				b0, b1, b2, b3 := x0[k], x1[k]*tw[3*k], x2[k]*tw[3*k+1], x3[k]*tw[3*k+2]
				s02, d02, s13, d13 := b0+b2, b0-b2, b1+b3, b1-b3
				d13 = complex(imag(d13), -real(d13)) // ·(-i)
				x0[k], x1[k] = s02+s13, s02-s13
				x2[k], x3[k] = d02+d13, d02-d13
			}
		}
		q *= 4
	}
}

// swap exchanges the real and imaginary parts: the inverse DFT of X is
// swap(DFT(swap(X))), so one forward transform serves both directions.
func swap(z complex128) complex128 { return complex(imag(z), real(z)) }

// fftFilter is a long linear-phase FIR low-pass applied by overlap-save
// convolution, two real blocks per complex transform. Its output is aligned
// with its input (the filter's delay is dropped) and as long as its input.
type fftFilter struct {
	f       *fft
	h       []complex128 // spectrum of the filter, scaled by 1/n for the inverse
	taps    int
	hop     int
	delay   int
	hist    []float32 // the last taps-1 inputs before pend
	pend    []float32
	z       []complex128
	nIn     int64
	nOut    int64
	skipped int
}

func newFFTFilter(h []float64) *fftFilter {
	// Four times the filter's length keeps the overlap at a quarter of each
	// block; any longer and the log n of the transform costs more than the
	// shorter overlap saves, and the block (16 bytes a point) falls out of
	// the L1 cache.
	n := 1024
	for n < 4*len(h) {
		n <<= 1
	}
	f := &fftFilter{f: newFFT(n), taps: len(h), hop: n - len(h) + 1, delay: (len(h) - 1) / 2,
		hist: make([]float32, len(h)-1), z: make([]complex128, n), h: make([]complex128, n)}
	for i, v := range h {
		f.h[i] = complex(v/float64(n), 0)
	}
	f.f.transform(f.h)
	return f
}

func (f *fftFilter) process(in []float32, out []float32) []float32 {
	f.nIn += int64(len(in))
	f.pend = append(f.pend, in...)
	done := 0
	for len(f.pend)-done >= 2*f.hop {
		out = f.blocks(f.pend[done:done+2*f.hop], out)
		done += 2 * f.hop
	}
	f.pend = f.pend[:copy(f.pend, f.pend[done:])]
	return out
}

func (f *fftFilter) flush(out []float32) []float32 {
	f.pend = append(f.pend, make([]float32, f.delay)...)
	for len(f.pend) > 0 {
		blk := make([]float32, 2*f.hop)
		n := copy(blk, f.pend)
		f.pend = f.pend[n:]
		out = f.blocks(blk, out)
	}
	return out
}

// blocks filters 2·hop new samples: the first hop in the real part, the next in the imaginary part.
func (f *fftFilter) blocks(x []float32, out []float32) []float32 {
	m, hop, n := f.taps-1, f.hop, f.f.n
	rev := f.f.rev[:n]
	z := f.z[:n]
	// the first block is hist then x[:hop]; the second block's history is the
	// end of the first block, so it is x[hop-m : hop-m+n]
	second := x[hop-m : hop-m+n]
	for i, v := range f.hist {
		z[rev[i]] = complex(float64(v), float64(second[i]))
	}
	for i := m; i < n; i++ {
		z[rev[i]] = complex(float64(x[i-m]), float64(second[i]))
	}
	copy(f.hist, x[2*hop-m:])
	f.f.reversed(z)
	// multiply by the filter's spectrum, swap for the inverse and permute,
	// in place: the permutation is made of pairs
	h := f.h[:n]
	for i, j := range rev {
		if j := int(j); i < j {
			z[i], z[j] = swap(z[j]*h[j]), swap(z[i]*h[i])
		} else if i == j {
			z[i] = swap(z[i] * h[i])
		}
	}
	f.f.reversed(z)
	y := z
	// y is now the swapped inverse transform: the first block's output in
	// the imaginary parts, the second's in the real parts
	for part := 0; part < 2; part++ {
		from := m
		if skip := f.delay - f.skipped; skip > 0 {
			k := min(skip, n-m)
			f.skipped += k
			from += k
		}
		k := int(min(int64(n-from), f.nIn-f.nOut))
		for _, v := range y[from : from+k] {
			if part == 0 {
				out = append(out, float32(imag(v)))
			} else {
				out = append(out, float32(real(v)))
			}
		}
		f.nOut += int64(k)
	}
	return out
}
