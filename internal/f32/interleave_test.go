package f32

import "testing"

// TestInterleave2: every length from 0 to a frame and a half (the kernel's
// multiples of 8 and the Go tail after them) gives exactly l[i], r[i] pairs
// and writes nothing past 2n; with the kernel and without.
func TestInterleave2(t *testing.T) {
	l, r := make([]float32, 1152), make([]float32, 1152)
	for i := range l {
		l[i], r[i] = float32(i)+0.25, -float32(i)-0.5
	}
	saved := hasInterleaveKernel
	defer func() { hasInterleaveKernel = saved }()
	for _, kernel := range []bool{saved, false} {
		hasInterleaveKernel = kernel
		for n := 0; n <= 1152; n += 1 + n/64 {
			out := make([]float32, 2*n+8)
			for i := range out {
				out[i] = 7
			}
			Interleave2(l[:n], r, out)
			for i := 0; i < n; i++ {
				if out[2*i] != l[i] || out[2*i+1] != r[i] {
					t.Fatalf("kernel %v, n=%d, %d: %v %v, want %v %v", kernel, n, i, out[2*i], out[2*i+1], l[i], r[i])
				}
			}
			for i := 2 * n; i < len(out); i++ {
				if out[i] != 7 {
					t.Fatalf("kernel %v, n=%d: wrote past 2n at %d", kernel, n, i)
				}
			}
		}
	}
	if !saved {
		t.Log("no AVX on this CPU: only the Go loop ran")
	}
}
