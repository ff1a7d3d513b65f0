#include "textflag.h"

// func halfBandAVX(out, e, o *float32, mid float32, taps *float32, nj, n int)
// 32 outputs a pass, in four registers of eight, each lane adding its taps
// in order: out = mid·e, then out += g[j]·(o[J-1-j] + o[J+j]) for j < J.
TEXT ·halfBandAVX(SB), NOSPLIT, $0-56
	MOVQ         out+0(FP), DI
	MOVQ         e+8(FP), SI
	MOVQ         o+16(FP), R8
	LEAQ         mid+24(FP), AX
	VBROADCASTSS (AX), Y15
	MOVQ         taps+32(FP), R9
	MOVQ         nj+40(FP), CX
	MOVQ         n+48(FP), DX

hbblock:
	CMPQ   DX, $0
	JLE    hbdone
	VMULPS (SI), Y15, Y0
	VMULPS 32(SI), Y15, Y1
	VMULPS 64(SI), Y15, Y2
	VMULPS 96(SI), Y15, Y3
	LEAQ   -4(R8)(CX*4), R10 // o[J-1-j], walking down
	LEAQ   (R8)(CX*4), R11   // o[J+j], walking up
	MOVQ   R9, R12
	MOVQ   CX, BX

hbtap:
	VBROADCASTSS (R12), Y14
	VMOVUPS      (R10), Y4
	VADDPS       (R11), Y4, Y4
	VMULPS       Y14, Y4, Y4
	VADDPS       Y4, Y0, Y0
	VMOVUPS      32(R10), Y5
	VADDPS       32(R11), Y5, Y5
	VMULPS       Y14, Y5, Y5
	VADDPS       Y5, Y1, Y1
	VMOVUPS      64(R10), Y6
	VADDPS       64(R11), Y6, Y6
	VMULPS       Y14, Y6, Y6
	VADDPS       Y6, Y2, Y2
	VMOVUPS      96(R10), Y7
	VADDPS       96(R11), Y7, Y7
	VMULPS       Y14, Y7, Y7
	VADDPS       Y7, Y3, Y3
	ADDQ         $4, R12
	SUBQ         $4, R10
	ADDQ         $4, R11
	DECQ         BX
	JNZ          hbtap

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $128, SI
	ADDQ    $128, R8
	SUBQ    $32, DX
	JMP     hbblock

hbdone:
	VZEROUPPER
	RET

// func polyDotsAVX(out, buf, taps *float32, at, ph *int32, k, n int)
// out[i] = the k taps of phase ph[i] · buf[at[i]:]: four registers of eight
// lanes (vector v of the k/8 goes to register v mod 4, so that four chains of
// additions overlap), added as dot32 adds them, then folded as it folds them.
TEXT ·polyDotsAVX(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DI
	MOVQ buf+8(FP), SI
	MOVQ taps+16(FP), R8
	MOVQ at+24(FP), R9
	MOVQ ph+32(FP), R10
	MOVQ k+40(FP), R11
	MOVQ n+48(FP), DX
	SHLQ $2, R11 // k in bytes

pdout:
	TESTQ   DX, DX
	JZ      pddone
	MOVLQSX (R9), AX
	LEAQ    (SI)(AX*4), BX
	MOVLQSX (R10), AX
	IMULQ   R11, AX
	LEAQ    (R8)(AX*1), R12
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3
	XORQ    AX, AX

pdin:
	VMOVUPS (R12)(AX*1), Y4
	VMULPS  (BX)(AX*1), Y4, Y4
	VADDPS  Y4, Y0, Y0
	VMOVUPS 32(R12)(AX*1), Y5
	VMULPS  32(BX)(AX*1), Y5, Y5
	VADDPS  Y5, Y1, Y1
	VMOVUPS 64(R12)(AX*1), Y6
	VMULPS  64(BX)(AX*1), Y6, Y6
	VADDPS  Y6, Y2, Y2
	VMOVUPS 96(R12)(AX*1), Y7
	VMULPS  96(BX)(AX*1), Y7, Y7
	VADDPS  Y7, Y3, Y3
	ADDQ    $128, AX
	CMPQ    AX, R11
	JLT     pdin

	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, (DI)
	ADDQ         $4, DI
	ADDQ         $4, R9
	ADDQ         $4, R10
	DECQ         DX
	JMP          pdout

pddone:
	VZEROUPPER
	RET
