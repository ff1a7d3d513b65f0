package voice

import (
	"bufio"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/voice/dsp"
)

const fixtures = "../../testdata/voice"

func readF32(t testing.TB, name string) []float32 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:]))
	}
	return x
}

func readS16(t testing.TB, name string) []float32 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, len(b)/2)
	for i := range x {
		x[i] = float32(int16(binary.LittleEndian.Uint16(b[i*2:]))) / 32768
	}
	return x
}

// masterDuration is the length of the speech espeak-ng produced, in seconds.
func masterDuration(t testing.TB) float64 {
	b, err := os.ReadFile(filepath.Join(fixtures, "master-samples-22050.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return float64(n) / 22050
}

// fineCorrelation finds the best lag at 16 kHz and, when that is not already
// a match, refines it to a third of a sample by interpolating both signals to
// 48 kHz, so that a decoder whose output is a fraction of a sample late (pion's
// SILK path is 2 samples at 48 kHz behind libopus) is not penalised.
func fineCorrelation(t testing.TB, a, b []float32, want float64) (float64, float64) {
	c, lag := correlation(a, b, 16)
	if c >= want {
		return c, float64(lag)
	}
	up := func(x []float32) []float32 {
		r, err := dsp.NewResampler(16000, 48000, dsp.ResamplerSpec{Attenuation: 80, Bandwidth: 0.9})
		if err != nil {
			t.Fatal(err)
		}
		return r.Flush(r.Process(x, nil))
	}
	ua, ub := up(a), up(b)
	best, l3 := c, 3*lag
	for l := 3*lag - 2; l <= 3*lag+2; l++ {
		var c float64
		if l >= 0 {
			c, _ = correlation(ua, ub[l:], 0)
		} else {
			c, _ = correlation(ua[-l:], ub, 0)
		}
		if c > best {
			best, l3 = c, l
		}
	}
	return best, float64(l3) / 3
}

// correlation is the best normalised cross-correlation of a and b within ±maxLag samples.
func correlation(a, b []float32, maxLag int) (best float64, lag int) {
	best = -2
	for l := -maxLag; l <= maxLag; l++ {
		var ab, aa, bb float64
		for i := range a {
			j := i + l
			if j < 0 || j >= len(b) {
				continue
			}
			x, y := float64(a[i]), float64(b[j])
			ab += x * y
			aa += x * x
			bb += y * y
		}
		if c := ab / math.Sqrt(aa*bb); c > best {
			best, lag = c, l
		}
	}
	return best, lag
}

func open(path string) OpenFunc { return func() (Source, error) { return Open(path) } }

func TestFixturesDecode(t *testing.T) {
	ref := readF32(t, "ref-16k.f32")
	ref8k := readF32(t, "ref8k-16k.f32")
	refWebM := readS16(t, "ref-libopus-speech-voip-16k.s16")
	refSILK := readS16(t, "ref-libopus-speech-silk-16k.s16")
	want := masterDuration(t)
	_, ffErr := exec.LookPath("ffmpeg")
	cases := []struct {
		file     string
		format   Format
		rate, ch int
		ref      []float32
		minCorr  float64
		ffmpeg   bool
		extra    float64 // seconds of encoder padding the container does not record
	}{
		{"speech-s16-22k.wav", WAV, 22050, 1, ref, 0.999, false, 0},
		{"speech-s24-16k.wav", WAV, 16000, 1, ref, 0.999, false, 0},
		{"speech-f32-16k.wav", WAV, 16000, 1, ref, 0.999, false, 0},
		{"speech-s32-48k.wav", WAV, 48000, 1, ref, 0.999, false, 0},
		{"speech-s16-44k-stereo.wav", WAV, 44100, 2, ref, 0.999, false, 0},
		{"speech-f64-8k.wav", WAV, 8000, 1, ref8k, 0.999, false, 0},
		{"speech-u8-8k.wav", WAV, 8000, 1, ref8k, 0.99, false, 0},
		{"speech.flac", FLAC, 22050, 1, ref, 0.999, false, 0},
		{"speech-64k.mp3", MP3, 44100, 1, ref, 0.99, false, 0},
		{"speech-voip.webm", WebMOpus, 48000, 1, refWebM, 0.99, false, 0},
		{"speech-live.webm", WebMOpus, 48000, 1, refWebM, 0.99, false, 0},
		{"speech-audio.opus", OggOpus, 48000, 1, ref, 0.99, false, 0},
		{"speech-silk.opus", OggOpus, 48000, 1, refSILK, 0.99, false, 0},
		{"speech.ogg", OggOther, 44100, 1, ref, 0.99, true, 0},
		// native AAC-LC: the edit list's media time (ffmpeg's encoder priming)
		// is skipped and its duration kept, so the length is the master's
		{"speech.m4a", M4A, 44100, 1, ref, 0.99, false, 0},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			if c.ffmpeg && ffErr != nil {
				t.Skip("SKIPPED: ffmpeg is not on PATH, and helix decodes this format through it (TestFFmpegMissing checks the error instead); apt-get install ffmpeg")
			}
			path := filepath.Join(fixtures, c.file)
			var frames int64
			var info Info
			got, _, err := Samples(func() (Source, error) {
				s, err := Open(path)
				if err == nil {
					info = s.Info()
					s = &countingSource{Source: s, n: &frames}
				}
				return s, err
			})
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if info.Format != c.format || info.SampleRate != c.rate || info.Channels != c.ch {
				t.Errorf("info %+v, want %s %d Hz %d ch", info, c.format, c.rate, c.ch)
			}
			dur := float64(frames) / float64(info.SampleRate)
			if math.Abs(dur-want-c.extra) > 0.010 {
				t.Errorf("duration %.4f s, want %.4f ± 0.010", dur, want+c.extra)
			}
			corr, lag := fineCorrelation(t, got, c.ref, c.minCorr)
			t.Logf("%s: %.4f s, correlation %.5f at lag %.2f samples (16 kHz)", c.file, dur, corr, lag)
			if corr < c.minCorr {
				t.Errorf("correlation with the reference %.5f (lag %.2f), want ≥ %.3f", corr, lag, c.minCorr)
			}
		})
	}
}

type countingSource struct {
	Source
	n *int64
}

func (c *countingSource) Read(p []float32) (int, error) {
	n, err := c.Source.Read(p)
	*c.n += int64(n / c.Info().Channels)
	return n, err
}

func f32le(v float32) []byte {
	return binary.LittleEndian.AppendUint32(nil, math.Float32bits(v))
}

// TestOpusFixturesCoverEveryMode checks that the Opus fixtures decoded above
// exercise all three of pion/opus's modes: SILK, hybrid and CELT (RFC 6716 §3.1).
func TestOpusFixturesCoverEveryMode(t *testing.T) {
	mode := func(toc byte) string {
		switch c := toc >> 3; {
		case c < 12:
			return "SILK"
		case c < 16:
			return "hybrid"
		}
		return "CELT"
	}
	for file, want := range map[string]string{"speech-silk.opus": "SILK", "speech-audio.opus": "CELT"} {
		fh, err := os.Open(filepath.Join(fixtures, file))
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(fh)
		var carry []byte
		modes := map[string]int{}
		for n := 1; ; n++ {
			p, err := readOggPage(r, n)
			if err != nil {
				break
			}
			var done [][]byte
			done, carry = p.packets(carry)
			for _, pkt := range done {
				if n > 2 && len(pkt) > 0 { // pages 1 and 2 hold OpusHead and OpusTags
					modes[mode(pkt[0])]++
				}
			}
		}
		fh.Close()
		if len(modes) != 1 || modes[want] == 0 {
			t.Errorf("%s: packet modes %v, want only %s", file, modes, want)
		}
	}
	s, err := Open(filepath.Join(fixtures, "speech-voip.webm"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	modes := map[string]int{}
	for _, b := range s.(*webmSource).blocks {
		for _, fr := range b.frames {
			modes[mode(fr[0])]++
		}
	}
	if len(modes) != 1 || modes["hybrid"] == 0 {
		t.Errorf("speech-voip.webm: packet modes %v, want only hybrid", modes)
	}
}
