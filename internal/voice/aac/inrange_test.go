package aac

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestOutOfRange plants one bad value (NaN, ±Inf, just beyond ±lim) at every
// position of blocks of several lengths, around values that are in range,
// lim itself included; OutOfRange (the AVX2 scan where there is one) must
// name the first bad index, and -1 for a clean block.
func TestOutOfRange(t *testing.T) {
	const lim = 1 << 16
	rng := rand.New(rand.NewPCG(9, 10))
	bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), math.Nextafter32(lim, math.MaxFloat32), -math.Nextafter32(lim, math.MaxFloat32)}
	for _, n := range []int{0, 1, 7, 8, 9, 31, 64, 1000} {
		p := make([]float32, n)
		for i := range p {
			p[i] = float32(rng.NormFloat64())
			if i%5 == 0 {
				p[i] = lim
			}
			if i%7 == 0 {
				p[i] = -lim
			}
		}
		if got := OutOfRange(p, lim); got != -1 {
			t.Fatalf("n=%d clean: %d, want -1", n, got)
		}
		for i := range p {
			for _, b := range bad {
				q := append([]float32(nil), p...)
				q[i] = b
				if i+1 < n {
					q[n-1] = b // a later bad value must not hide the first
				}
				if got := OutOfRange(q, lim); got != i {
					t.Fatalf("n=%d, %v at %d: got %d", n, b, i, got)
				}
			}
		}
	}
}
