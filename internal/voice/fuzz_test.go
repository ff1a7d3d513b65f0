package voice

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzOpen feeds damaged variants of the small fixtures to every native
// decoder: any input may fail, none may panic or hang.
func FuzzOpen(f *testing.F) {
	addFixtures(f, "speech-u8-8k.wav", "speech-silk.opus", "speech-live.webm", "speech-64k.mp3", "speech-22k-mpeg2.mp3", "speech-8k-mpeg25.mp3", "speech.flac")
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVEfmt "))
	f.Add([]byte("OggS\x00\x02"))
	fuzzDecode(f)
}

// One target per container, each seeded with its own fixtures, so that the
// fuzzer spends its time inside one decoder's framing. All go through
// helix's decode entry point (Open, then Read until EOF), whatever library
// decodes underneath.

func FuzzWAV(f *testing.F) {
	addFixtures(f, "speech-u8-8k.wav", "speech-f32-16k.wav", "speech-f64-8k.wav", "speech-s24-16k.wav")
	fuzzDecode(f)
}

func FuzzMP3(f *testing.F) {
	addFixtures(f, "speech-64k.mp3", "speech-22k-mpeg2.mp3", "speech-8k-mpeg25.mp3")
	f.Add([]byte("ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x64"))
	fuzzDecode(f)
}

func FuzzFLAC(f *testing.F) {
	addFixtures(f, "speech.flac")
	fuzzDecode(f)
}

func FuzzOgg(f *testing.F) {
	addFixtures(f, "speech-silk.opus", "speech-audio.opus")
	fuzzDecode(f)
}

func FuzzAAC(f *testing.F) {
	addFixtures(f, "speech-aac-22k.aac", "speech-aac-16k-mono-short.m4a") // moov first, whole in 6,000 bytes
	fuzzDecode(f)
}

func FuzzWebM(f *testing.F) {
	addFixtures(f, "speech-live.webm", "speech-voip.webm")
	fuzzDecode(f)
}

// addFixtures seeds f with the first 6,000 bytes of each fixture (longer
// seeds make every execution slow without reaching more code).
func addFixtures(f *testing.F, names ...string) {
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 6000)])
	}
}

// fuzzDecode: any input may fail; none may panic, hang, or decode to a
// sample that is not a finite number within ±maxFloatSample (such a sample
// would poison the filters, issue 22 finding 2).
func fuzzDecode(f *testing.F) {
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "in")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan []float32, 1)
		go func() {
			x, _, _ := Samples(func() (Source, error) { return openFile(p, false) }) // never ffmpeg
			done <- x
		}()
		select {
		case x := <-done:
			for i, v := range x {
				if !(v >= -maxFloatSample && v <= maxFloatSample) || math.IsNaN(float64(v)) {
					t.Fatalf("sample %d decoded to %v", i, v)
				}
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("decoding %d bytes took over 20 s", len(b))
		}
	})
}
