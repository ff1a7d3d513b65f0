#include "textflag.h"

// func antialiasAVX2(is *[576]float32, sblim int, cs, ca, csr, car *[8]float32)
// Frame.antialias's butterflies between subbands sb−1 and sb for 1 ≤ sb <
// sblim, eight at a time: with lo = is[18sb−8:18sb], up = is[18sb:18sb+8]
// and R reversing eight lanes, lo' = lo·R(cs) − R(up)·R(ca) and up' = up·cs
// + R(lo)·ca, multiplied and added separately as Go does (same bits).
TEXT ·antialiasAVX2(SB), NOSPLIT, $0-48
	MOVQ is+0(FP), SI
	MOVQ sblim+8(FP), CX
	MOVQ cs+16(FP), AX
	VMOVUPS (AX), Y10
	MOVQ ca+24(FP), AX
	VMOVUPS (AX), Y11
	MOVQ csr+32(FP), AX
	VMOVUPS (AX), Y12
	MOVQ car+40(FP), AX
	VMOVUPS (AX), Y13
	VMOVUPS reverse8aa<>(SB), Y15
	MOVQ $1, DX
	LEAQ 40(SI), DI          // &is[18−8]

loop:
	CMPQ DX, CX
	JGE  done
	VMOVUPS (DI), Y0         // lo
	VMOVUPS 32(DI), Y1       // up
	VPERMPS Y0, Y15, Y2      // R(lo)
	VPERMPS Y1, Y15, Y3      // R(up)
	VMULPS Y12, Y0, Y4       // lo·R(cs)
	VMULPS Y13, Y3, Y5       // R(up)·R(ca)
	VSUBPS Y5, Y4, Y4
	VMULPS Y10, Y1, Y6       // up·cs
	VMULPS Y11, Y2, Y7       // R(lo)·ca
	VADDPS Y7, Y6, Y6
	VMOVUPS Y4, (DI)
	VMOVUPS Y6, 32(DI)
	ADDQ $72, DI
	INCQ DX
	JMP  loop

done:
	VZEROUPPER
	RET

DATA reverse8aa<>+0(SB)/4, $7
DATA reverse8aa<>+4(SB)/4, $6
DATA reverse8aa<>+8(SB)/4, $5
DATA reverse8aa<>+12(SB)/4, $4
DATA reverse8aa<>+16(SB)/4, $3
DATA reverse8aa<>+20(SB)/4, $2
DATA reverse8aa<>+24(SB)/4, $1
DATA reverse8aa<>+28(SB)/4, $0
GLOBL reverse8aa<>(SB), RODATA|NOPTR, $32
