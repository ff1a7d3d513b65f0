package mp3

import "testing"

// TestInterleaveKernel: interleave2AVX2 writes exactly l[i], r[i] pairs for
// every multiple of 8 up to a frame, and nothing past 2n.
func TestInterleaveKernel(t *testing.T) {
	if !hasInterleaveKernel {
		t.Skip("no AVX2 on this CPU: ReadFloat32 interleaves in Go")
	}
	l, r := make([]float32, 1152), make([]float32, 1152)
	for i := range l {
		l[i], r[i] = float32(i)+0.25, -float32(i)-0.5
	}
	for n := 8; n <= 1152; n += 8 {
		out := make([]float32, 2*n+8)
		for i := range out {
			out[i] = 7
		}
		interleave2AVX2(&l[0], &r[0], &out[0], n)
		for i := 0; i < n; i++ {
			if out[2*i] != l[i] || out[2*i+1] != r[i] {
				t.Fatalf("n=%d, %d: %v %v, want %v %v", n, i, out[2*i], out[2*i+1], l[i], r[i])
			}
		}
		for i := 2 * n; i < len(out); i++ {
			if out[i] != 7 {
				t.Fatalf("n=%d: wrote past 2n at %d", n, i)
			}
		}
	}
}
