package dsp

import (
	"math"
	"math/bits"
)

// fft is an iterative radix-2 complex FFT of one size.
type fft struct {
	n   int
	tw  []complex128 // e^{-2πik/n}, k < n/2
	rev []int
}

func newFFT(n int) *fft {
	f := &fft{n: n, tw: make([]complex128, n/2), rev: make([]int, n)}
	for k := range f.tw {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		f.tw[k] = complex(c, s)
	}
	shift := bits.UintSize - bits.TrailingZeros(uint(n))
	for i := range f.rev {
		f.rev[i] = int(bits.Reverse(uint(i)) >> shift)
	}
	return f
}

// transform replaces x by its DFT (inverse: the unscaled inverse DFT).
func (f *fft) transform(x []complex128, inverse bool) {
	for i, j := range f.rev {
		if i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	for size := 2; size <= f.n; size <<= 1 {
		half, step := size/2, f.n/size
		for start := 0; start < f.n; start += size {
			for k := 0; k < half; k++ {
				w := f.tw[k*step]
				if inverse {
					w = complex(real(w), -imag(w))
				}
				a, b := x[start+k], x[start+k+half]*w
				x[start+k], x[start+k+half] = a+b, a-b
			}
		}
	}
}

// fftFilter is a long linear-phase FIR low-pass applied by overlap-save
// convolution, two real blocks per complex transform. Its output is aligned
// with its input (the filter's delay is dropped) and as long as its input.
type fftFilter struct {
	f       *fft
	h       []complex128 // spectrum of the filter, scaled by 1/n for the inverse
	taps    int
	hop     int
	delay   int
	hist    []float64 // the last taps-1 inputs before pend
	pend    []float32
	z       []complex128
	nIn     int64
	nOut    int64
	skipped int
}

func newFFTFilter(h []float64) *fftFilter {
	n := 1024
	for n < 8*len(h) {
		n <<= 1
	}
	f := &fftFilter{f: newFFT(n), taps: len(h), hop: n - len(h) + 1, delay: (len(h) - 1) / 2,
		hist: make([]float64, len(h)-1), z: make([]complex128, n), h: make([]complex128, n)}
	for i, v := range h {
		f.h[i] = complex(v/float64(n), 0)
	}
	f.f.transform(f.h, false)
	return f
}

func (f *fftFilter) process(in []float32, out []float32) []float32 {
	f.nIn += int64(len(in))
	f.pend = append(f.pend, in...)
	for len(f.pend) >= 2*f.hop {
		out = f.blocks(f.pend[:2*f.hop], out)
		f.pend = f.pend[:copy(f.pend, f.pend[2*f.hop:])]
	}
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
	m := f.taps - 1
	z := f.z
	for i, v := range f.hist {
		z[i] = complex(v, 0)
	}
	for i := 0; i < f.hop; i++ {
		z[m+i] = complex(float64(x[i]), 0)
	}
	// the second block's history is the end of the first block
	for i := 0; i < m; i++ {
		var v float64
		if j := f.hop - m + i; j >= 0 {
			v = float64(x[j])
		} else {
			v = f.hist[len(f.hist)+j]
		}
		z[i] = complex(real(z[i]), v)
	}
	for i := 0; i < f.hop; i++ {
		z[m+i] = complex(real(z[m+i]), float64(x[f.hop+i]))
	}
	for i := 0; i < m; i++ {
		f.hist[i] = float64(x[2*f.hop-m+i])
	}
	f.f.transform(z, false)
	for i := range z {
		z[i] *= f.h[i]
	}
	f.f.transform(z, true)
	for part := 0; part < 2; part++ {
		for i := m; i < len(z); i++ {
			if f.skipped < f.delay {
				f.skipped++
				continue
			}
			if f.nOut >= f.nIn {
				return out
			}
			v := real(z[i])
			if part == 1 {
				v = imag(z[i])
			}
			out = append(out, float32(v))
			f.nOut++
		}
	}
	return out
}
