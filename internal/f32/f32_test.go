package f32

import "testing"

func TestDot(t *testing.T) {
	for n := 0; n <= 9; n++ {
		a, b := make([]float32, n), make([]float32, n+2)
		want := float32(0)
		for i := range a {
			a[i], b[i] = float32(i+1), float32(2*i-3)
			want += a[i] * b[i]
		}
		if got := Dot(a, b); got != want {
			t.Errorf("n=%d: Dot = %v, want %v", n, got, want)
		}
	}
}
