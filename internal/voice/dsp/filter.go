package dsp

import (
	"encoding/binary"
	"math"
	"slices"
)

// HighPass is a fourth-order Butterworth high-pass filter (two biquads,
// 24 dB/octave) that removes rumble and DC below its corner frequency.
type HighPass struct {
	s      [2]section
	x1, x2 float64 // the last two inputs
	y1, y2 float64 // the first section's last two outputs, the second's inputs
	z1, z2 float64 // the last two outputs
}

// section is a high-pass biquad: y[n] = g·(x[n] - 2x[n-1] + x[n-2]) - a1·y[n-1] - a2·y[n-2].
type section struct{ g, a1, a2 float64 }

// NewHighPass designs the filter for corner Hz at rate Hz.
func NewHighPass(corner float64, rate int) *HighPass {
	w := 2 * math.Pi * corner / float64(rate)
	cw, sw := math.Cos(w), math.Sin(w)
	var f HighPass
	// the two pole pairs of a 4th-order Butterworth: Q = 1/(2 cos(π/8)), 1/(2 cos(3π/8))
	for i, q := range []float64{0.54119610, 1.30656296} {
		alpha := sw / (2 * q)
		a0 := 1 + alpha
		f.s[i] = section{g: (1 + cw) / 2 / a0, a1: -2 * cw / a0, a2: (1 - alpha) / a0}
	}
	return &f
}

// Process filters x in place. Coefficients and state live in registers
// through the loop (twelve of them: the numerator is g·(1, -2, 1), and the
// second section's inputs are the first's outputs), and each output adds the
// previous output's term last, so that the chain from one sample to the next
// is one multiply and one subtraction; the two sections' chains overlap.
func (f *HighPass) Process(x []float32) {
	g, a1, a2 := f.s[0].g, f.s[0].a1, f.s[0].a2
	h, b1, b2 := f.s[1].g, f.s[1].a1, f.s[1].a2
	x1, x2, y1, y2, z1, z2 := f.x1, f.x2, f.y1, f.y2, f.z1, f.z2
	for i, v := range x {
		in := float64(v)
		y := g*(in-2*x1+x2) - a2*y2 - a1*y1
		z := h*(y-2*y1+y2) - b2*z2 - b1*z1
		x1, x2, y1, y2, z1, z2 = in, x1, y, y1, z, z1
		x[i] = float32(z)
	}
	f.x1, f.x2, f.y1, f.y2, f.z1, f.z2 = x1, x2, y1, y2, z1, z2
}

// Downmix averages interleaved frames of ch channels into mono, appending to out.
func Downmix(in []float32, ch int, out []float32) []float32 {
	switch ch {
	case 1:
		return append(out, in...)
	case 2: // most recordings: one pass without the inner loop
		n := len(out)
		out = slices.Grow(out, len(in)/2)[:n+len(in)/2]
		for i, o := 0, out[n:]; i < len(o); i++ {
			o[i] = (in[2*i] + in[2*i+1]) * 0.5
		}
		return out
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

// tpdf is the difference of two uniform 24-bit draws, both taken from one
// step of the generator (bits 40–63 and 16–39), in LSBs: triangular on (-1, 1).
func (d *Dither) tpdf() float64 {
	var v float64
	d.s, v = tpdfStep(d.s)
	return v
}

// tpdfStep is tpdf on a generator state: the state after the step and the draw.
func tpdfStep(s uint64) (uint64, float64) {
	s ^= s << 13
	s ^= s >> 7
	s ^= s << 17
	return s, float64(int32(s>>40)-int32(s>>16&(1<<24-1))) / (1 << 24)
}

// Quantize appends the 16-bit little-endian PCM of x (full scale ±1) to out.
// The generator's state lives in a local through the loop: through d it
// went to memory and back every sample, in the chain that sets the pace.
func (d *Dither) Quantize(x []float32, gain float32, out []byte) []byte {
	n := len(out)
	out = slices.Grow(out, 2*len(x))[:n+2*len(x)]
	b := out[n:]
	st := d.s
	for i, v := range x {
		var tpdf float64
		st, tpdf = tpdfStep(st)
		// round half up, by truncating a positive number (NaN goes to -32768)
		s := float64(v*gain*32767) + tpdf + 0.5
		var q int32
		switch {
		case s >= 32767:
			q = 32767
		case s > -32768:
			q = int32(s+32768) - 32768
		default:
			q = -32768
		}
		binary.LittleEndian.PutUint16(b[2*i:], uint16(q))
	}
	d.s = st
	return out
}
