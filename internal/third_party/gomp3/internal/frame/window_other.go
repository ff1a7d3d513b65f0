//go:build !amd64

package frame

var hasWindowKernel = false

func synthSlotAVX2(s *[32]float32, row, row2 *[80]float32, coef *[16][32]float32, dct *[32][32]float32, out *[32]float32) {
	panic("no kernel")
}

func antialiasAVX2(is *[576]float32, sblim int, cs, ca, csr, car *[8]float32) {
	panic("no kernel")
}
