//go:build !amd64

package f32

var hasInterleaveKernel = false

func interleave2AVX(l, r, out *float32, n int) { panic("no kernel") }
