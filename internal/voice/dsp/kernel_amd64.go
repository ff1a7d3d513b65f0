package dsp

import "golang.org/x/sys/cpu"

// hasKernel selects the AVX kernels: Go does not vectorise loops, and the
// half-band and polyphase loops were a third of a whole MP3 convert's CPU.
var hasKernel = cpu.X86.HasAVX

// halfBandAVX is halfBandGo for n outputs (a multiple of 32); o points at the
// odd sample J-1 before the first output's centre, as halfBandGo's o[0].
//
//go:noescape
func halfBandAVX(out, e, o *float32, mid float32, taps *float32, nj, n int)

// polyDotsAVX is polyDotsGo for n outputs; k is a multiple of 16.
//
//go:noescape
func polyDotsAVX(out, buf, taps *float32, at, ph *int32, k, n, shift int)

// polyDots4AVX is polyDotsGo for groups·4 outputs: for i < groups, outputs
// i + j·ostride/4 (j < 4) take phase ph[i] and read from
// at[i] + shift + j·bstride/4.
//
//go:noescape
func polyDots4AVX(out, buf, taps *float32, at, ph *int32, k, groups, ostride, bstride, shift int)
