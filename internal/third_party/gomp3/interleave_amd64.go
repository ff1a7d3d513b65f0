package mp3

import "golang.org/x/sys/cpu"

// hasInterleaveKernel selects interleave2AVX2 for ReadFloat32's stereo
// output (helix, issue 50).
var hasInterleaveKernel = cpu.X86.HasAVX2

// interleave2AVX2 writes l and r (n values each, a multiple of 8) to out as
// interleaved stereo.
//
//go:noescape
func interleave2AVX2(l, r, out *float32, n int)
