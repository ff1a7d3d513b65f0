package mp3

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	upstream "github.com/hajimehoshi/go-mp3"
)

// TestMatchesUpstream decodes helix's MP3 fixtures (MPEG-1 mono and joint
// stereo, MPEG-2 at 22.05 kHz) with this copy and with upstream go-mp3 v0.3.4
// and checks that the optimised decoder yields the same samples: the same
// length and, sample by sample, within a few 16-bit steps.
func TestMatchesUpstream(t *testing.T) {
	for _, name := range []string{"speech-64k.mp3", "speech-stereo-128k.mp3", "speech-22k-mpeg2.mp3"} {
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
