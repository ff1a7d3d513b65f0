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
