#include "textflag.h"

// func interleave2AVX(l, r, out *float32, n int)
// out[2i] = l[i], out[2i+1] = r[i] for i < n (a multiple of 8).
TEXT ·interleave2AVX(SB), NOSPLIT, $0-32
	MOVQ l+0(FP), SI
	MOVQ r+8(FP), DI
	MOVQ out+16(FP), DX
	MOVQ n+24(FP), CX
	SHLQ $2, CX
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  done
	VMOVUPS (SI)(AX*1), Y0
	VMOVUPS (DI)(AX*1), Y1
	VUNPCKLPS Y1, Y0, Y2           // l0 r0 l1 r1 | l4 r4 l5 r5
	VUNPCKHPS Y1, Y0, Y3           // l2 r2 l3 r3 | l6 r6 l7 r7
	VPERM2F128 $0x20, Y3, Y2, Y4
	VPERM2F128 $0x31, Y3, Y2, Y5
	VMOVUPS Y4, (DX)(AX*2)
	VMOVUPS Y5, 32(DX)(AX*2)
	ADDQ $32, AX
	JMP  loop

done:
	VZEROUPPER
	RET
