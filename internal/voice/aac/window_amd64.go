package aac

// longWindowAVX2 is longWindowGo in AVX2/FMA (hasFFTKernel selects it too).
//
//go:noescape
func longWindowAVX2(u, left, right, ov *[1024]float64, o *[1024]float32)

// interleave2AVX2 writes l and r (n values each, a multiple of 8) to out as
// interleaved stereo.
//
//go:noescape
func interleave2AVX2(l, r, out *float32, n int)
