package cluster

import "golang.org/x/sys/cpu"

// hasKernel selects the AVX2/FMA kernel: Go does not vectorise loops, and
// gonum's pure-Go Sgemm reaches a tenth of what the CPU can do.
var hasKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dot2x4 writes a0·b0..a0·b3 to out[0:4] and a1·b0..a1·b3 to out[4:8];
// n is a multiple of 8.
//
//go:noescape
func dot2x4(a0, a1, b0, b1, b2, b3 *float32, n int, out *[8]float32)
