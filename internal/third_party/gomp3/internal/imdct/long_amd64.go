package imdct

import "golang.org/x/sys/cpu"

//go:generate sh -c "python3 gen_long_amd64.py > long_amd64.s"

// hasLongKernel selects the AVX2/FMA long-block IMDCT: as a matrix product
// over 8 lanes it costs less than the scalar DCT-IV through a 9-point DFT.
var hasLongKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// longAVX2 is LongOverlapAdd for n subbands: is and store each point at n
// consecutive runs of 18 floats.
//
//go:noescape
func longAVX2(is, store *float32, n int, mat *[18][48]float32)
