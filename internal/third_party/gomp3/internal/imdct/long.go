package imdct

import "sync"

// LongOverlapAdd runs the windowed 36-point IMDCT of block type bt (0, 1 or
// 3: long, start, stop) over each of the len(store) subbands of in (18 lines
// apiece), writes the first half plus the subband's stored overlap over its
// lines and keeps the second half in store (helix). It uses the AVX2/FMA
// kernel where the CPU has one; longOverlapAddGo is the reference.
func LongOverlapAdd(in []float32, store [][18]float32, bt int) {
	n := len(store)
	if n == 0 {
		return
	}
	in = in[:18*n]
	if hasLongKernel {
		longAVX2(&in[0], &store[0][0], n, &longMat()[bt])
		return
	}
	longOverlapAddGo(in, store, bt)
}

func longOverlapAddGo(in []float32, store [][18]float32, bt int) {
	for sb := range store {
		x := (*[18]float32)(in[18*sb : 18*sb+18])
		var y [36]float32
		WinTo(&y, x, bt)
		for i := 0; i < 18; i++ {
			x[i] = y[i] + store[sb][i]
			store[sb][i] = y[i+18]
		}
	}
}

// longMat is the kernel's matrix per block type: row m holds the windowed
// cosines by which line m is multiplied, output samples 0..17 in columns
// 0..17 and 18..35 in columns 24..41 (the rest zero), so that each half
// starts on a vector. Built on first use (issue 50: nothing at start).
var longMat = sync.OnceValue(func() *[4][18][48]float32 {
	var t [4][18][48]float32
	for _, bt := range []int{0, 1, 3} {
		for m := 0; m < 18; m++ {
			for p := 0; p < 36; p++ {
				col := p
				if p >= 18 {
					col = p + 6
				}
				t[bt][m][col] = cosN36[m][p] * imdctWinData[bt][p]
			}
		}
	}
	return &t
})
