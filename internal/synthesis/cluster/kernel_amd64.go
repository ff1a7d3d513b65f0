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

// dotLanes2x3 writes, for a_r in (a0, a1) and b_c in (b0, b1, b2), the four
// partial sums of f32.Dot(a_r, b_c) (lane j: the products of the indices
// ≡ j mod 4, added in order, without FMA) to out[8c+4r:]; n is a
// multiple of 4. (l0+l1)+(l2+l3) of them is f32.Dot bit for bit.
//
//go:noescape
func dotLanes2x3(a0, a1, b0, b1, b2 *float32, n int, out *[24]float32)

// addWiden adds float64(src[i]) to dst[i] for i < n (a multiple of 8).
//
//go:noescape
func addWiden(dst *float64, src *float32, n int)

// dots4x4 writes Σ_i float64(x_r[i])·s[4i+j] to out[4r+j], adding in the
// order of i without FMA, for four points x_r and four interleaved sums.
//
//go:noescape
func dots4x4(x0, x1, x2, x3 *float32, s *float64, n int, out *[16]float64)

// maxUpdate64 sets best[i], at[i] = s[i], c where s[i] > best[i], for
// i < n (a multiple of 4).
//
//go:noescape
func maxUpdate64(best *float64, at *int64, s *float64, c int64, n int)

// maxUpdate32 is maxUpdate64 for float32 values of s.
//
//go:noescape
func maxUpdate32(best *float64, at *int64, s *float32, c int64, n int)

// sumSquares4 writes Σ_i float64(x_r[i])² to out[r] for four rows, adding
// in the order of i without FMA; n is a multiple of 4.
//
//go:noescape
func sumSquares4(x0, x1, x2, x3 *float32, n int, out *[4]float64)

// divBy sets dst[i] = src[i] / d for i < n (a multiple of 4).
//
//go:noescape
func divBy(dst, src *float64, d float64, n int)

// subWiden subtracts float64(src[i]) from dst[i] for i < n (a multiple of 8).
//
//go:noescape
func subWiden(dst *float64, src *float32, n int)
