package f32

// Interleave2 writes l and r to out as interleaved stereo: out[2i] = l[i],
// out[2i+1] = r[i] for i < len(l) (r and out at least as long, out twice).
// The MP3 and AAC decoders' output step: with AVX, eight frames at a time.
func Interleave2(l, r, out []float32) {
	n := len(l)
	r, out = r[:n], out[:2*n]
	i := 0
	if hasInterleaveKernel && n >= 8 {
		i = n &^ 7
		interleave2AVX(&l[0], &r[0], &out[0], i)
	}
	for ; i < n; i++ {
		out[2*i] = l[i]
		out[2*i+1] = r[i]
	}
}
