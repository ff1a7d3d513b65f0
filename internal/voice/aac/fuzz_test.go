package aac

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// seed adds the fixtures, each cut to its whole top-level boxes (MP4) or
// its first bytes (ADTS) within 6,000 bytes: a longer seed makes every
// execution, and the minimisation of every new input, slow without reaching
// more code.
func seed(f *testing.F, names ...string) {
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			f.Fatal(err)
		}
		n := min(len(b), 6000)
		if filepath.Ext(name) == ".m4a" {
			n = 0
			for n+8 <= len(b) {
				size := int(binary.BigEndian.Uint32(b[n:]))
				if size < 8 || n+size > 6000 {
					break
				}
				n += size
			}
		}
		f.Add(b[:n])
	}
}

// drain decodes at most a few hundred frames: enough to reach every syntax
// element, bounded so that a fuzzed header cannot make one run slow.
func drain(t *testing.T, s *Stream) {
	buf := make([]float32, 2048)
	for i := 0; i < 400; i++ {
		n, err := s.Read(buf)
		for _, x := range buf[:n] {
			if math.IsNaN(float64(x)) {
				t.Fatal("NaN sample")
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && n != 0 {
				t.Fatal("samples and an error together")
			}
			return
		}
	}
}

// FuzzMP4: the box reader and the decoder behind it; any input may fail,
// none may panic or allocate beyond what the file's size allows.
func FuzzMP4(f *testing.F) {
	seed(f, "speech-aac-16k-mono-short.m4a", "speech-aac-16k-stereo-frag.m4a")
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := OpenMP4(bytes.NewReader(b))
		if err == nil {
			drain(t, s)
		}
	})
}

// FuzzADTS: ADTS framing and the decoder.
func FuzzADTS(f *testing.F) {
	seed(f, "speech-aac-22k.aac")
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := OpenADTS(bytes.NewReader(b))
		if err == nil {
			drain(t, s)
		}
	})
}

// FuzzFrame: one raw_data_block after an AudioSpecificConfig, the bitstream
// parser alone (the seeds are frames of the stereo fixture).
func FuzzFrame(f *testing.F) {
	fh, err := os.Open(filepath.Join(fixtures, "speech-aac-16k-stereo.m4a"))
	if err != nil {
		f.Fatal(err)
	}
	defer fh.Close()
	tr, err := parseMP4(fh)
	if err != nil {
		f.Fatal(err)
	}
	for _, i := range []int{3, 10, 20, 30} {
		b := make([]byte, tr.sizes[i])
		if _, err := fh.ReadAt(b, tr.offsets[i]); err != nil {
			f.Fatal(err)
		}
		f.Add(tr.asc, b)
	}
	f.Fuzz(func(t *testing.T, asc, frame []byte) {
		c, err := ParseASC(asc)
		if err != nil {
			return
		}
		d, err := NewDecoder(c)
		if err != nil {
			return
		}
		out := make([]float32, 1024*c.Channels)
		for i := 0; i < 3; i++ {
			_ = d.Decode(frame, out)
		}
	})
}
