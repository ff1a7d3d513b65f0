package synthstore

import "golang.org/x/sys/cpu"

// hasFloat4Kernel selects decodeFloat4AVX2 (VPSHUFB, VPERMQ on 256 bits: AVX2).
var hasFloat4Kernel = cpu.X86.HasAVX2

// decodeFloat4AVX2 decodes n elements (a multiple of 8) of a real[] body
// from src into dst; bad when a length word is not 4.
//
//go:noescape
func decodeFloat4AVX2(src *byte, dst *float32, n int) (bad bool)
