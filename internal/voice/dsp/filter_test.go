package dsp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHighPassMatchesDirectForm runs the sections in the textbook direct form
// next to Process, over blocks, to check the transposed form and its state.
func TestHighPassMatchesDirectForm(t *testing.T) {
	f := NewHighPass(80, 16000)
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, 5000)
	for i := range x {
		x[i] = float32(rng.Float64()*2 - 1)
	}
	want := make([]float64, len(x))
	for i, v := range x {
		want[i] = float64(v)
	}
	for _, b := range f.s {
		var x1, x2, y1, y2 float64
		for i, in := range want {
			y := b.g*in - 2*b.g*x1 + b.g*x2 - b.a1*y1 - b.a2*y2
			x2, x1, y2, y1 = x1, in, y1, y
			want[i] = y
		}
	}
	got := append([]float32(nil), x...)
	for i := 0; i < len(got); i += 777 {
		f.Process(got[i:min(i+777, len(got))])
	}
	for i := range got {
		if d := math.Abs(float64(got[i]) - want[i]); d > 1e-6 {
			t.Fatalf("sample %d: %.8f, want %.8f", i, got[i], want[i])
		}
	}
}

// TestDither checks the dither is triangular on (-1, 1) LSB and that
// quantising rounds, clips and maps NaN to the negative limit.
func TestDither(t *testing.T) {
	d := NewDither()
	const n = 1 << 20
	var sum, sq float64
	for range n {
		v := d.tpdf()
		if v <= -1 || v >= 1 {
			t.Fatalf("dither %v outside (-1, 1)", v)
		}
		sum, sq = sum+v, sq+v*v
	}
	if mean, variance := sum/n, sq/n; math.Abs(mean) > 0.005 || math.Abs(variance-1.0/6) > 0.005 {
		t.Errorf("dither mean %.4f variance %.4f, want 0 and 1/6 (triangular)", mean, variance)
	}
	x := []float32{0, 0.5, -0.5, 1, -1, 2, -2, float32(math.NaN())}
	want := []int16{0, 16384, -16384, 32767, -32767, 32767, -32768, -32768}
	out := NewDither().Quantize(x, 1, []byte{9})
	if len(out) != 1+2*len(x) || out[0] != 9 {
		t.Fatalf("Quantize appended %d bytes", len(out)-1)
	}
	for i, w := range want {
		got := int16(uint16(out[1+2*i]) | uint16(out[2+2*i])<<8)
		if d := int(got) - int(w); d < -1 || d > 1 {
			t.Errorf("Quantize(%v) = %d, want %d ± 1", x[i], got, w)
		}
	}
}

func BenchmarkHighPass(b *testing.B) {
	x := tone(16000, 1000, 0.5, 16000)
	f := NewHighPass(80, 16000)
	b.SetBytes(int64(4 * len(x)))
	for b.Loop() {
		f.Process(x)
	}
}

func BenchmarkDownmixStereo(b *testing.B) {
	x := tone(44100, 1000, 0.5, 2*16384)
	out := make([]float32, 0, 16384)
	b.SetBytes(int64(4 * len(x)))
	for b.Loop() {
		out = Downmix(x, 2, out[:0])
	}
}

func BenchmarkQuantize(b *testing.B) {
	x := tone(16000, 1000, 0.5, 16000)
	d := NewDither()
	out := make([]byte, 0, 2*len(x))
	b.SetBytes(int64(4 * len(x)))
	for b.Loop() {
		out = d.Quantize(x, 1, out[:0])
	}
}
