//go:build !amd64

package mp3

var hasInterleaveKernel = false

func interleave2AVX2(l, r, out *float32, n int) { panic("no kernel") }
