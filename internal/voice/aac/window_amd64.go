package aac

// longWindowAVX2 is longWindowGo in AVX2/FMA (hasFFTKernel selects it too).
//
//go:noescape
func longWindowAVX2(u, left, right, ov *[1024]float64, o *[1024]float32)

// preTwiddleAVX2 is imdct.dct4's pre-twiddle into bit-reversed order, for m
// coefficients (m/2 even).
//
//go:noescape
func preTwiddleAVX2(x *float32, m int, pre *complex128, rev *int32, z *complex128)

// postTwiddleAVX2 is imdct.dct4's post-twiddle and unpacking into u (2h
// values), for h a multiple of 8.
//
//go:noescape
func postTwiddleAVX2(z, post *complex128, u *float64, h int)

// maxAbsBitsAVX2 returns the largest of the bits of |p[i]| (sign cleared)
// for i < n, a multiple of 8.
//
//go:noescape
func maxAbsBitsAVX2(p *float32, n int) uint32
