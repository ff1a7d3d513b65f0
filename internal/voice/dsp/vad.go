package dsp

import (
	"math"
	"slices"
)

// VAD frames: 20 ms at 16 kHz, the band that carries speech.
const (
	VADFrame = 320
	vadFFT   = 512
	vadLoHz  = 250
	vadHiHz  = 3500
	vadFloor = -100 // dB: digital silence
)

// VADParams tune Decide. The zero value is not useful: use DefaultVAD.
type VADParams struct {
	// Window frames of energy varying by less than Stationary dB (standard
	// deviation) are background, never speech: speech is never that steady
	// for half a second, steady noise and silence always are.
	Window     int
	Stationary float64
	// Margin: a frame is speech when its band energy is this far above the
	// background's, and not more than Range below the loudest frame.
	Margin, Range float64
	// PreRoll and HangOver frames are kept before and after each stretch of
	// speech, so that weak onsets and word endings are not clipped; speech
	// shorter than MinSpeech frames is a click, not speech.
	PreRoll, HangOver, MinSpeech int
}

// DefaultVAD: 500 ms stationarity windows, 6 dB over the background, 80 ms
// before and 160 ms after speech.
var DefaultVAD = VADParams{Window: 25, Stationary: 2.5, Margin: 6, Range: 60, PreRoll: 4, HangOver: 8, MinSpeech: 2}

// VADAnalyzer measures, frame by frame of a 16 kHz stream, the energy in the
// speech band (250–3500 Hz, Hann window): the one feature Decide needs, four
// bytes per 20 ms, so an hour of audio costs 720 KB.
type VADAnalyzer struct {
	fft     *realFFT
	win     []float64
	frame   []float64
	coeff   []complex128
	pending []float32
	lo, hi  int
	energy  []float32
}

// NewVADAnalyzer returns an analyzer for 16 kHz mono samples.
func NewVADAnalyzer() *VADAnalyzer {
	a := &VADAnalyzer{fft: newRealFFT(vadFFT), win: make([]float64, VADFrame), frame: make([]float64, vadFFT),
		lo: vadLoHz * vadFFT / 16000, hi: vadHiHz * vadFFT / 16000}
	for i := range a.win {
		a.win[i] = 0.5 - 0.5*math.Cos(2*math.Pi*(float64(i)+0.5)/VADFrame)
	}
	return a
}

// Write measures the whole frames in x, keeping a partial frame for the next call.
func (a *VADAnalyzer) Write(x []float32) {
	if len(a.pending) > 0 {
		k := min(VADFrame-len(a.pending), len(x))
		a.pending = append(a.pending, x[:k]...)
		x = x[k:]
		if len(a.pending) < VADFrame {
			return
		}
		a.measure(a.pending)
		a.pending = a.pending[:0]
	}
	for len(x) >= VADFrame {
		a.measure(x[:VADFrame])
		x = x[VADFrame:]
	}
	a.pending = append(a.pending, x...)
}

// Energies returns the band energy of every frame in dB (full scale sine: about -3 dB),
// the last partial frame included.
func (a *VADAnalyzer) Energies() []float32 {
	if len(a.pending) > 0 {
		p := append(a.pending, make([]float32, VADFrame-len(a.pending))...)
		a.measure(p)
		a.pending = a.pending[:0]
	}
	return a.energy
}

func (a *VADAnalyzer) measure(x []float32) {
	for i, v := range x {
		a.frame[i] = float64(v) * a.win[i]
	}
	clear(a.frame[VADFrame:])
	a.coeff = a.fft.forward(a.frame, a.coeff)
	var e float64
	for _, c := range a.coeff[a.lo : a.hi+1] {
		e += real(c)*real(c) + imag(c)*imag(c)
	}
	// Parseval: the windowed mean square in the band; a full-scale sine ≈ -3 dB
	db := 10 * math.Log10(2*e/(vadFFT*VADFrame*0.375)+1e-30)
	a.energy = append(a.energy, float32(max(db, vadFloor)))
}

// Decide marks the frames of speech, pre-roll and hang-over included, from
// their band energies. It looks at the whole track (the first pass over a
// recording measures it, the second writes what is kept): the background
// level of a stretch is that of the steady stretches around it, so a
// recording whose pauses are silence in one place and noise in another is
// judged against each in turn.
func Decide(e []float32, p VADParams) []bool {
	n := len(e)
	keep := make([]bool, n)
	if n == 0 {
		return keep
	}
	w := min(p.Window, n)
	background := make([]float64, n)
	steady := make([]bool, n)
	for i := range background {
		background[i] = math.Inf(1)
	}
	var s, s2 float64
	for i := range w {
		s += float64(e[i])
		s2 += float64(e[i]) * float64(e[i])
	}
	for j := 0; ; j++ {
		mean := s / float64(w)
		if sd := math.Sqrt(max(0, s2/float64(w)-mean*mean)); sd < p.Stationary {
			for i := j; i < j+w; i++ {
				steady[i] = true
				background[i] = min(background[i], mean)
			}
		}
		if j+w >= n {
			break
		}
		s += float64(e[j+w]) - float64(e[j])
		s2 += float64(e[j+w])*float64(e[j+w]) - float64(e[j])*float64(e[j])
	}
	// between steady stretches: the quieter of the two around (erring towards
	// keeping speech); with none at all, the quietest tenth of the frames
	fallback := quantile(e, 0.1)
	prev := math.Inf(1)
	for i := range n {
		if steady[i] {
			prev = background[i]
		} else {
			background[i] = prev
		}
	}
	next := math.Inf(1)
	for i := n - 1; i >= 0; i-- {
		if steady[i] {
			next = background[i]
		} else {
			background[i] = min(background[i], next)
			if math.IsInf(background[i], 1) {
				background[i] = fallback
			}
		}
	}
	loudest := float64(slices.Max(e))
	speech := make([]bool, n)
	for i, v := range e {
		speech[i] = !steady[i] && float64(v) > background[i]+p.Margin && float64(v) > loudest-p.Range
	}
	// drop clicks, then widen what is left
	for i := 0; i < n; {
		if !speech[i] {
			i++
			continue
		}
		j := i
		for j < n && speech[j] {
			j++
		}
		if j-i >= p.MinSpeech {
			for k := max(0, i-p.PreRoll); k < min(n, j+p.HangOver); k++ {
				keep[k] = true
			}
		}
		i = j
	}
	return keep
}

func quantile(e []float32, q float64) float64 {
	s := slices.Clone(e)
	slices.Sort(s)
	return float64(s[int(q*float64(len(s)-1))])
}

// Segment is a kept stretch of a recording: N samples from In in the
// original's timeline, at Out in the kept audio.
type Segment struct {
	In, Out, N int64
}

// Segments turns kept frames into sample ranges of a stream of total samples.
func Segments(keep []bool, total int64) []Segment {
	var segs []Segment
	var out int64
	for i := 0; i < len(keep); {
		if !keep[i] {
			i++
			continue
		}
		j := i
		for j < len(keep) && keep[j] {
			j++
		}
		start, end := int64(i)*VADFrame, min(int64(j)*VADFrame, total)
		if end > start {
			segs = append(segs, Segment{In: start, Out: out, N: end - start})
			out += end - start
		}
		i = j
	}
	return segs
}
