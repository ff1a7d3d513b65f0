package aac

import "math"

// OutOfRange returns the index of the first value of p that is NaN or
// beyond ±lim (lim > 0), or -1 when there is none. A caller checks a decoded
// block with it: a damaged stream can decode to huge values. Where the CPU
// has AVX2 it scans eight values at a time (the check was a tenth of an AAC
// decode's time).
func OutOfRange(p []float32, lim float32) int {
	limBits := math.Float32bits(lim)
	i := 0
	if hasFFTKernel && len(p) >= 8 {
		n := len(p) &^ 7
		if maxAbsBitsAVX2(&p[0], n) <= limBits {
			i = n
		}
	}
	for ; i < len(p); i++ {
		// |x|'s bits order as |x| does, and NaN's lie above +Inf's
		if math.Float32bits(p[i])&^(1<<31) > limBits {
			return i
		}
	}
	return -1
}
