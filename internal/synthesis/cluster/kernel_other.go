//go:build !amd64

package cluster

var hasKernel = false

func dot2x4(a0, a1, b0, b1, b2, b3 *float32, n int, out *[8]float32) { panic("no kernel") }
