package f32

import "golang.org/x/sys/cpu"

// hasInterleaveKernel selects interleave2AVX (VUNPCK*PS and VPERM2F128 are AVX).
var hasInterleaveKernel = cpu.X86.HasAVX

// interleave2AVX writes l and r (n values each, a multiple of 8) to out as
// interleaved stereo.
//
//go:noescape
func interleave2AVX(l, r, out *float32, n int)
