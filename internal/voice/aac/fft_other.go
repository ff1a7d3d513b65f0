//go:build !amd64

package aac

var hasFFTKernel = false

func fftStagesAVX2(z *complex128, n int, tw *complex128) { panic("no kernel") }
