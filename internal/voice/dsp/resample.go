// Package dsp holds the signal processing helix voice applies between
// decoding and transcription: a polyphase band-limited resampler, a high-pass
// filter, downmixing and TPDF dither to 16 bits.
package dsp

import (
	"fmt"
	"math"
	"slices"
)

// ResamplerSpec is the quality a Resampler is designed for.
type ResamplerSpec struct {
	// Attenuation is the stopband rejection A in dB.
	Attenuation float64
	// Bandwidth is where the response is 3 dB down, as a fraction of the lower
	// Nyquist frequency (sox's definition); the stopband starts at Nyquist.
	Bandwidth float64
}

// directStage makes the steep low-pass and the rate change one polyphase
// stage (265 taps a phase at 44.1 kHz, after the half-band step) where the
// vector kernels run it: they load each tap once for four outputs, and it
// costs 0.65 of the FFT low-pass with a 30-tap polyphase step after it. In
// plain Go it costs 3.4 times as much, so there the FFT design stays.
var directStage = hasKernel

// DefaultSpec matches sox's `rate -h`: 95% bandwidth, 125 dB rejection.
var DefaultSpec = ResamplerSpec{Attenuation: 125, Bandwidth: 0.95}

// Resampler converts a stream of mono samples from one rate to another by an
// exact rational ratio L/M, with Kaiser-windowed sinc filters split into
// polyphase branches so that only the taps that hit real input are computed.
// When the input is more than twice the output rate, half-band decimate-by-2
// stages run first (their stopband only has to start where their aliases
// would reach the final band, so their passband can reach its edge and half
// their taps are zero). When downsampling, one polyphase stage then makes the
// steep low-pass and the rate change together (directStage), or the steep
// low-pass runs by FFT overlap-save convolution and the rational step after
// it only has to reject images, with a few taps. The output is aligned with
// the input: each filter's delay is compensated.
type Resampler struct {
	stages []filterStage
	l, m   int
	nIn    int64
	nOut   int64
	done   bool
	tmp    [2][]float32 // Process's scratch, alternate stages' outputs
}

// filterStage is one step of a Resampler.
type filterStage interface {
	process(in, out []float32) []float32
	flush(out []float32) []float32
}

// stage is one polyphase FIR resampler.
type stage struct {
	l, m   int
	k      int       // taps per phase, a multiple of 16 (zeros first)
	c      int64     // centre of the prototype filter
	phases []float32 // phases[p·k+i] multiplies buf[jmax-k+1+i]
	buf    []float32 // input; buf[0] is input index base
	base   int64
	n      int64   // next output index
	nIn    int64   // input samples seen
	at, ph []int32 // run's scratch: each output's first input and phase
}

// NewResampler designs a resampler from inRate to outRate Hz.
func NewResampler(inRate, outRate int, spec ResamplerSpec) (*Resampler, error) {
	if inRate <= 0 || outRate <= 0 {
		return nil, fmt.Errorf("resample: bad rates %d → %d", inRate, outRate)
	}
	g := gcd(inRate, outRate)
	r := &Resampler{l: outRate / g, m: inRate / g}
	nyq := float64(min(inRate, outRate)) / 2
	// A Kaiser-windowed sinc is 3 dB down about 0.58 of the way from its
	// stopband edge to its passband edge: place the passband edge so that the
	// -3 dB point lands at Bandwidth (95% → flat to 91.5%, -3 dB at 95.1%).
	fp := nyq * (1 - 1.7*(1-spec.Bandwidth))
	rate := inRate
	// Halving down to exactly outRate is left to the steep filter below: a
	// 2:1 stage of its own had its -3 dB point at 93% (32 kHz → 16 kHz).
	for rate%2 == 0 && rate/2 > outRate {
		r.stages = append(r.stages, newHalfBand(float64(rate), nyq, spec.Attenuation))
		rate /= 2
	}
	fs := nyq
	if rate > outRate && !directStage {
		// Without the vector kernels the steep low-pass runs first, at this
		// rate, by FFT convolution; the polyphase step after it then only has
		// to reject the images of an already band-limited signal, which takes
		// a few taps.
		r.stages = append(r.stages, newFFTFilter(lowpass(float64(rate), fp, nyq, spec.Attenuation)))
		fp, fs = nyq, float64(rate)-nyq
	}
	st, err := newStage(rate, outRate, fp, fs, spec.Attenuation)
	if err != nil {
		return nil, err
	}
	r.stages = append(r.stages, st)
	return r, nil
}

// kaiserBeta is the Kaiser window's β for a stopband attenuation of a dB.
func kaiserBeta(a float64) float64 {
	switch {
	case a > 50:
		return 0.1102 * (a - 8.7)
	case a >= 21:
		return 0.5842*math.Pow(a-21, 0.4) + 0.07886*(a-21)
	}
	return 0
}

// kaiserTaps is the filter length for attenuation a and a transition of delta cycles per sample.
func kaiserTaps(a, delta float64) int {
	return int(math.Ceil((a-7.95)/(2.285*2*math.Pi*delta))) + 1
}

// kaiserSinc fills h[:np] (np odd) with a windowed sinc of cutoff fc cycles per sample, times gain.
func kaiserSinc(h []float64, np int, fc, beta, gain float64) {
	c := (np - 1) / 2
	i0b := besselI0(beta)
	// symmetric about c: half the Bessel functions (a 44.1 kHz stage has 87,000 taps)
	for i := 0; i <= c; i++ {
		x := float64(i - c)
		r := 2 * x / float64(np-1)
		w := besselI0(beta*math.Sqrt(max(0, 1-r*r))) / i0b
		h[i] = 2 * fc * sinc(2*fc*x) * w * gain
		h[np-1-i] = h[i]
	}
}

// lowpass designs an odd-length low-pass at rate Hz, flat to fp, a dB down from fs.
func lowpass(rate, fp, fs, a float64) []float64 {
	np := kaiserTaps(a, (fs-fp)/rate) | 1
	h := make([]float64, np)
	kaiserSinc(h, np, (fp+fs)/2/rate, kaiserBeta(a), 1)
	return h
}

// newStage designs one polyphase stage with passband edge fp and stopband edge fs (Hz).
func newStage(inRate, outRate int, fp, fs, a float64) (*stage, error) {
	g := gcd(inRate, outRate)
	l, m := outRate/g, inRate/g
	if l > 4096 {
		return nil, fmt.Errorf("resample: ratio %d/%d is too fine (at most 4096 phases)", l, m)
	}
	protoRate := float64(l) * float64(inRate)
	n := kaiserTaps(a, (fs-fp)/protoRate)
	k := (n + l - 1) / l
	np := k * l
	if np%2 == 0 {
		np-- // odd length: the centre falls on a sample
	}
	c := (np - 1) / 2
	h := make([]float64, k*l)
	kaiserSinc(h, np, (fp+fs)/2/protoRate, kaiserBeta(a), float64(l))
	// each phase padded with leading zeros to a multiple of 16 taps: two
	// vector registers' width, so that the kernels have no ragged end
	kp := (k + 15) &^ 15
	phases := make([]float32, l*kp)
	for p := 0; p < l; p++ {
		ph := phases[p*kp : (p+1)*kp]
		for i := 0; i < k; i++ {
			ph[kp-1-i] = float32(h[p+i*l])
		}
	}
	return &stage{
		l: l, m: m, k: kp, c: int64(c), phases: phases,
		buf: make([]float32, kp), base: -int64(kp), // k zeros before the first sample
	}, nil
}

// Ratio is L/M, the exact output/input rate ratio in lowest terms.
func (r *Resampler) Ratio() (l, m int) { return r.l, r.m }

// Process consumes in and appends the outputs it makes possible to out.
func (r *Resampler) Process(in []float32, out []float32) []float32 {
	r.nIn += int64(len(in))
	last := len(r.stages) - 1
	for i, st := range r.stages[:last] {
		// a stage reads the previous one's scratch and writes the other
		r.tmp[i%2] = st.process(in, r.tmp[i%2][:0])
		in = r.tmp[i%2]
	}
	n := len(out)
	out = r.stages[last].process(in, out)
	r.nOut += int64(len(out) - n)
	return out
}

// Flush ends the stream: it pads with silence and returns the remaining outputs,
// so that the total output length is round(inputs·L/M).
func (r *Resampler) Flush(out []float32) []float32 {
	if r.done {
		return out
	}
	r.done = true
	total := (r.nIn*int64(r.l) + int64(r.m)/2) / int64(r.m)
	var in []float32
	for _, st := range r.stages {
		var next []float32
		if len(in) > 0 {
			next = st.process(in, nil)
		}
		in = st.flush(next)
	}
	out = append(out, in...)
	r.nOut += int64(len(in))
	for ; r.nOut < total; r.nOut++ {
		out = append(out, 0) // rounding in an intermediate stage can leave the last one short
	}
	if over := r.nOut - total; over > 0 {
		out = out[:len(out)-int(over)]
		r.nOut = total
	}
	return out
}

func (s *stage) process(in []float32, out []float32) []float32 {
	s.buf = append(s.buf, in...)
	s.nIn += int64(len(in))
	return s.run(out, s.base+int64(len(s.buf)))
}

func (s *stage) flush(out []float32) []float32 {
	s.buf = append(s.buf, make([]float32, s.k)...)
	return s.run(out, s.base+int64(len(s.buf)))
}

// run emits outputs whose newest input index is below avail, up to round(nIn·L/M).
func (s *stage) run(out []float32, avail int64) []float32 {
	l, m, k := int64(s.l), int64(s.m), s.k
	total := (s.nIn*l + m/2) / m
	// output n reads phase t%l ending at input t/l, t = n·m + c: step both
	// instead of dividing for every output
	// the outputs whose newest input has arrived: jmax = (n·m + c)/l < avail
	end := s.n
	if lim := avail*l - s.c; lim > 0 {
		end = max(s.n, min(total, (lim+m-1)/m))
	}
	if n := int(end - s.n); n > 0 {
		// Output n reads phase t%l ending at input t/l, t = n·m + c, and
		// output n+l reads the same phase m inputs later: one period of
		// first inputs and phases serves every output (step both instead of
		// dividing for every output).
		t := s.n*m + s.c
		jmax, ph := t/l, int(t%l)
		dj, dph := m/l, int(m%l)
		s.at, s.ph = s.at[:0], s.ph[:0]
		for range min(n, s.l) {
			s.at = append(s.at, int32(jmax-int64(k)+1-s.base))
			s.ph = append(s.ph, int32(ph))
			jmax += dj
			if ph += dph; ph >= s.l {
				ph -= s.l
				jmax++
			}
		}
		at := len(out)
		out = slices.Grow(out, n)[:at+n]
		polyDots(out[at:], s.buf, s.phases, s.at, s.ph, k, s.l, s.m)
		s.n = end
	}
	// drop input no later output needs
	need := (s.n*m+s.c)/l - int64(k) + 1
	if drop := int(need - s.base); drop > 0 && drop <= len(s.buf) && drop > len(s.buf)/2 {
		n := copy(s.buf, s.buf[drop:])
		s.buf = s.buf[:n]
		s.base += int64(drop)
	}
	return out
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// besselI0 is the zeroth-order modified Bessel function of the first kind:
// the sum over k of ((x/2)^k / k!)², each term the last times (x/2)²/k².
// A direct stage's design evaluates it for 44,000 taps, so the division
// by k² is a multiplication from a table.
func besselI0(x float64) float64 {
	y := x * x / 4
	sum, t2 := 1.0, 1.0
	for k := 1; k < 500; k++ {
		if k < len(invSquares) {
			t2 *= y * invSquares[k]
		} else {
			t2 *= y / float64(k*k)
		}
		sum += t2
		if t2 < sum*1e-17 {
			break
		}
	}
	return sum
}

// invSquares[k] is 1/k².
var invSquares = func() (t [64]float64) {
	for k := 1; k < len(t); k++ {
		t[k] = 1 / float64(k*k)
	}
	return t
}()

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// halfBand decimates by two with a half-band low-pass: its cutoff is a quarter
// of the input rate, so every other tap is zero and the rest are symmetric,
// which leaves a quarter of the multiplies of a plain FIR of the same length.
// Its passband reaches the final band's edge and its stopband starts where
// aliases would fold back into that band. It keeps its input split into even
// and odd samples: output n is mid·x[2n] plus the odd samples around it, so
// eight consecutive outputs read eight consecutive samples of each half, which
// is what a vector register holds.
type halfBand struct {
	mid    float32   // the centre tap
	taps   []float32 // taps[j] is the tap 2j+1 away from the centre, on each side
	ev, od []float32 // ev[i] is input 2(pbase+i), od[i] input 2(pbase+i)+1
	pbase  int64
	held   []float32 // an even input waiting for its odd partner (0 or 1 of them)
	n      int64     // next output index
	nIn    int64     // input samples seen
}

// newHalfBand designs the decimator at rate Hz whose passband ends at edge Hz.
// Kaiser's length estimate falls short for the few taps of a wide transition
// (a 96 kHz input's first stage reached 122 dB, not 125), so the design grows
// until its float32 taps meet the attenuation across the stopband, with 3 dB
// to spare: what it lets through near its Nyquist frequency folds to the
// bottom of the band, where no later stage removes it, and the rounding of
// the later stages adds to it.
func newHalfBand(rate, edge, a float64) *halfBand {
	a += 3
	stop := (rate/2 - edge) / rate // cycles per sample
	est := kaiserTaps(a, 2*stop-0.5) | 1
	for np := est; ; np += 2 {
		h := make([]float64, np)
		kaiserSinc(h, np, 0.25, kaiserBeta(a), 1)
		c := (np - 1) / 2
		hb := &halfBand{mid: float32(h[c])}
		for d := 1; d <= c; d += 2 {
			hb.taps = append(hb.taps, float32(h[c+d]))
		}
		// silence before the first sample: the first outputs read that far back
		j := len(hb.taps)
		hb.ev, hb.od, hb.pbase = make([]float32, j), make([]float32, j), -int64(j)
		if hb.peakGain(stop, 0.5) <= math.Pow(10, -a/20) || np >= 2*est {
			return hb
		}
	}
}

// peakGain is the filter's largest gain from f0 to f1 cycles per sample.
func (h *halfBand) peakGain(f0, f1 float64) float64 {
	const steps = 1000
	var peak float64
	for i := 0; i <= steps; i++ {
		w := 2 * math.Pi * (f0 + (f1-f0)*float64(i)/steps)
		g := float64(h.mid)
		for j, t := range h.taps {
			g += 2 * float64(t) * math.Cos(w*float64(2*j+1))
		}
		peak = max(peak, math.Abs(g))
	}
	return peak
}

func (h *halfBand) process(in, out []float32) []float32 {
	h.nIn += int64(len(in))
	h.push(in)
	return h.run(out)
}

func (h *halfBand) flush(out []float32) []float32 {
	h.push(make([]float32, 2*len(h.taps)))
	return h.run(out)
}

// push splits in into the even and odd halves.
func (h *halfBand) push(in []float32) {
	if len(h.held) == 1 && len(in) > 0 {
		h.ev, h.od = append(h.ev, h.held[0]), append(h.od, in[0])
		h.held, in = h.held[:0], in[1:]
	}
	k := len(in) / 2
	ne := len(h.ev)
	h.ev = slices.Grow(h.ev, k)[:ne+k]
	h.od = slices.Grow(h.od, k)[:ne+k]
	ev, od := h.ev[ne:], h.od[ne:]
	for i := range ev {
		ev[i], od[i] = in[2*i], in[2*i+1]
	}
	if len(in)%2 == 1 {
		h.held = append(h.held, in[len(in)-1])
	}
}

func (h *halfBand) run(out []float32) []float32 {
	total := (h.nIn + 1) / 2
	j := int64(len(h.taps))
	// outputs whose inputs have all arrived: output n reads odd samples up to n+J-1
	end := min(total, h.pbase+int64(len(h.od))-j+1)
	if k := int(end - h.n); k > 0 {
		at := len(out)
		out = slices.Grow(out, k)[:at+k]
		i := int(h.n - h.pbase)
		halfBandRun(out[at:], h.ev[i:], h.od[i-int(j):], h.mid, h.taps)
		h.n = end
	}
	// drop input no later output needs: output n reads back to odd sample n-J
	if drop := int(h.n - j - h.pbase); drop > len(h.od)/2 {
		h.ev = h.ev[:copy(h.ev, h.ev[drop:])]
		h.od = h.od[:copy(h.od, h.od[drop:])]
		h.pbase += int64(drop)
	}
	return out
}
