//go:build !amd64

package aac

var hasFFTKernel = false

func fftStagesAVX2(z *complex128, n int, tw *complex128) { panic("no kernel") }

func longWindowAVX2(u, left, right, ov *[1024]float64, o *[1024]float32) { panic("no kernel") }

func preTwiddleAVX2(x *float32, m int, pre *complex128, rev *int32, z *complex128) {
	panic("no kernel")
}

func postTwiddleAVX2(z, post *complex128, u *float64, h int) { panic("no kernel") }

func maxAbsBitsAVX2(p *float32, n int) uint32 { panic("no kernel") }
