package voice

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// floatWAV writes a mono float WAV (32 or 64 bit) of a 440 Hz tone with
// bad written over the samples from index at on; it returns the path and
// the byte offset of sample at.
func floatWAV(t *testing.T, bits, n, at int, bad ...float64) (string, int64) {
	t.Helper()
	var b bytes.Buffer
	bps := bits / 8
	b.WriteString("RIFF")
	_ = binary.Write(&b, binary.LittleEndian, uint32(4+8+16+8+12+8+n*bps))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(3), uint16(1), uint32(44100), uint32(44100 * bps), uint16(bps), uint16(bits)} {
		_ = binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("LIST") // a chunk before data, so the offset must count it
	_ = binary.Write(&b, binary.LittleEndian, uint32(12))
	b.WriteString("INFOISFT\x00\x00\x00\x00")
	b.WriteString("data")
	_ = binary.Write(&b, binary.LittleEndian, uint32(n*bps))
	dataOff := int64(b.Len())
	for i := 0; i < n; i++ {
		x := 0.5 * math.Sin(2*math.Pi*440*float64(i)/44100)
		if i >= at && i-at < len(bad) {
			x = bad[i-at]
		}
		if bits == 32 {
			_ = binary.Write(&b, binary.LittleEndian, float32(x))
		} else {
			_ = binary.Write(&b, binary.LittleEndian, x)
		}
	}
	p := filepath.Join(t.TempDir(), "float.wav")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, dataOff + int64(at*bps)
}

// Issue 22, finding 2: one NaN or Inf sample in a float WAV used to turn
// the rest of the recording into full-scale DC with exit 0. It is an input
// error naming the byte offset, and nothing reaches the filters.
func TestNonFiniteFloatSamples(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name      string
		bits, at  int
		bad       []float64
		wantValue string
	}{
		{"one NaN, 32-bit", 32, 30000, []float64{nan}, "NaN"},
		{"+Inf, 32-bit", 32, 100, []float64{math.Inf(1)}, "+Inf"},
		{"-Inf, 64-bit", 64, 70000, []float64{math.Inf(-1)}, "-Inf"},
		{"64-bit beyond float32", 64, 5, []float64{1e300}, "1e+300"},
		{"huge finite 32-bit", 32, 7, []float64{3e38}, "3e+38"},
		{"all NaN", 32, 0, func() []float64 {
			x := make([]float64, 90000)
			for i := range x {
				x[i] = nan
			}
			return x
		}(), "NaN"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, off := floatWAV(t, c.bits, 90000, c.at, c.bad...)
			var out bytes.Buffer
			_, err := Convert(open(p), ProcessOptions{HighPass: true, Normalize: NormalizeLoudness}, &out)
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("converted with %v: want a decode error", err)
			}
			want := "sample at byte offset " + itoa(off) + " is " + c.wantValue
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q does not say %q", err, want)
			}
		})
	}
	// Loud but finite samples (clipping) still convert, and every output
	// sample is a number.
	p, _ := floatWAV(t, 32, 90000, 1000, 8, -8, 1.5)
	var out bytes.Buffer
	if _, err := Convert(open(p), ProcessOptions{HighPass: true}, &out); err != nil {
		t.Fatal(err)
	}
	pcm := pcm16(out.Bytes()[44:])
	dc := 0
	for _, x := range pcm[len(pcm)/2:] {
		if x == -1 {
			dc++
		}
	}
	if dc > len(pcm)/4 {
		t.Fatalf("%d of the last %d samples are full-scale negative", dc, len(pcm)/2)
	}
	_, _ = io.Copy(io.Discard, &out)
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
