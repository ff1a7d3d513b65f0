package voice

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// synth is a Source of generated mono audio at rate Hz, n frames long.
type synth struct {
	rate int
	n, i int64
	f    func(t float64) float64
}

func (s *synth) Info() Info   { return Info{Format: WAV, SampleRate: s.rate, Channels: 1} }
func (s *synth) Close() error { return nil }
func (s *synth) Read(p []float32) (int, error) {
	k := 0
	for ; k < len(p) && s.i < s.n; k++ {
		p[k] = float32(s.f(float64(s.i) / float64(s.rate)))
		s.i++
	}
	if k == 0 {
		return 0, io.EOF
	}
	return k, nil
}

func synthOpen(rate int, seconds float64, f func(float64) float64) OpenFunc {
	return func() (Source, error) { return &synth{rate: rate, n: int64(seconds * float64(rate)), f: f}, nil }
}

func pcm16(b []byte) []float64 {
	x := make([]float64, len(b)/2)
	for i := range x {
		x[i] = float64(int16(binary.LittleEndian.Uint16(b[i*2:]))) / 32768
	}
	return x
}

func peakRMS(x []float64) (peak, rms float64) {
	for _, v := range x {
		peak = math.Max(peak, math.Abs(v))
		rms += v * v
	}
	return peak, math.Sqrt(rms / float64(len(x)))
}

func TestConvertFixtureLengthAndHeader(t *testing.T) {
	var out bytes.Buffer
	res, err := Convert(open(filepath.Join(fixtures, "speech-s16-44k-stereo.wav")), ProcessOptions{}, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := int64(math.Round(masterDuration(t) * TargetRate))
	if res.Samples < want-1 || res.Samples > want+1 || int64(out.Len()) != 2*res.Samples {
		t.Errorf("%d samples (%d bytes), want %d", res.Samples, out.Len(), want)
	}
	if res.Format != WAV || res.Rate != 44100 || res.Channels != 2 {
		t.Errorf("result %+v", res)
	}
	// the 16-bit output is the same speech as the reference
	x := pcm16(out.Bytes())
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	if c, _ := correlation(y, readF32(t, "ref-16k.f32"), 4); c < 0.99 {
		t.Errorf("16-bit output correlates %.4f with the reference", c)
	}
	h := WAVHeader(res.Samples)
	p := filepath.Join(t.TempDir(), "out.wav")
	if err := os.WriteFile(p, append(h, out.Bytes()...), 0o644); err != nil {
		t.Fatal(err)
	}
	got, info, err := Samples(open(p))
	if err != nil || info.SampleRate != 16000 || info.Channels != 1 || int64(len(got)) != res.Samples {
		t.Errorf("re-reading the written WAV: %v %+v %d samples", err, info, len(got))
	}
}

func TestHighPassRemovesRumble(t *testing.T) {
	rumble := func(t float64) float64 { return 0.4 * math.Sin(2*math.Pi*25*t) }
	for _, hp := range []bool{false, true} {
		var out bytes.Buffer
		if _, err := Convert(synthOpen(48000, 2, rumble), ProcessOptions{HighPass: hp}, &out); err != nil {
			t.Fatal(err)
		}
		_, rms := peakRMS(pcm16(out.Bytes())[8000:])
		db := 20 * math.Log10(rms/(0.4/math.Sqrt2))
		t.Logf("25 Hz rumble, high-pass %v: %.1f dB", hp, db)
		if hp && db > -35 || !hp && db < -0.1 {
			t.Errorf("25 Hz rumble with high-pass %v: %.1f dB", hp, db)
		}
	}
}

func TestNormalizeAndTrim(t *testing.T) {
	// 1 s of silence, 1 s of a quiet 440 Hz tone, 1 s of silence
	quiet := func(t float64) float64 {
		if t < 1 || t >= 2 {
			return 0
		}
		return 0.05 * math.Sin(2*math.Pi*440*t)
	}
	var out bytes.Buffer
	res, err := Convert(synthOpen(44100, 3, quiet), ProcessOptions{Normalize: NormalizePeak, TrimSilence: true}, &out)
	if err != nil {
		t.Fatal(err)
	}
	x := pcm16(out.Bytes())
	peak, _ := peakRMS(x)
	if d := 20 * math.Log10(peak); math.Abs(d+1) > 0.1 {
		t.Errorf("peak %.2f dBFS after --normalize peak, want -1", d)
	}
	if got := float64(len(x)) / TargetRate; math.Abs(got-1.3) > 0.03 {
		t.Errorf("trimmed to %.3f s, want 1 s of tone + 2×150 ms", got)
	}
	if math.Abs(res.Gain-(20*math.Log10(0.891/0.05))) > 0.2 {
		t.Errorf("gain %.2f dB", res.Gain)
	}

	out.Reset()
	if _, err := Convert(synthOpen(16000, 3, quiet), ProcessOptions{Normalize: NormalizeLoudness}, &out); err != nil {
		t.Fatal(err)
	}
	_, rms := peakRMS(pcm16(out.Bytes())[16000:32000])
	// gating counts the 400 ms windows that straddle the tone's edges, as BS.1770 does
	if d := 20 * math.Log10(rms); math.Abs(d+20) > 1.5 {
		t.Errorf("loudness-normalised tone at %.2f dBFS RMS, want -20 ± 1.5", d)
	}
}

// TestStreamingMemory converts two minutes at 44.1 kHz and checks the heap never grows
// anywhere near the size of the recording as float64 (the resampler's own
// buffer is checked in dsp.TestResamplerBuffersStayBounded).
func TestStreamingMemory(t *testing.T) {
	const seconds = 120
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var maxHeap uint64
	n := 0
	w := writerFunc(func(p []byte) (int, error) {
		if n++; n%4 == 0 {
			runtime.ReadMemStats(&ms)
			maxHeap = max(maxHeap, ms.HeapInuse-min(base, ms.HeapInuse))
		}
		return len(p), nil
	})
	tone := func(t float64) float64 { return 0.3 * math.Sin(2*math.Pi*300*t) }
	if _, err := Convert(synthOpen(44100, seconds, tone), ProcessOptions{HighPass: true}, w); err != nil {
		t.Fatal(err)
	}
	whole := uint64(seconds * 44100 * 8) // the recording as float64
	t.Logf("heap grew by at most %d kB; the recording as float64 would be %d MB", maxHeap>>10, whole>>20)
	if maxHeap > whole/4 {
		t.Errorf("heap reached %d MB while streaming", maxHeap>>20)
	}
}

// TestConvertWriteError stops a long conversion with a failing writer: the
// error comes back, nothing more is written, and (TestMain checks) the
// pipeline's goroutines are gone.
func TestConvertWriteError(t *testing.T) {
	boom := errors.New("disk full")
	writes, after := 0, 0
	w := writerFunc(func(p []byte) (int, error) {
		if writes++; writes > 3 {
			after++
			return 0, boom
		}
		return len(p), nil
	})
	tone := func(t float64) float64 { return 0.3 * math.Sin(2*math.Pi*300*t) }
	_, err := Convert(synthOpen(44100, 60, tone), ProcessOptions{HighPass: true}, w)
	if !errors.Is(err, boom) {
		t.Fatalf("Convert: %v, want %v", err, boom)
	}
	if after != 1 {
		t.Errorf("%d writes after the failing one", after-1)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// BenchmarkConvertWAV runs the whole pipeline of `voice convert` (WAV parsing,
// downmix, resampling, high-pass, dither) on 30 s of 44.1 kHz stereo noise and tone.
func BenchmarkConvertWAV(b *testing.B) {
	const rate, seconds = 44100, 30
	n := rate * seconds
	pcm := make([]byte, 4*n)
	s := uint32(1)
	for i := 0; i < n; i++ {
		s = s*1664525 + 1013904223
		v := 0.3*math.Sin(2*math.Pi*440*float64(i)/rate) + 0.1*(float64(s>>8)/(1<<24)-0.5)
		binary.LittleEndian.PutUint16(pcm[4*i:], uint16(int16(v*32767)))
		binary.LittleEndian.PutUint16(pcm[4*i+2:], uint16(int16(-v*32767)))
	}
	file := append(pcm16Header(rate, 2, int64(n)), pcm...)
	open := func() (Source, error) { return newWAV(bytes.NewReader(file), nil, WAV) }
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		if _, err := Convert(open, ProcessOptions{HighPass: true}, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConvertMP3 runs `voice convert`'s whole pipeline on a real MP3
// (44.1 kHz joint stereo, 128 kbit/s): decoding, downmix, resampling,
// high-pass, dither. With -cpuprofile it shows what besides the decoder a
// conversion costs (scripts/bench/convert.sh measures the whole process).
func BenchmarkConvertMP3(b *testing.B) {
	path := filepath.Join(fixtures, "speech-stereo-128k.mp3")
	open := func() (Source, error) { return Open(path) }
	for b.Loop() {
		if _, err := Convert(open, ProcessOptions{HighPass: true}, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
