//go:build !amd64

package dsp

var hasKernel = false

func halfBandAVX(out, e, o *float32, mid float32, taps *float32, nj, n int) { panic("no kernel") }

func polyDotsAVX(out, buf, taps *float32, at, ph *int32, k, n, shift int) { panic("no kernel") }

func polyDots4AVX(out, buf, taps *float32, at, ph *int32, k, groups, ostride, bstride, shift int) {
	panic("no kernel")
}
