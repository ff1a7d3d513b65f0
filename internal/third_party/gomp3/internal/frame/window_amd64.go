package frame

import "golang.org/x/sys/cpu"

//go:generate sh -c "python3 gen_window_amd64.py > window_amd64.s"

// hasWindowKernel selects the AVX2/FMA synthesis filterbank (helix): Go does
// not vectorise loops, and the window's 512 multiply-adds per 32 samples were
// the largest part of an MP3 decode, the matrixing (dct32) the next.
var hasWindowKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// synthSlotAVX2 computes the slot's matrixing X = dct·s (X[m] =
// Σ_k s[k]·dct[k][m]), writes the row built from X (see synthState.rows) to
// row and row2, then the 32 output samples of the slot:
// out[j] = Σ_t R_t[16+j]·coef[t][j] (t even) or R_t[48+j]·coef[t][j] (t odd),
// R_t the row t slots old, R_0 at row and the older ones following it.
//
//go:noescape
func synthSlotAVX2(s *[32]float32, row, row2 *[80]float32, coef *[16][32]float32, dct *[32][32]float32, out *[32]float32)

// antialiasAVX2 is Frame.antialias's loop over subbands 1..sblim-1 in
// AVX2 (the same products and sums, not fused); csr and car are cs and ca
// reversed.
//
//go:noescape
func antialiasAVX2(is *[576]float32, sblim int, cs, ca, csr, car *[8]float32)
