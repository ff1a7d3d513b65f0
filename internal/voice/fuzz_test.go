package voice

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzOpen feeds damaged variants of the small fixtures to every native
// decoder: any input may fail, none may panic or hang.
func FuzzOpen(f *testing.F) {
	for _, name := range []string{"speech-u8-8k.wav", "speech-silk.opus", "speech-live.webm", "speech-64k.mp3", "speech-22k-mpeg2.mp3", "speech-8k-mpeg25.mp3", "speech.flac"} {
		b, err := os.ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 6000)])
	}
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVEfmt "))
	f.Add([]byte("OggS\x00\x02"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "in")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if fm, err := Detect(b); err == nil && (fm == M4A || fm == OggOther) {
			return // ffmpeg's, not ours
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _, _ = Samples(open(p))
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("decoding %d bytes took over 20 s", len(b))
		}
	})
}
