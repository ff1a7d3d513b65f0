// Package dsp holds the signal processing helix voice applies between
// decoding and transcription: a polyphase band-limited resampler, a high-pass
// filter, downmixing and TPDF dither to 16 bits.
package dsp

import (
	"fmt"
	"math"
)

// ResamplerSpec is the quality a Resampler is designed for.
type ResamplerSpec struct {
	// Attenuation is the stopband rejection A in dB.
	Attenuation float64
	// Bandwidth is the passband edge as a fraction of the lower Nyquist frequency.
	Bandwidth float64
}

// DefaultSpec matches sox's `rate -h`: 95% bandwidth, 125 dB rejection.
var DefaultSpec = ResamplerSpec{Attenuation: 125, Bandwidth: 0.95}

// Resampler converts a stream of mono samples from one rate to another by an
// exact rational ratio L/M, with a Kaiser-windowed sinc designed at L·in Hz and
// split into L phases so that only the taps that hit real input are computed.
// Its output is aligned with its input: the filter's delay is compensated.
type Resampler struct {
	l, m   int
	k      int         // taps per phase
	c      int64       // centre of the prototype filter
	phases [][]float32 // phases[p][i] multiplies buf[jmax-k+1+i]
	buf    []float32   // input; buf[0] is input index base
	base   int64
	n      int64 // next output index
	nIn    int64 // input samples seen
	done   bool
}

// NewResampler designs a resampler from inRate to outRate Hz.
func NewResampler(inRate, outRate int, spec ResamplerSpec) (*Resampler, error) {
	if inRate <= 0 || outRate <= 0 {
		return nil, fmt.Errorf("resample: bad rates %d → %d", inRate, outRate)
	}
	g := gcd(inRate, outRate)
	l, m := outRate/g, inRate/g
	if l > 4096 {
		return nil, fmt.Errorf("resample: ratio %d/%d is too fine (at most 4096 phases)", l, m)
	}
	protoRate := float64(l) * float64(inRate)
	nyq := float64(min(inRate, outRate)) / 2
	fp, fs := spec.Bandwidth*nyq, nyq
	delta := (fs - fp) / protoRate // transition width, cycles per prototype sample
	a := spec.Attenuation
	beta := 0.0
	switch {
	case a > 50:
		beta = 0.1102 * (a - 8.7)
	case a >= 21:
		beta = 0.5842*math.Pow(a-21, 0.4) + 0.07886*(a-21)
	}
	n := int(math.Ceil((a-7.95)/(2.285*2*math.Pi*delta))) + 1
	k := (n + l - 1) / l
	np := k * l
	if np%2 == 0 {
		np-- // odd length: the centre falls on a sample
	}
	c := (np - 1) / 2
	fc := (fp + fs) / 2 / protoRate // cutoff, cycles per prototype sample
	h := make([]float64, k*l)
	i0b := besselI0(beta)
	for i := 0; i < np; i++ {
		x := float64(i - c)
		r := 2 * x / float64(np-1)
		w := besselI0(beta*math.Sqrt(max(0, 1-r*r))) / i0b
		h[i] = 2 * fc * sinc(2*fc*x) * w * float64(l)
	}
	phases := make([][]float32, l)
	for p := range phases {
		ph := make([]float32, k)
		for i := 0; i < k; i++ {
			ph[k-1-i] = float32(h[p+i*l])
		}
		phases[p] = ph
	}
	return &Resampler{
		l: l, m: m, k: k, c: int64(c), phases: phases,
		buf: make([]float32, k), base: -int64(k), // k zeros before the first sample
	}, nil
}

// Ratio is L/M, the exact output/input rate ratio in lowest terms.
func (r *Resampler) Ratio() (l, m int) { return r.l, r.m }

// TapsPerPhase is the filter length at the input rate.
func (r *Resampler) TapsPerPhase() int { return r.k }

// Process consumes in and appends the outputs it makes possible to out.
func (r *Resampler) Process(in []float32, out []float32) []float32 {
	r.buf = append(r.buf, in...)
	r.nIn += int64(len(in))
	return r.run(out, r.base+int64(len(r.buf)))
}

// Flush ends the stream: it pads with silence and returns the remaining outputs,
// so that the total output length is round(inputs·L/M).
func (r *Resampler) Flush(out []float32) []float32 {
	if r.done {
		return out
	}
	r.done = true
	total := (r.nIn*int64(r.l) + int64(r.m)/2) / int64(r.m)
	r.buf = append(r.buf, make([]float32, r.k)...)
	out = r.run(out, r.base+int64(len(r.buf)))
	if over := r.n - total; over > 0 {
		out = out[:len(out)-int(over)]
	}
	return out
}

// run emits outputs whose newest input index is below avail.
func (r *Resampler) run(out []float32, avail int64) []float32 {
	l, m, k := int64(r.l), int64(r.m), r.k
	for {
		t := r.n*m + r.c
		jmax := t / l
		if jmax >= avail {
			break
		}
		start := int(jmax - int64(k) + 1 - r.base)
		out = append(out, dot(r.phases[t%l], r.buf[start:start+k]))
		r.n++
	}
	// drop input no later output needs
	need := (r.n*m+r.c)/l - int64(k) + 1
	if drop := int(need - r.base); drop > 0 && drop <= len(r.buf) && drop > len(r.buf)/2 {
		n := copy(r.buf, r.buf[drop:])
		r.buf = r.buf[:n]
		r.base += int64(drop)
	}
	return out
}

func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// besselI0 is the zeroth-order modified Bessel function of the first kind.
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 500; k++ {
		term *= (x / 2) / float64(k)
		t2 := term * term
		sum += t2
		if t2 < sum*1e-17 {
			break
		}
	}
	return sum
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
