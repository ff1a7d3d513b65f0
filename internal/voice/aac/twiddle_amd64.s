#include "textflag.h"

// func preTwiddleAVX2(x *float32, m int, pre *complex128, rev *int32, z *complex128)
// imdct.dct4's pre-twiddle: z[rev[j]] = complex(x[2j], x[m−1−2j])·pre[j]
// for j < m/2, two j at a time.
TEXT ·preTwiddleAVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ m+8(FP), CX
	MOVQ pre+16(FP), DX
	MOVQ rev+24(FP), R8
	MOVQ z+32(FP), DI
	LEAQ -16(SI)(CX*4), BX   // &x[m−4]
	SHRQ $1, CX              // h
	XORQ AX, AX              // j

preloop:
	CMPQ AX, CX
	JGE  predone
	VCVTPS2PD (SI)(AX*8), Y0   // x[2j], x[2j+1], x[2j+2], x[2j+3]
	VCVTPS2PD (BX), Y1         // x[m−4−2j] … x[m−1−2j]
	VPERMPD $0x5F, Y1, Y1      // x[m−1−2j], ·, x[m−3−2j], ·
	VBLENDPD $0xA, Y1, Y0, Y0  // x[2j], x[m−1−2j], x[2j+2], x[m−3−2j]
	VMOVUPD (DX), Y2
	VMOVDDUP Y2, Y4
	VPERMILPD $0xF, Y2, Y5
	VPERMILPD $0x5, Y0, Y3
	VMULPD Y5, Y3, Y3
	VFMADDSUB231PD Y4, Y0, Y3
	MOVLQSX (R8)(AX*4), R9
	SHLQ $4, R9
	VMOVUPD X3, (DI)(R9*1)
	VEXTRACTF128 $1, Y3, X3
	MOVLQSX 4(R8)(AX*4), R9
	SHLQ $4, R9
	VMOVUPD X3, (DI)(R9*1)
	ADDQ $2, AX
	ADDQ $32, DX
	SUBQ $16, BX
	JMP  preloop

predone:
	VZEROUPPER
	RET

// func postTwiddleAVX2(z, post *complex128, u *float64, h int)
// imdct.dct4's post-twiddle: w = z[p]·post[p], u[2p] = re w, u[2h−1−2p] =
// −im w, for p < h; four p from the start and four from the end at a time,
// so that eight consecutive u are written at once at each end.
TEXT ·postTwiddleAVX2(SB), NOSPLIT, $0-32
	MOVQ z+0(FP), SI
	MOVQ post+8(FP), DX
	MOVQ u+16(FP), DI
	MOVQ h+24(FP), CX
	MOVQ CX, R8
	SHLQ $4, R8
	LEAQ -64(SI)(R8*1), R9   // &z[h−4]
	LEAQ -64(DX)(R8*1), R10  // &post[h−4]
	LEAQ -64(DI)(R8*1), R11  // &u[2h−8]
	SHRQ $1, CX              // h/2
	XORQ AX, AX              // p
	VMOVUPD oddsign<>(SB), Y15

postloop:
	CMPQ AX, CX
	JGE  postdone
	VMOVUPD (SI), Y0
	VMOVUPD (DX), Y1
	VMOVDDUP Y1, Y4
	VPERMILPD $0xF, Y1, Y5
	VPERMILPD $0x5, Y0, Y6
	VMULPD Y5, Y6, Y6
	VFMADDSUB231PD Y4, Y0, Y6
	VMOVUPD 32(SI), Y0
	VMOVUPD 32(DX), Y1
	VMOVDDUP Y1, Y4
	VPERMILPD $0xF, Y1, Y5
	VPERMILPD $0x5, Y0, Y7
	VMULPD Y5, Y7, Y7
	VFMADDSUB231PD Y4, Y0, Y7
	VMOVUPD (R9), Y0
	VMOVUPD (R10), Y1
	VMOVDDUP Y1, Y4
	VPERMILPD $0xF, Y1, Y5
	VPERMILPD $0x5, Y0, Y8
	VMULPD Y5, Y8, Y8
	VFMADDSUB231PD Y4, Y0, Y8
	VMOVUPD 32(R9), Y0
	VMOVUPD 32(R10), Y1
	VMOVDDUP Y1, Y4
	VPERMILPD $0xF, Y1, Y5
	VPERMILPD $0x5, Y0, Y9
	VMULPD Y5, Y9, Y9
	VFMADDSUB231PD Y4, Y0, Y9
	// u[2p..2p+7] = r0, −iq3, r1, −iq2 | r2, −iq1, r3, −iq0
	VPERMPD $0x5F, Y9, Y0
	VBLENDPD $0xA, Y0, Y6, Y0
	VXORPD Y15, Y0, Y0
	VMOVUPD Y0, (DI)
	VPERMPD $0x5F, Y8, Y1
	VBLENDPD $0xA, Y1, Y7, Y1
	VXORPD Y15, Y1, Y1
	VMOVUPD Y1, 32(DI)
	// u[2h−8−2p..2h−1−2p] = rq0, −i3, rq1, −i2 | rq2, −i1, rq3, −i0
	VPERMPD $0x5F, Y7, Y2
	VBLENDPD $0xA, Y2, Y8, Y2
	VXORPD Y15, Y2, Y2
	VMOVUPD Y2, (R11)
	VPERMPD $0x5F, Y6, Y3
	VBLENDPD $0xA, Y3, Y9, Y3
	VXORPD Y15, Y3, Y3
	VMOVUPD Y3, 32(R11)
	ADDQ $4, AX
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, DI
	SUBQ $64, R9
	SUBQ $64, R10
	SUBQ $64, R11
	JMP  postloop

postdone:
	VZEROUPPER
	RET

DATA oddsign<>+0(SB)/8, $0
DATA oddsign<>+8(SB)/8, $0x8000000000000000
DATA oddsign<>+16(SB)/8, $0
DATA oddsign<>+24(SB)/8, $0x8000000000000000
GLOBL oddsign<>(SB), RODATA|NOPTR, $32
