package dsp

import "math"

// HighPass is a fourth-order Butterworth high-pass filter (two biquads,
// 24 dB/octave) that removes rumble and DC below its corner frequency.
type HighPass struct{ s [2]biquad }

type biquad struct {
	b0, b1, b2, a1, a2 float64
	x1, x2, y1, y2     float64
}

// NewHighPass designs the filter for corner Hz at rate Hz.
func NewHighPass(corner float64, rate int) *HighPass {
	w := 2 * math.Pi * corner / float64(rate)
	cw, sw := math.Cos(w), math.Sin(w)
	var f HighPass
	// the two pole pairs of a 4th-order Butterworth: Q = 1/(2 cos(π/8)), 1/(2 cos(3π/8))
	for i, q := range []float64{0.54119610, 1.30656296} {
		alpha := sw / (2 * q)
		a0 := 1 + alpha
		f.s[i] = biquad{
			b0: (1 + cw) / 2 / a0, b1: -(1 + cw) / a0, b2: (1 + cw) / 2 / a0,
			a1: -2 * cw / a0, a2: (1 - alpha) / a0,
		}
	}
	return &f
}

// Process filters x in place.
func (f *HighPass) Process(x []float32) {
	for i, v := range x {
		y := float64(v)
		for j := range f.s {
			b := &f.s[j]
			in := y
			y = b.b0*in + b.b1*b.x1 + b.b2*b.x2 - b.a1*b.y1 - b.a2*b.y2
			b.x2, b.x1 = b.x1, in
			b.y2, b.y1 = b.y1, y
		}
		x[i] = float32(y)
	}
}

// Downmix averages interleaved frames of ch channels into mono, appending to out.
func Downmix(in []float32, ch int, out []float32) []float32 {
	if ch == 1 {
		return append(out, in...)
	}
	inv := 1 / float32(ch)
	for i := 0; i+ch <= len(in); i += ch {
		var s float32
		for c := 0; c < ch; c++ {
			s += in[i+c]
		}
		out = append(out, s*inv)
	}
	return out
}

// Dither quantises to 16-bit PCM with triangular (TPDF) dither of ±1 LSB, so
// that quiet passages turn into faint noise rather than correlated distortion.
// The generator is seeded so the same input always gives the same bytes.
type Dither struct{ s uint64 }

// NewDither returns a dither with a fixed seed.
func NewDither() *Dither { return &Dither{s: 0x9E3779B97F4A7C15} }

func (d *Dither) next() float32 {
	d.s ^= d.s << 13
	d.s ^= d.s >> 7
	d.s ^= d.s << 17
	return float32(d.s>>40) / float32(1<<24)
}

// Quantize appends the 16-bit little-endian PCM of x (full scale ±1) to out.
func (d *Dither) Quantize(x []float32, gain float32, out []byte) []byte {
	for _, v := range x {
		s := v*gain*32767 + (d.next() - d.next())
		q := int32(math.Floor(float64(s) + 0.5))
		q = max(-32768, min(32767, q))
		out = append(out, byte(q), byte(q>>8))
	}
	return out
}
