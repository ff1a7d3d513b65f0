package voice

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// damage writes a damaged copy of a fixture and returns its path.
func damage(t *testing.T, name string, f func([]byte) []byte) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "damaged-"+name)
	if err := os.WriteFile(p, f(bytes.Clone(b)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func cut(frac float64) func([]byte) []byte {
	return func(b []byte) []byte { return b[:int(float64(len(b))*frac)] }
}

// flip inverts a run of bytes at a fraction of the file.
func flip(frac float64, n int) func([]byte) []byte {
	return func(b []byte) []byte {
		at := int(float64(len(b)) * frac)
		for i := at; i < at+n && i < len(b); i++ {
			b[i] ^= 0xFF
		}
		return b
	}
}

func put(off int, v ...byte) func([]byte) []byte {
	return func(b []byte) []byte { copy(b[off:], v); return b }
}

func TestDamagedFilesFail(t *testing.T) {
	_, ffErr := exec.LookPath("ffmpeg")
	cases := []struct {
		name, file string
		damage     func([]byte) []byte
		want       string
		ffmpeg     bool
	}{
		{"wav truncated", "speech-s16-22k.wav", cut(0.6), "truncated", false},
		{"wav header only", "speech-s16-22k.wav", cut(0.0001), "truncated", false},
		{"wav 12-bit", "speech-s16-22k.wav", put(34, 12), "unsupported sample format", false},
		{"wav extensible truncated", "speech-s24-16k.wav", cut(0.5), "truncated", false},
		{"mp3 truncated", "speech-64k.mp3", cut(0.6), "truncated", false},
		{"mp3 corrupt frame", "speech-64k.mp3", flip(0.5, 600), "corrupt", false},
		{"flac truncated", "speech.flac", cut(0.6), "truncated", false},
		{"flac corrupt frame", "speech.flac", flip(0.5, 4), "corrupt", false},
		{"flac no STREAMINFO", "speech.flac", cut(0.002), "truncated", false},
		{"ogg/opus truncated", "speech-audio.opus", cut(0.6), "truncated", false},
		{"ogg/opus corrupt page", "speech-audio.opus", flip(0.5, 4), "CRC", false},
		{"ogg/opus no header", "speech-audio.opus", put(28, 'X'), "corrupt: page 1", false},
		{"webm truncated", "speech-voip.webm", cut(0.6), "truncated", false},
		{"webm corrupt header", "speech-voip.webm", cut(0.01), "", false},
		{"unknown bytes", "speech.flac", put(0, 'J', 'U', 'N', 'K'), "not a recognised audio format", false},
		{"m4a truncated", "speech.m4a", cut(0.6), "truncated", false},
		{"m4a corrupt frame", "speech-aac-16k-stereo.m4a", flip(0.3, 64), "corrupt", false},
		{"m4a no moov", "speech.m4a", func(b []byte) []byte { return bytes.Replace(b, []byte("moov"), []byte("free"), 1) }, "corrupt: no moov", false},
		{"aac truncated", "speech-aac-22k.aac", cut(0.6), "truncated", false},
		{"aac corrupt frame", "speech-aac-22k.aac", flip(0.5, 64), "corrupt", false},
		{"vorbis truncated", "speech.ogg", cut(0.6), "truncated", false},
		{"vorbis corrupt", "speech.ogg", flip(0.5, 64), "CRC", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.ffmpeg && ffErr != nil {
				t.Skip("SKIPPED: ffmpeg is not on PATH (TestFFmpegMissing checks the error instead); apt-get install ffmpeg")
			}
			p := damage(t, c.file, c.damage)
			_, _, err := Samples(open(p))
			if err == nil {
				t.Fatalf("decoding %s gave no error", c.name)
			}
			t.Logf("%s: %v", c.name, err)
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
}

// heAAC returns a copy of the 44.1 kHz mono M4A fixture whose
// AudioSpecificConfig says HE-AAC (object type 5, SBR at 88.2 kHz over the
// AAC-LC core) instead of AAC-LC; ffmpeg decodes it (at 88.2 kHz).
func heAAC(t *testing.T) string {
	return damage(t, "speech.m4a", func(b []byte) []byte {
		i := bytes.Index(b, []byte{0x05, 0x80, 0x80, 0x80, 0x05, 0x12, 0x08})
		if i < 0 {
			t.Fatal("no AudioSpecificConfig 12 08 in speech.m4a")
		}
		copy(b[i+5:], []byte{0x2A, 0x08, 0x88, 0, 0}) // 5, 44.1 kHz, mono, ext. 88.2 kHz, core 2
		return b
	})
}

func TestFFmpegMissing(t *testing.T) {
	he := heAAC(t)
	t.Setenv("PATH", t.TempDir()) // no ffmpeg here
	for file, name := range map[string]string{he: "M4A/AAC (unsupported AAC stream: HE-AAC (SBR/PS))", filepath.Join(fixtures, "speech.ogg"): "Ogg Vorbis"} {
		_, err := Open(file)
		if !errors.Is(err, ErrNeedFFmpeg) {
			t.Fatalf("%s without ffmpeg: %v, want ErrNeedFFmpeg", file, err)
		}
		if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "install ffmpeg") {
			t.Errorf("%s: error %q should name %s and say to install ffmpeg", file, err, name)
		}
	}
}

// TestAACWithoutFFmpeg: AAC-LC in M4A and ADTS decodes with no ffmpeg on PATH.
func TestAACWithoutFFmpeg(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, file := range []string{"speech.m4a", "speech-aac-48k-stereo.m4a", "speech-aac-22k.aac"} {
		x, info, err := Samples(open(filepath.Join(fixtures, file)))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(x) < 16000*3 || info.Format != M4A && info.Format != AAC {
			t.Errorf("%s: %d samples, %+v", file, len(x), info)
		}
	}
}

// TestHEAACGoesToFFmpeg: a stream the native decoder does not take is decoded by ffmpeg.
func TestHEAACGoesToFFmpeg(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("SKIPPED: ffmpeg is not on PATH; apt-get install ffmpeg")
	}
	s, err := Open(heAAC(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.(*ffmpegSource); !ok {
		t.Errorf("HE-AAC opened as %T, want ffmpeg's", s)
	}
}

func TestPlainFloatWAV(t *testing.T) {
	// WAVE_FORMAT_IEEE_FLOAT without the extensible wrapper (ffmpeg and sox write the wrapper)
	x := []float32{0, 0.5, -0.5, 1, -1}
	var b bytes.Buffer
	h := WAVHeader(int64(len(x)) * 2) // 4 bytes a sample
	h[20], h[34], h[32] = waveFloat, 32, 4
	h[28], h[29], h[30], h[31] = 0x00, 0xFA, 0x00, 0x00 // 64000 bytes/s
	b.Write(h)
	for _, v := range x {
		b.Write(f32le(v))
	}
	p := filepath.Join(t.TempDir(), "float.wav")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := make([]float32, 16)
	n, err := s.Read(got)
	if err != nil || n != len(x) {
		t.Fatalf("read %d samples, %v", n, err)
	}
	for i := range x {
		if got[i] != x[i] {
			t.Errorf("sample %d = %v, want %v", i, got[i], x[i])
		}
	}
}
