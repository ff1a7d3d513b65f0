package dsp

import "math"

// realFFT is the DFT of n real samples through helix's complex FFT of n/2
// points (even samples as real parts, odd as imaginary), about twice as fast
// as a complex transform of n; the denoiser and the VAD run one per frame.
type realFFT struct {
	n  int
	c  *fft
	w  []complex128 // e^{-2πik/n}, k ≤ n/2
	z  []complex128
	zs []complex128
}

func newRealFFT(n int) *realFFT {
	m := n / 2
	r := &realFFT{n: n, c: newFFT(m), w: make([]complex128, m+1), z: make([]complex128, m), zs: make([]complex128, m)}
	for k := range r.w {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		r.w[k] = complex(c, s)
	}
	return r
}

// forward writes the n/2+1 coefficients of x (len n) to out.
func (r *realFFT) forward(x []float64, out []complex128) []complex128 {
	m := r.n / 2
	for k := range m {
		r.z[r.c.rev[k]] = complex(x[2*k], x[2*k+1])
	}
	r.c.reversed(r.z)
	out = grow(out, m+1)
	for k := 0; k <= m; k++ {
		zk, zm := r.z[k%m], r.z[(m-k)%m]
		czm := complex(real(zm), -imag(zm))
		s, d := zk+czm, zk-czm
		e := complex(real(s)/2, imag(s)/2)
		o := complex(imag(d)/2, -real(d)/2) // (zk - conj(zm)) / 2i
		out[k] = e + r.w[k]*o
	}
	return out
}

// inverse writes the n real samples whose coefficients (n/2+1 of them) are c.
func (r *realFFT) inverse(c []complex128, out []float64) []float64 {
	m := r.n / 2
	for k := range m {
		xk, xm := c[k], c[m-k]
		cxm := complex(real(xm), -imag(xm))
		s, d := xk+cxm, xk-cxm
		e := complex(real(s)/2, imag(s)/2)
		wk := r.w[k]
		o := complex(real(d)/2, imag(d)/2) * complex(real(wk), -imag(wk)) // ÷ W^k
		zk := e + complex(-imag(o), real(o))                              // e + i·o
		// inverse by the forward transform: IDFT(Z) = swap(DFT(swap(Z)))/m
		r.zs[r.c.rev[k]] = swap(zk)
	}
	r.c.reversed(r.zs)
	out = grow(out, r.n)
	scale := 1 / float64(m)
	for k := range m {
		v := r.zs[k]
		out[2*k], out[2*k+1] = imag(v)*scale, real(v)*scale // swap back
	}
	return out
}

// grow returns x resized to n, reusing its array when it is large enough.
func grow[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n)
	}
	return x[:n]
}
