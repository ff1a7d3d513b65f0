package voice

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// readAll decodes a whole Source at its own rate and channels.
func readAll(t *testing.T, s Source) []float32 {
	t.Helper()
	var out []float32
	buf := make([]float32, 4096)
	for {
		n, err := s.Read(buf)
		out = append(out, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestMatchesFFmpegDecode decodes the MP3 fixtures (natively, with gomp3) and
// the AAC-LC M4A fixtures (16, 44.1 and 48 kHz, mono and stereo) through
// voice.Open and compares them with ffmpeg's own decode of the same file: the
// same rate and channels, a duration within one frame (1152 samples for MP3,
// 1024 for AAC) of ffmpeg's and of the spoken master (plus the end padding
// ffmpeg's AAC encoder does not record), and a correlation ≥ 0.999 at lag 0
// (so the encoder delay is trimmed as ffmpeg trims it).
// helix decodes AAC-LC natively (internal/voice/aac), from M4A and from ADTS;
// ffmpeg does not trim ADTS, whose header records no encoder delay, so neither
// does helix.
func TestMatchesFFmpegDecode(t *testing.T) {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg is not on PATH: it makes the reference decodes (and decodes M4A); apt-get install ffmpeg")
	}
	want := masterDuration(t)
	for _, c := range []struct {
		file     string
		format   Format
		rate, ch int
		frame    int
	}{
		{"speech-64k.mp3", MP3, 44100, 1, 1152},
		{"speech-stereo-128k.mp3", MP3, 44100, 2, 1152},
		{"speech-22k-mpeg2.mp3", MP3, 22050, 1, 576},
		{"speech-8k-mpeg25.mp3", MP3, 8000, 1, 576},
		{"speech-aac-16k-mono.m4a", M4A, 16000, 1, 1024},
		{"speech-aac-16k-stereo.m4a", M4A, 16000, 2, 1024},
		{"speech.m4a", M4A, 44100, 1, 1024},
		{"speech-aac-44k-stereo.m4a", M4A, 44100, 2, 1024},
		{"speech-aac-48k-mono.m4a", M4A, 48000, 1, 1024},
		{"speech-aac-48k-stereo.m4a", M4A, 48000, 2, 1024},
		{"speech-aac-22k.aac", AAC, 22050, 1, 1024},
		{"speech-aac-16k-stereo-frag.m4a", M4A, 16000, 2, 1024},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(fixtures, c.file)
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, s)
			info := s.Info()
			s.Close()
			if info.Format != c.format || info.SampleRate != c.rate || info.Channels != c.ch {
				t.Fatalf("info %+v, want %s %d Hz %d ch", info, c.format, c.rate, c.ch)
			}
			refPath := filepath.Join(t.TempDir(), "ref.f32")
			if out, err := exec.Command(ffmpeg, "-nostdin", "-v", "error", "-i", path, "-f", "f32le", "-c:a", "pcm_f32le", refPath).CombinedOutput(); err != nil {
				t.Fatalf("ffmpeg: %v: %s", err, out)
			}
			b, err := os.ReadFile(refPath)
			if err != nil {
				t.Fatal(err)
			}
			ref := make([]float32, len(b)/4)
			for i := range ref {
				ref[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
			frames, refFrames := len(got)/c.ch, len(ref)/c.ch
			if d := frames - refFrames; d > c.frame || d < -c.frame {
				t.Errorf("%d samples per channel, ffmpeg %d: more than one frame apart", frames, refFrames)
			}
			// ffmpeg's AAC encoder records its priming (edts) but not its end
			// padding; LAME records both
			if d := float64(frames)/float64(c.rate) - want; d < -float64(c.frame)/float64(c.rate) || d > 2048.0/float64(c.rate) {
				t.Errorf("duration %.4f s, spoken master %.4f s", float64(frames)/float64(c.rate), want)
			}
			corr, lag := correlation(got, ref, 0)
			t.Logf("%s: %d samples per channel (ffmpeg %d), correlation %.6f", c.file, frames, refFrames, corr)
			if corr < 0.999 || lag != 0 {
				t.Errorf("correlation with ffmpeg's decode %.6f at lag %d, want ≥ 0.999 at 0", corr, lag)
			}
		})
	}
}
