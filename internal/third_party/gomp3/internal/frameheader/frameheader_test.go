package frameheader

import "testing"

// TestFrameSizeMPEG2 checks frame sizes against 144·bitrate/rate (MPEG-1) and
// 72·bitrate/rate (MPEG-2), plus one byte of padding. Upstream added the
// padding before halving for MPEG-2, so a padded 32 kbit/s 22.05 kHz frame
// came out 104 bytes instead of 105.
func TestFrameSizeMPEG2(t *testing.T) {
	for _, c := range []struct {
		header uint32
		want   int
	}{
		{0xFFF34000, 104}, // MPEG-2 layer III, 32 kbit/s, 22.05 kHz, no padding
		{0xFFF34200, 105}, // the same, padded
		{0xFFFB9000, 417}, // MPEG-1 layer III, 128 kbit/s, 44.1 kHz
		{0xFFFB9200, 418}, // padded
	} {
		h := FrameHeader(c.header)
		if !h.IsValid() {
			t.Fatalf("%08x is not a valid header", c.header)
		}
		got, err := h.FrameSize()
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%08x: frame size %d, want %d", c.header, got, c.want)
		}
	}
}
