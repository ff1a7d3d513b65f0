package aac

import (
	"math"
	"math/bits"
)

// imdct computes y[n] = scale · Σ_k X[k] cos(2π/N (n + N/4 + ½)(k + ½)),
// n = 0…N−1, for N/2 = M coefficients X: a DCT-IV of length M, done as an
// M/2-point complex FFT between two twiddles, then unfolded by the DCT-IV's
// symmetries.
type imdct struct {
	m     int
	pre   []complex128 // e^{-iπ(j+⅛)/M} · scale (pre- and post-twiddle alike)
	post  []complex128
	fft   fft
	buf   []complex128
	u     []float64
	scale float64
}

func newIMDCT(m int, scale float64) *imdct {
	d := &imdct{m: m, fft: newFFT(m / 2), buf: make([]complex128, m/2), u: make([]float64, m), scale: scale}
	d.pre = make([]complex128, m/2)
	d.post = make([]complex128, m/2)
	for j := range d.pre {
		a := -math.Pi * (float64(j) + 0.125) / float64(m)
		d.pre[j] = complex(math.Cos(a), math.Sin(a))
		d.post[j] = complex(math.Cos(a)*scale, math.Sin(a)*scale)
	}
	return d
}

// run writes the N = 2M outputs of x (M coefficients) into y.
func (d *imdct) run(x []float32, y []float64) {
	m := d.m
	h := m / 2
	u := d.dct4(x)
	// unfold: y[n] = u[n+M/2] for n < M/2; −u[3M/2−1−n] for M/2 ≤ n < 3M/2; −u[n−3M/2] after
	for n := 0; n < h; n++ {
		y[n] = u[n+h]
	}
	for n := h; n < 3*h; n++ {
		y[n] = -u[3*h-1-n]
	}
	for n := 3 * h; n < 2*m; n++ {
		y[n] = -u[n-3*h]
	}
}

// dct4 returns the scaled DCT-IV of x (M values), u[m] = scale·Σ_k x[k] cos(π/M (m+½)(k+½)).
func (d *imdct) dct4(x []float32) []float64 {
	return d.dct4k(x, hasFFTKernel)
}

// dct4k is dct4 with the AVX2 twiddles and FFT stages (kernel) or the Go
// ones, the reference.
func (d *imdct) dct4k(x []float32, kernel bool) []float64 {
	m := d.m
	h := m / 2
	z := d.buf
	rev := d.fft.rev[:h]
	x = x[:m]
	if kernel {
		preTwiddleAVX2(&x[0], m, &d.pre[0], &rev[0], &z[0])
	} else {
		for j := 0; j < h; j++ {
			z[rev[j]] = complex(float64(x[2*j]), float64(x[m-1-2*j])) * d.pre[j]
		}
	}
	d.fft.run2(z, kernel)
	u := d.u
	if kernel {
		postTwiddleAVX2(&z[0], &d.post[0], &u[0], h)
		return u
	}
	for p := 0; p < h; p++ {
		w := z[p] * d.post[p]
		u[2*p] = real(w)
		u[m-1-2*p] = -imag(w)
	}
	return u
}

// fft is an in-place radix-2 complex FFT (forward, e^{-2πi jk/n}) whose
// input is already in bit-reversed order (the IMDCT's pre-twiddle writes it
// so); the first two stages are one twiddle-free radix-4 pass.
type fft struct {
	n     int
	rev   []int32
	tw    [][]complex128 // per stage of size 2^s: its half-size twiddles, contiguous
	twAll []complex128   // the same, the stage of half size h at [h:2h] (the AVX2 kernel's)
}

func newFFT(n int) fft {
	f := fft{n: n, rev: make([]int32, n)}
	lg := bits.TrailingZeros(uint(n))
	for i := range f.rev {
		f.rev[i] = int32(bits.Reverse32(uint32(i)) >> (32 - lg))
	}
	f.tw = make([][]complex128, lg+1)
	for s := 1; s <= lg; s++ {
		size := 1 << s
		t := make([]complex128, size/2)
		for k := range t {
			a := -2 * math.Pi * float64(k) / float64(size)
			t[k] = complex(math.Cos(a), math.Sin(a))
		}
		f.tw[s] = t
	}
	f.twAll = make([]complex128, n)
	for s := 1; s <= lg; s++ {
		copy(f.twAll[len(f.tw[s]):], f.tw[s])
	}
	return f
}

// run2 transforms z in place with the AVX2 stages (kernel) or the Go ones,
// the reference.
func (f *fft) run2(z []complex128, kernel bool) {
	n := f.n
	z = z[:n]
	if kernel && n >= 8 {
		fftStagesAVX2(&z[0], n, &f.twAll[0])
		return
	}
	for i := 0; i+3 < n; i += 4 {
		q := z[i : i+4 : i+4]
		t0, t1 := q[0]+q[1], q[0]-q[1]
		t2, t3 := q[2]+q[3], q[2]-q[3]
		t3 = complex(imag(t3), -real(t3)) // ·(−i)
		q[0], q[2] = t0+t2, t0-t2
		q[1], q[3] = t1+t3, t1-t3
	}
	for s, size := 3, 8; size <= n; s, size = s+1, size<<1 {
		half := size >> 1
		tw := f.tw[s][:half]
		for start := 0; start < n; start += size {
			a := z[start : start+half]
			b := z[start+half : start+size]
			b = b[:len(a)]
			tw := tw[:len(a)]
			for k := range a {
				br, bi := real(b[k]), imag(b[k])
				wr, wi := real(tw[k]), imag(tw[k])
				t := complex(br*wr-bi*wi, br*wi+bi*wr)
				b[k] = a[k] - t
				a[k] += t
			}
		}
	}
}

// windows: the rising half of the sine and Kaiser–Bessel-derived windows,
// long (1024 values) and short (128).
type windows struct {
	long  [2][]float64 // [shape] 0 sine, 1 KBD
	short [2][]float64
}

func newWindows() *windows {
	w := &windows{}
	for i, n := range []int{2048, 256} {
		sine := make([]float64, n/2)
		for k := range sine {
			sine[k] = math.Sin(math.Pi / float64(n) * (float64(k) + 0.5))
		}
		alpha := 4.0
		if n == 256 {
			alpha = 6
		}
		kbd := kbdWindow(n, alpha)
		if i == 0 {
			w.long = [2][]float64{sine, kbd}
		} else {
			w.short = [2][]float64{sine, kbd}
		}
	}
	return w
}

func kbdWindow(n int, alpha float64) []float64 {
	h := n / 2
	k := make([]float64, h+1)
	for j := range k {
		x := 2*float64(j)/float64(h) - 1
		k[j] = besselI0(math.Pi * alpha * math.Sqrt(1-x*x))
	}
	var total float64
	for _, v := range k {
		total += v
	}
	w := make([]float64, h)
	var sum float64
	for j := 0; j < h; j++ {
		sum += k[j]
		w[j] = math.Sqrt(sum / total)
	}
	return w
}

func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 50; k++ {
		term *= (x / 2) / float64(k)
		sum += term * term
	}
	return sum
}
