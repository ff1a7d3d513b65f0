package voice

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/helixhq/helix/internal/voice/dsp"
)

// TargetRate is what speech-to-text services want: 16 kHz mono.
const TargetRate = 16000

// Normalisation modes.
const (
	NormalizeNone     = ""
	NormalizePeak     = "peak"     // peak to -1 dBFS
	NormalizeLoudness = "loudness" // gated RMS to -20 dBFS, peak kept under -1 dBFS
)

// ProcessOptions choose the processing between decoding and 16-bit output.
type ProcessOptions struct {
	HighPass    bool   // 80 Hz rumble filter
	Normalize   string // NormalizeNone, NormalizePeak or NormalizeLoudness
	TrimSilence bool   // drop leading and trailing silence (150 ms kept)
	VAD         bool   // drop the frames without speech, a hang-over kept
	Denoise     bool   // spectral noise reduction, profile from the VAD's non-speech frames
}

// Result describes a processed recording.
type Result struct {
	Format   Format  `json:"format"`
	Rate     int     `json:"sample_rate"`
	Channels int     `json:"channels"`
	Duration float64 `json:"duration_seconds"` // of the source
	Samples  int64   `json:"samples"`          // 16 kHz output samples
	Gain     float64 `json:"gain_db"`
	// With VAD: the audio kept (speech with its hang-over) and dropped.
	Speech  *float64 `json:"speech_seconds,omitempty"`
	Dropped *float64 `json:"dropped_seconds,omitempty"`
	// With denoise: the seconds of background the noise profile was taken from
	// (0: none found, nothing was denoised).
	NoiseProfile *float64 `json:"noise_profile_seconds,omitempty"`
	// Segments are the kept stretches, in the original's 16 kHz timeline;
	// nil when everything was kept.
	Segments []dsp.Segment `json:"-"`
}

// OriginalTime maps a time in the kept audio (a word's start, as the
// provider heard it) to the time in the original recording.
func (r Result) OriginalTime(t float64) float64 { return r.original(t, false) }

// OriginalEnd is OriginalTime for the end of a word: a time on the seam of
// two kept stretches is the end of the first, not the start of the second.
func (r Result) OriginalEnd(t float64) float64 { return r.original(t, true) }

func (r Result) original(t float64, end bool) float64 {
	if r.Segments == nil {
		return t
	}
	p := int64(math.Round(t * TargetRate))
	for _, s := range r.Segments {
		if p < s.Out+s.N || end && p == s.Out+s.N {
			return float64(s.In+max(0, p-s.Out)) / TargetRate
		}
	}
	if n := len(r.Segments); n > 0 {
		last := r.Segments[n-1]
		return float64(last.In+last.N+(p-last.Out-last.N)) / TargetRate
	}
	return t
}

// OpenFunc opens a fresh decoder: normalising and trimming read the file twice,
// once to measure and once to write, so that no pass holds the whole recording.
type OpenFunc func() (Source, error)

// blockFrames is what one Read asks for: large enough that the per-call
// costs of the decoder and the filters vanish, small enough (256 KB a
// channel) that a block stays in the cache from one step to the next.
const blockFrames = 65536

// stream decodes, downmixes, resamples to 16 kHz and (optionally) high-passes
// the source block by block, handing each block of mono samples to emit.
// It runs on the caller's goroutine, one step after the other. Until
// 2026-11-28 three goroutines shared the steps, two blocks apart: that
// lowered the wall time of one conversion on an idle machine, but the
// hand-offs woke threads on the other core, which cost 22 % more CPU for a
// 5-minute MP3 than the same work in one goroutine, and more under load; and
// helix converts several files at once (`transcribe --concurrency`), where
// the cores are already busy. The buffers are reused: memory stays bounded
// whatever the length.
func stream(open OpenFunc, highPass bool, emit func([]float32) error) (Info, int64, error) {
	src, err := open()
	if err != nil {
		return Info{}, 0, err
	}
	defer src.Close()
	info := src.Info()
	var rs *dsp.Resampler
	if info.SampleRate != TargetRate {
		if rs, err = dsp.NewResampler(info.SampleRate, TargetRate, dsp.DefaultSpec); err != nil {
			return info, 0, err
		}
	}
	var hp *dsp.HighPass
	if highPass {
		hp = dsp.NewHighPass(80, TargetRate)
	}
	send := func(out []float32) error {
		if len(out) == 0 {
			return nil
		}
		if hp != nil {
			hp.Process(out)
		}
		return emit(out)
	}
	in := make([]float32, blockFrames*info.Channels)
	var mono, res []float32
	var frames int64
	var rerr error
	for rerr == nil {
		// fill the block: a decoder may hand out one codec frame a call (an
		// MP3's is 1,152 samples), and the filters' kernels want long runs
		n := 0
		for n < len(in) && rerr == nil {
			var k int
			k, rerr = src.Read(in[n:])
			n += k
			if k == 0 && rerr == nil {
				break
			}
		}
		frames += int64(n / info.Channels)
		if info.Channels == 1 {
			mono = in[:n] // filtered in place and emitted before the next Read
		} else {
			mono = dsp.Downmix(in[:n], info.Channels, mono[:0])
		}
		out := mono
		if rs != nil {
			res = rs.Process(mono, res[:0])
			out = res
		}
		if err := send(out); err != nil {
			return info, frames, err
		}
	}
	switch {
	case !errors.Is(rerr, io.EOF):
		return info, frames, rerr
	case frames == 0:
		return info, 0, &DecodeError{info.Format, errors.New("no audio samples")}
	}
	if rs != nil {
		if err := send(rs.Flush(res[:0])); err != nil {
			return info, frames, err
		}
	}
	return info, frames, nil
}

// Samples decodes the recording to 16 kHz mono float32 without further processing.
func Samples(open OpenFunc) ([]float32, Info, error) {
	var all []float32
	info, _, err := stream(open, false, func(b []float32) error { all = append(all, b...); return nil })
	return all, info, err
}

// analysis is what the measuring pass finds.
type analysis struct {
	peak       float64
	loudness   float64 // gated RMS, linear
	start, end int64   // output samples to keep
	total      int64
	speech     []bool // with VAD or denoise: the frames of speech (dsp.VADFrame samples each)
}

const trimBlock = TargetRate / 100 // 10 ms

func analyse(open OpenFunc, opts ProcessOptions) (analysis, error) {
	var a analysis
	var blocks []float64 // mean square of every 10 ms block; 100 a second is small
	var acc float64
	var accN int
	var vad *dsp.VADAnalyzer
	if opts.VAD || opts.Denoise {
		vad = dsp.NewVADAnalyzer()
	}
	_, _, err := stream(open, opts.HighPass, func(b []float32) error {
		if vad != nil {
			vad.Write(b)
		}
		for _, v := range b {
			f := float64(v)
			a.peak = max(a.peak, math.Abs(f))
			acc += f * f
			if accN++; accN == trimBlock {
				blocks = append(blocks, acc/trimBlock)
				acc, accN = 0, 0
			}
		}
		return nil
	})
	if err != nil {
		return a, err
	}
	total := int64(len(blocks))*trimBlock + int64(accN)
	a.total = total
	if vad != nil {
		a.speech = dsp.Decide(vad.Energies(), dsp.DefaultVAD)
	}
	if accN > 0 {
		blocks = append(blocks, acc/float64(accN))
	}
	// loudness: mean square over 400 ms windows above -70 dBFS, then above (that - 10 dB)
	const win = 40
	var ms []float64
	for i := 0; i+win <= len(blocks); i += win / 4 {
		var s float64
		for _, v := range blocks[i : i+win] {
			s += v
		}
		ms = append(ms, s/win)
	}
	gate := func(th float64) (float64, int) {
		var s float64
		var n int
		for _, v := range ms {
			if v >= th {
				s += v
				n++
			}
		}
		return s, n
	}
	if s, n := gate(1e-7); n > 0 {
		if s2, n2 := gate(s / float64(n) / 10); n2 > 0 {
			a.loudness = math.Sqrt(s2 / float64(n2))
		}
	}
	a.start, a.end = 0, total
	if opts.TrimSilence {
		th := max(1e-7, a.peak*a.peak*math.Pow(10, -45.0/10)) // 45 dB under the peak
		first, last := -1, -1
		for i, v := range blocks {
			if v >= th {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first < 0 {
			a.end = 0
		} else {
			pad := int64(TargetRate * 150 / 1000)
			a.start = max(0, int64(first)*trimBlock-pad)
			a.end = min(total, int64(last+1)*trimBlock+pad)
		}
	}
	return a, nil
}

// Convert writes the recording as 16 kHz mono 16-bit little-endian PCM to w.
func Convert(open OpenFunc, opts ProcessOptions, w io.Writer) (Result, error) {
	return ConvertTo(open, opts, w, nil)
}

// ConvertTo is Convert that also writes the whole processed recording to
// full (when not nil): w gets what VAD and trimming keep, full the original
// timeline (what --store-audio keeps, where the mapped word times point).
//
// The passes over the file: one to measure (normalisation, trimming, the
// VAD's band energies) when any of those is asked for; with denoise one to
// take the noise profile from the frames the VAD found without speech; one
// to write. Each streams: memory is bounded whatever the length.
func ConvertTo(open OpenFunc, opts ProcessOptions, w, full io.Writer) (Result, error) {
	gain := 1.0
	var segs []dsp.Segment // nil: everything
	var a analysis
	if opts.Normalize != NormalizeNone || opts.TrimSilence || opts.VAD || opts.Denoise {
		var err error
		if a, err = analyse(open, opts); err != nil {
			return Result{}, err
		}
		switch opts.Normalize {
		case NormalizePeak:
			if a.peak > 0 {
				gain = math.Pow(10, -1.0/20) / a.peak
			}
		case NormalizeLoudness:
			if a.loudness > 0 {
				gain = math.Min(math.Pow(10, -20.0/20)/a.loudness, math.Pow(10, -1.0/20)/a.peak)
			}
		case NormalizeNone:
		default:
			return Result{}, fmt.Errorf("unknown normalisation %q (want peak or loudness)", opts.Normalize)
		}
		if opts.VAD {
			segs = dsp.Segments(a.speech, a.total)
		}
		if opts.TrimSilence {
			segs = clip(segs, a.start, a.end, a.total)
		}
	}
	var den *dsp.Denoiser
	var profiled float64
	if opts.Denoise {
		background := func(start int64) bool {
			lo, hi := max(0, start)/dsp.VADFrame, min(a.total-1, start+dsp.DenoiseFFT-1)/dsp.VADFrame
			for f := lo; f <= hi && f < int64(len(a.speech)); f++ {
				if a.speech[f] {
					return false
				}
			}
			return start+dsp.DenoiseFFT <= a.total
		}
		prof := dsp.NewNoiseProfile(background)
		if _, _, err := stream(open, opts.HighPass, func(b []float32) error { prof.Write(b); return nil }); err != nil {
			return Result{}, err
		}
		profiled = float64(prof.Frames()*dsp.DenoiseHop) / TargetRate
		if psd := prof.PSD(); psd != nil {
			den = dsp.NewDenoiser(psd, background)
		}
	}
	d, df := dsp.NewDither(), dsp.NewDither()
	var pos, written int64
	var buf, fbuf, dbuf []float32
	var out []byte
	seg := 0
	write := func(b []float32) error {
		start := pos
		pos += int64(len(b))
		if full != nil {
			out = df.Quantize(b, float32(gain), out[:0])
			if _, err := full.Write(out); err != nil {
				return err
			}
		}
		if segs == nil {
			out = d.Quantize(b, float32(gain), out[:0])
			written += int64(len(b))
			_, err := w.Write(out)
			return err
		}
		buf = buf[:0]
		for seg < len(segs) && segs[seg].In < pos {
			s := segs[seg]
			lo, hi := max(s.In, start), min(s.In+s.N, pos)
			if lo < hi {
				buf = append(buf, b[lo-start:hi-start]...)
			}
			if s.In+s.N > pos {
				break
			}
			seg++
		}
		if len(buf) == 0 {
			return nil
		}
		out = d.Quantize(buf, float32(gain), out[:0])
		written += int64(len(buf))
		_, err := w.Write(out)
		return err
	}
	info, frames, err := stream(open, opts.HighPass, func(b []float32) error {
		if den == nil {
			return write(b)
		}
		fbuf = den.Process(b, fbuf[:0])
		return write(fbuf)
	})
	if err == nil && den != nil {
		dbuf = den.Flush(dbuf)
		err = write(dbuf)
	}
	if err != nil {
		return Result{}, err
	}
	res := Result{
		Format: info.Format, Rate: info.SampleRate, Channels: info.Channels,
		Duration: float64(frames) / float64(info.SampleRate), Samples: written, Gain: 20 * math.Log10(gain),
		Segments: segs,
	}
	if opts.VAD {
		kept, dropped := float64(written)/TargetRate, float64(pos-written)/TargetRate
		res.Speech, res.Dropped = &kept, &dropped
	}
	if opts.Denoise {
		res.NoiseProfile = &profiled
	}
	return res, nil
}

// clip limits segs (nil: all of total) to [lo, hi), renumbering their places in the kept audio.
func clip(segs []dsp.Segment, lo, hi, total int64) []dsp.Segment {
	if segs == nil {
		segs = []dsp.Segment{{In: 0, N: total}}
	}
	out := []dsp.Segment{}
	var at int64
	for _, s := range segs {
		a, b := max(s.In, lo), min(s.In+s.N, hi)
		if a < b {
			out = append(out, dsp.Segment{In: a, Out: at, N: b - a})
			at += b - a
		}
	}
	return out
}

// WAVHeader is the 44-byte header of a 16 kHz mono 16-bit PCM WAV file holding n samples.
func WAVHeader(n int64) []byte { return pcm16Header(TargetRate, 1, n) }

// pcm16Header is the 44-byte header of a 16-bit PCM WAV file of frames frames.
func pcm16Header(rate, channels int, frames int64) []byte {
	h := make([]byte, 44)
	block := uint32(2 * channels)
	data := uint32(frames) * block
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], 36+data)
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], wavePCM)
	binary.LittleEndian.PutUint16(h[22:], uint16(channels))
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate)*block)
	binary.LittleEndian.PutUint16(h[32:], uint16(block))
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], data)
	return h
}
