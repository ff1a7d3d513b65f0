package aac

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDecode decodes the 48 kHz stereo fixture (or the file in
// $AAC_BENCH_FILE, e.g. scripts/bench/decode.sh's 10-minute M4A).
func BenchmarkDecode(b *testing.B) {
	path := os.Getenv("AAC_BENCH_FILE")
	if path == "" {
		path = filepath.Join(fixtures, "speech-aac-48k-stereo.m4a")
	}
	buf := make([]float32, 8192)
	b.ReportAllocs()
	for b.Loop() {
		fh, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		s, err := OpenMP4(fh)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := s.Read(buf)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		fh.Close()
	}
}
