#include "textflag.h"

// func dot2x4(a0, a1, b0, b1, b2, b3 *float32, n int, out *[8]float32)
TEXT ·dot2x4(SB), NOSPLIT, $0-64
	MOVQ a0+0(FP), SI
	MOVQ a1+8(FP), DI
	MOVQ b0+16(FP), R8
	MOVQ b1+24(FP), R9
	MOVQ b2+32(FP), R10
	MOVQ b3+40(FP), R11
	MOVQ n+48(FP), CX
	MOVQ out+56(FP), DX
	SHLQ $2, CX
	XORQ AX, AX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

loop:
	CMPQ AX, CX
	JGE  done
	VMOVUPS (SI)(AX*1), Y8
	VMOVUPS (DI)(AX*1), Y9
	VMOVUPS (R8)(AX*1), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y4
	VMOVUPS (R9)(AX*1), Y11
	VFMADD231PS Y8, Y11, Y1
	VFMADD231PS Y9, Y11, Y5
	VMOVUPS (R10)(AX*1), Y12
	VFMADD231PS Y8, Y12, Y2
	VFMADD231PS Y9, Y12, Y6
	VMOVUPS (R11)(AX*1), Y13
	VFMADD231PS Y8, Y13, Y3
	VFMADD231PS Y9, Y13, Y7
	ADDQ $32, AX
	JMP  loop

done:
	VHADDPS Y1, Y0, Y8
	VHADDPS Y3, Y2, Y9
	VHADDPS Y9, Y8, Y10
	VEXTRACTF128 $1, Y10, X11
	VADDPS X11, X10, X10
	VMOVUPS X10, (DX)
	VHADDPS Y5, Y4, Y8
	VHADDPS Y7, Y6, Y9
	VHADDPS Y9, Y8, Y10
	VEXTRACTF128 $1, Y10, X11
	VADDPS X11, X10, X10
	VMOVUPS X10, 16(DX)
	VZEROUPPER
	RET

// func dotLanes2x3(a0, a1, b0, b1, b2 *float32, n int, out *[24]float32)
// out[8c+4r+j] = Σ a_r[i]·b_c[i] over i ≡ j (mod 4), i ascending, each
// product rounded and then added (no FMA): f32.Dot's four accumulators. A
// Y register holds a0's four lanes in its low half and a1's in its high.
TEXT ·dotLanes2x3(SB), NOSPLIT, $0-56
	MOVQ a0+0(FP), SI
	MOVQ a1+8(FP), DI
	MOVQ b0+16(FP), R8
	MOVQ b1+24(FP), R9
	MOVQ b2+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DX
	SHLQ $2, CX
	XORQ AX, AX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2

lanesloop:
	CMPQ AX, CX
	JGE  lanesdone
	VMOVUPS (SI)(AX*1), X8
	VINSERTF128 $1, (DI)(AX*1), Y8, Y8
	VBROADCASTF128 (R8)(AX*1), Y10
	VBROADCASTF128 (R9)(AX*1), Y11
	VBROADCASTF128 (R10)(AX*1), Y12
	VMULPS Y8, Y10, Y10
	VADDPS Y10, Y0, Y0
	VMULPS Y8, Y11, Y11
	VADDPS Y11, Y1, Y1
	VMULPS Y8, Y12, Y12
	VADDPS Y12, Y2, Y2
	ADDQ $16, AX
	JMP  lanesloop

lanesdone:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	VZEROUPPER
	RET

// func addWiden(dst *float64, src *float32, n int)
// dst[i] += float64(src[i]) for i < n, n a multiple of 8.
TEXT ·addWiden(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

widenloop:
	CMPQ AX, CX
	JGE  widendone
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y1
	VADDPD (DI)(AX*8), Y0, Y0
	VADDPD 32(DI)(AX*8), Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ $8, AX
	JMP  widenloop

widendone:
	VZEROUPPER
	RET

// func dots4x4(x0, x1, x2, x3 *float32, s *float64, n int, out *[16]float64)
// out[4r+j] = Σ_i float64(x_r[i])·s[4i+j], i ascending, each product rounded
// and then added (no FMA): four points against four clusters whose sums s
// holds interleaved, dimension by dimension.
TEXT ·dots4x4(SB), NOSPLIT, $0-56
	MOVQ x0+0(FP), SI
	MOVQ x1+8(FP), DI
	MOVQ x2+16(FP), R8
	MOVQ x3+24(FP), R9
	MOVQ s+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DX
	XORQ AX, AX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

dotsloop:
	CMPQ AX, CX
	JGE  dotsdone
	MOVQ AX, BX
	SHLQ $5, BX
	VMOVUPD (R10)(BX*1), Y4
	VBROADCASTSS (SI)(AX*4), X5
	VCVTPS2PD X5, Y5
	VMULPD Y5, Y4, Y5
	VADDPD Y5, Y0, Y0
	VBROADCASTSS (DI)(AX*4), X6
	VCVTPS2PD X6, Y6
	VMULPD Y6, Y4, Y6
	VADDPD Y6, Y1, Y1
	VBROADCASTSS (R8)(AX*4), X7
	VCVTPS2PD X7, Y7
	VMULPD Y7, Y4, Y7
	VADDPD Y7, Y2, Y2
	VBROADCASTSS (R9)(AX*4), X8
	VCVTPS2PD X8, Y8
	VMULPD Y8, Y4, Y8
	VADDPD Y8, Y3, Y3
	INCQ AX
	JMP  dotsloop

dotsdone:
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPD Y3, 96(DX)
	VZEROUPPER
	RET

// func maxUpdate64(best *float64, at *int64, s *float64, c int64, n int)
// For i < n (a multiple of 4): if s[i] > best[i] (false for NaN, as in Go),
// best[i], at[i] = s[i], c.
TEXT ·maxUpdate64(SB), NOSPLIT, $0-40
	MOVQ best+0(FP), DI
	MOVQ at+8(FP), SI
	MOVQ s+16(FP), DX
	MOVQ c+24(FP), AX
	MOVQ n+32(FP), CX
	MOVQ AX, X3
	VPBROADCASTQ X3, Y3
	XORQ R8, R8

max64loop:
	CMPQ R8, CX
	JGE  max64done
	VMOVUPD (DX)(R8*8), Y0
	VMOVUPD (DI)(R8*8), Y1
	VCMPPD $0x1e, Y1, Y0, Y2
	VBLENDVPD Y2, Y0, Y1, Y1
	VMOVUPD Y1, (DI)(R8*8)
	VMOVDQU (SI)(R8*8), Y4
	VBLENDVPD Y2, Y3, Y4, Y4
	VMOVDQU Y4, (SI)(R8*8)
	ADDQ $4, R8
	JMP  max64loop

max64done:
	VZEROUPPER
	RET

// func maxUpdate32(best *float64, at *int64, s *float32, c int64, n int)
// maxUpdate64 with s in float32, widened (exactly) to float64.
TEXT ·maxUpdate32(SB), NOSPLIT, $0-40
	MOVQ best+0(FP), DI
	MOVQ at+8(FP), SI
	MOVQ s+16(FP), DX
	MOVQ c+24(FP), AX
	MOVQ n+32(FP), CX
	MOVQ AX, X3
	VPBROADCASTQ X3, Y3
	XORQ R8, R8

max32loop:
	CMPQ R8, CX
	JGE  max32done
	VCVTPS2PD (DX)(R8*4), Y0
	VMOVUPD (DI)(R8*8), Y1
	VCMPPD $0x1e, Y1, Y0, Y2
	VBLENDVPD Y2, Y0, Y1, Y1
	VMOVUPD Y1, (DI)(R8*8)
	VMOVDQU (SI)(R8*8), Y4
	VBLENDVPD Y2, Y3, Y4, Y4
	VMOVDQU Y4, (SI)(R8*8)
	ADDQ $4, R8
	JMP  max32loop

max32done:
	VZEROUPPER
	RET

// func sumSquares4(x0, x1, x2, x3 *float32, n int, out *[4]float64)
// out[r] = Σ_{i<n} float64(x_r[i])·float64(x_r[i]), i ascending, each square
// rounded and then added (no FMA); n a multiple of 4. Four elements of each
// row are widened, transposed so that lane r holds row r, and added one
// element at a time: each row's sum in its own order.
TEXT ·sumSquares4(SB), NOSPLIT, $0-48
	MOVQ x0+0(FP), SI
	MOVQ x1+8(FP), DI
	MOVQ x2+16(FP), R8
	MOVQ x3+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ out+40(FP), DX
	XORQ AX, AX
	VXORPD Y8, Y8, Y8

sqloop:
	CMPQ AX, CX
	JGE  sqdone
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD (DI)(AX*4), Y1
	VCVTPS2PD (R8)(AX*4), Y2
	VCVTPS2PD (R9)(AX*4), Y3
	VUNPCKLPD Y1, Y0, Y4
	VUNPCKHPD Y1, Y0, Y5
	VUNPCKLPD Y3, Y2, Y6
	VUNPCKHPD Y3, Y2, Y7
	VPERM2F128 $0x20, Y6, Y4, Y0
	VPERM2F128 $0x20, Y7, Y5, Y1
	VPERM2F128 $0x31, Y6, Y4, Y2
	VPERM2F128 $0x31, Y7, Y5, Y3
	VMULPD Y0, Y0, Y0
	VADDPD Y0, Y8, Y8
	VMULPD Y1, Y1, Y1
	VADDPD Y1, Y8, Y8
	VMULPD Y2, Y2, Y2
	VADDPD Y2, Y8, Y8
	VMULPD Y3, Y3, Y3
	VADDPD Y3, Y8, Y8
	ADDQ $4, AX
	JMP  sqloop

sqdone:
	VMOVUPD Y8, (DX)
	VZEROUPPER
	RET

// func divBy(dst, src *float64, d float64, n int)
// dst[i] = src[i] / d for i < n, n a multiple of 4 (IEEE division, as Go's).
TEXT ·divBy(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	VBROADCASTSD d+16(FP), Y1
	MOVQ n+24(FP), CX
	XORQ AX, AX

divloop:
	CMPQ AX, CX
	JGE  divdone
	VMOVUPD (SI)(AX*8), Y0
	VDIVPD Y1, Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	JMP  divloop

divdone:
	VZEROUPPER
	RET

// func subWiden(dst *float64, src *float32, n int)
// dst[i] -= float64(src[i]) for i < n, n a multiple of 8.
TEXT ·subWiden(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

subloop:
	CMPQ AX, CX
	JGE  subdone
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y1
	VMOVUPD (DI)(AX*8), Y2
	VMOVUPD 32(DI)(AX*8), Y3
	VSUBPD Y0, Y2, Y2
	VSUBPD Y1, Y3, Y3
	VMOVUPD Y2, (DI)(AX*8)
	VMOVUPD Y3, 32(DI)(AX*8)
	ADDQ $8, AX
	JMP  subloop

subdone:
	VZEROUPPER
	RET
