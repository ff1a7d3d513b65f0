package mp3

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	upstream "github.com/hajimehoshi/go-mp3"
)

// TestMatchesUpstream decodes helix's MPEG-1 fixtures (mono and joint
// stereo) with this copy and with upstream go-mp3 v0.3.4 and checks that the
// optimised decoder yields the same samples: the same length and, sample by
// sample, within a few 16-bit steps. (MPEG-2 is not compared: upstream misreads
// padded MPEG-2 frames, see TestFrameSizeMPEG2; internal/voice's
// TestMatchesFFmpegDecode compares speech-22k-mpeg2.mp3 with ffmpeg's decode.)
func TestMatchesUpstream(t *testing.T) {
	for _, name := range []string{"speech-64k.mp3", "speech-stereo-128k.mp3"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("../../../testdata/voice", name))
			if err != nil {
				t.Fatal(err)
			}
			ours := decodeAll(t, b, func(r io.Reader) (io.Reader, int, error) {
				d, err := NewDecoder(r)
				if err != nil {
					return nil, 0, err
				}
				return d, d.SampleRate(), nil
			})
			theirs := decodeAll(t, b, func(r io.Reader) (io.Reader, int, error) {
				d, err := upstream.NewDecoder(r)
				if err != nil {
					return nil, 0, err
				}
				return d, d.SampleRate(), nil
			})
			if len(ours) != len(theirs) {
				t.Fatalf("%d samples, upstream %d", len(ours), len(theirs))
			}
			var maxDiff float64
			var ab, aa, bb float64
			for i := range ours {
				x, y := float64(ours[i]), float64(theirs[i])
				maxDiff = max(maxDiff, math.Abs(x-y))
				ab += x * y
				aa += x * x
				bb += y * y
			}
			corr := ab / math.Sqrt(aa*bb)
			t.Logf("%d samples, max difference %.0f LSB, correlation %.7f", len(ours), maxDiff, corr)
			if corr < 0.99999 || maxDiff > 8 {
				t.Errorf("correlation %.7f (want ≥ 0.99999), max difference %.0f LSB (want ≤ 8)", corr, maxDiff)
			}
		})
	}
}

func decodeAll(t *testing.T, b []byte, open func(io.Reader) (io.Reader, int, error)) []int16 {
	t.Helper()
	d, _, err := open(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	s := make([]int16, len(raw)/2)
	for i := range s {
		s[i] = int16(binary.LittleEndian.Uint16(raw[2*i:]))
	}
	return s
}

// TestSeekMatchesUpstream seeks both decoders to the same byte offsets and
// compares what they read from there.
func TestSeekMatchesUpstream(t *testing.T) {
	b, err := os.ReadFile("../../../testdata/voice/speech-stereo-128k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := NewDecoder(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := upstream.NewDecoder(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if ours.Length() != theirs.Length() {
		t.Fatalf("Length %d, upstream %d", ours.Length(), theirs.Length())
	}
	for _, off := range []int64{0, 4 * 1000, 4 * 1152 * 7, 4 * 100000, 4 * 3} {
		a := make([]byte, 4*3000)
		c := make([]byte, 4*3000)
		if _, err := ours.Seek(off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if _, err := theirs.Seek(off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		na, _ := io.ReadFull(ours, a)
		nc, _ := io.ReadFull(theirs, c)
		if na != nc {
			t.Fatalf("offset %d: read %d bytes, upstream %d", off, na, nc)
		}
		for i := 0; i+1 < na; i += 2 {
			x, y := int16(binary.LittleEndian.Uint16(a[i:])), int16(binary.LittleEndian.Uint16(c[i:]))
			if d := int(x) - int(y); d > 1 || d < -1 {
				t.Fatalf("offset %d, byte %d: %d, upstream %d", off, i, x, y)
			}
		}
	}
}

// TestReadFloat32MatchesRead checks the float path against the 16-bit one.
func TestReadFloat32MatchesRead(t *testing.T) {
	for _, name := range []string{"speech-64k.mp3", "speech-stereo-128k.mp3"} {
		b, err := os.ReadFile(filepath.Join("../../../testdata/voice", name))
		if err != nil {
			t.Fatal(err)
		}
		want := decodeAll(t, b, func(r io.Reader) (io.Reader, int, error) {
			d, err := NewDecoder(r)
			return d, 0, err
		})
		d, err := NewDecoder(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		var got []float32
		buf := make([]float32, 1000)
		for {
			n, err := d.ReadFloat32(buf)
			got = append(got, buf[:n]...)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		ch := d.Channels()
		if len(got)/ch != len(want)/2 {
			t.Fatalf("%s: %d frames, Read gives %d", name, len(got)/ch, len(want)/2)
		}
		for i := 0; i < len(want)/2; i++ {
			for c := 0; c < 2; c++ {
				f := got[i*ch+min(c, ch-1)]
				if d := math.Abs(float64(f*32767) - float64(want[2*i+c])); d > 1.01 && math.Abs(float64(f)) < 1 {
					t.Fatalf("%s: frame %d channel %d: %g, Read %d", name, i, c, f*32767, want[2*i+c])
				}
			}
		}
	}
}

// FuzzDecode feeds damaged MP3 data to the decoder: it may fail, never panic or hang.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"speech-64k.mp3", "speech-22k-mpeg2.mp3"} {
		b, err := os.ReadFile(filepath.Join("../../../testdata/voice", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:3000])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := NewDecoder(bytes.NewReader(b))
		if err != nil {
			return
		}
		buf := make([]float32, 4096)
		for i := 0; i < 10000; i++ {
			if _, err := d.ReadFloat32(buf); err != nil {
				return
			}
		}
	})
}
