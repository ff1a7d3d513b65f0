#include "textflag.h"

// func longWindowAVX2(u, left, right, ov *[1024]float64, o *[1024]float32)
// Decoder.synthesize's only-long windowing, overlap-add and new overlap
// (longWindowGo), four n at a time from both ends: n..n+3 and 1020−n..1023−n.
TEXT ·longWindowAVX2(SB), NOSPLIT, $0-40
	MOVQ u+0(FP), SI
	MOVQ left+8(FP), R8
	MOVQ right+16(FP), R9
	MOVQ ov+24(FP), DI
	MOVQ o+32(FP), DX
	XORQ AX, AX            // 8n
	MOVQ $8160, BX         // 8(1020−n)
	MOVQ $4064, CX         // 8(508−n)
	XORQ R10, R10          // 4n
	MOVQ $4080, R11        // 4(1020−n)
	VXORPD Y15, Y15, Y15

loop:
	VMOVUPD 4096(SI)(AX*1), Y0     // a = u[512+n+i]
	VMOVUPD (SI)(CX*1), Y1         // U = u[508−n..511−n]: b = −u[511−n−i] is −U reversed
	VMOVUPD (R8)(AX*1), Y2         // left[n+i]
	VMOVUPD (R8)(BX*1), Y3
	VPERMPD $0x1B, Y3, Y3          // left[1023−n−i]
	VMOVUPD (DI)(AX*1), Y4         // ov[n+i]
	VMOVUPD (DI)(BX*1), Y5
	VPERMPD $0x1B, Y5, Y5          // ov[1023−n−i]
	VFMADD231PD Y0, Y2, Y4         // o[n+i] = ov[n+i] + a·left[n+i]
	VFNMADD231PD Y0, Y3, Y5        // o[1023−n−i] = ov[1023−n−i] − a·left[1023−n−i]
	VCVTPD2PSY Y4, X4
	VMOVUPS X4, (DX)(R10*1)
	VPERMPD $0x1B, Y5, Y5
	VCVTPD2PSY Y5, X5
	VMOVUPS X5, (DX)(R11*1)
	VMOVUPD (R9)(BX*1), Y6         // Rh = right[1020−n..1023−n]
	VMULPD Y1, Y6, Y6              // U·Rh
	VPERMPD $0x1B, Y6, Y6
	VSUBPD Y6, Y15, Y6             // ov[n+i] = b·right[1023−n−i] = −(U·Rh) reversed
	VMOVUPD Y6, (DI)(AX*1)
	VMOVUPD (R9)(AX*1), Y7         // Rl = right[n..n+3]
	VPERMPD $0x1B, Y7, Y7
	VMULPD Y1, Y7, Y7
	VSUBPD Y7, Y15, Y7             // ov[1020−n+j] = −U[j]·right[n+3−j]
	VMOVUPD Y7, (DI)(BX*1)
	ADDQ $32, AX
	SUBQ $32, BX
	SUBQ $32, CX
	ADDQ $16, R10
	SUBQ $16, R11
	CMPQ AX, $4096
	JLT  loop
	VZEROUPPER
	RET

// func maxAbsBitsAVX2(p *float32, n int) uint32
TEXT ·maxAbsBitsAVX2(SB), NOSPLIT, $0-20
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	SHLQ $2, CX
	XORQ AX, AX
	VPXOR Y0, Y0, Y0
	VPCMPEQD Y15, Y15, Y15
	VPSRLD $1, Y15, Y15            // 0x7fffffff in every lane

mloop:
	CMPQ AX, CX
	JGE  mdone
	VPAND (SI)(AX*1), Y15, Y1
	VPMAXUD Y1, Y0, Y0
	ADDQ $32, AX
	JMP  mloop

mdone:
	VEXTRACTI128 $1, Y0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPMAXUD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, ret+16(FP)
	VZEROUPPER
	RET
