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

// func polyDotsAVX(out, buf, taps *float32, at, ph *int32, k, n, shift int)
// out[i] = the k taps of phase ph[i] · buf[at[i]+shift:]: two registers of eight
// lanes (vector v of the k/8 goes to register v mod 2, so that two chains of
// additions overlap), added as dot16 adds them, then folded as it folds them.
TEXT ·polyDotsAVX(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ buf+8(FP), SI
	MOVQ shift+56(FP), AX
	LEAQ (SI)(AX*4), SI // buf + shift
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
	XORQ    AX, AX

pdin:
	VMOVUPS (R12)(AX*1), Y4
	VMULPS  (BX)(AX*1), Y4, Y4
	VADDPS  Y4, Y0, Y0
	VMOVUPS 32(R12)(AX*1), Y5
	VMULPS  32(BX)(AX*1), Y5, Y5
	VADDPS  Y5, Y1, Y1
	ADDQ    $64, AX
	CMPQ    AX, R11
	JLT     pdin

	VADDPS       Y1, Y0, Y0
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

// FOLD8 folds the two accumulators a and b of one output as dot16 does and
// leaves the sum in the low lane of a's X register (x); t is scratch.
#define FOLD8(a, b, x, t) \
	VADDPS       b, a, a   \
	VEXTRACTF128 $1, a, t  \
	VADDPS       t, x, x   \
	VMOVHLPS     x, x, t   \
	VADDPS       t, x, x   \
	VMOVSHDUP    x, t      \
	VADDSS       t, x, x

// func polyDots4AVX(out, buf, taps *float32, at, ph *int32, k, groups, ostride, bstride, shift int)
// For each of groups outputs i: out[i+j·ostride/4] for j < 4, the four
// outputs that share output i's phase, from buf[at[i] + shift + j·bstride/4:]: one
// load of each tap vector serves four outputs. Each output adds as dot16.
TEXT ·polyDots4AVX(SB), NOSPLIT, $0-80
	MOVQ out+0(FP), DI
	MOVQ buf+8(FP), SI
	MOVQ shift+72(FP), AX
	LEAQ (SI)(AX*4), SI // buf + shift
	MOVQ taps+16(FP), R8
	MOVQ at+24(FP), R9
	MOVQ ph+32(FP), R10
	MOVQ k+40(FP), R11
	SHLQ $2, R11 // k in bytes

p4out:
	CMPQ    groups+48(FP), $0
	JLE     p4done
	MOVQ    bstride+64(FP), CX
	MOVLQSX (R9), AX
	LEAQ    (SI)(AX*4), BX // output j reads BX + j·bstride
	LEAQ    (BX)(CX*1), DX
	LEAQ    (BX)(CX*2), R13
	ADDQ    R13, CX        // CX = BX + 3·bstride
	MOVLQSX (R10), AX
	IMULQ   R11, AX
	LEAQ    (R8)(AX*1), R12
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3
	VXORPS  Y4, Y4, Y4
	VXORPS  Y5, Y5, Y5
	VXORPS  Y6, Y6, Y6
	VXORPS  Y7, Y7, Y7
	XORQ    AX, AX

p4in:
	VMOVUPS (R12)(AX*1), Y8
	VMOVUPS 32(R12)(AX*1), Y9
	VMULPS  (BX)(AX*1), Y8, Y10
	VADDPS  Y10, Y0, Y0
	VMULPS  32(BX)(AX*1), Y9, Y11
	VADDPS  Y11, Y1, Y1
	VMULPS  (DX)(AX*1), Y8, Y12
	VADDPS  Y12, Y2, Y2
	VMULPS  32(DX)(AX*1), Y9, Y13
	VADDPS  Y13, Y3, Y3
	VMULPS  (R13)(AX*1), Y8, Y10
	VADDPS  Y10, Y4, Y4
	VMULPS  32(R13)(AX*1), Y9, Y11
	VADDPS  Y11, Y5, Y5
	VMULPS  (CX)(AX*1), Y8, Y12
	VADDPS  Y12, Y6, Y6
	VMULPS  32(CX)(AX*1), Y9, Y13
	VADDPS  Y13, Y7, Y7
	ADDQ    $64, AX
	CMPQ    AX, R11
	JLT     p4in

	FOLD8(Y0, Y1, X0, X8)
	FOLD8(Y2, Y3, X2, X9)
	FOLD8(Y4, Y5, X4, X10)
	FOLD8(Y6, Y7, X6, X11)
	MOVQ   ostride+56(FP), AX
	VMOVSS X0, (DI)
	VMOVSS X2, (DI)(AX*1)
	VMOVSS X4, (DI)(AX*2)
	LEAQ   (AX)(AX*2), AX
	VMOVSS X6, (DI)(AX*1)
	ADDQ   $4, DI
	ADDQ   $4, R9
	ADDQ   $4, R10
	DECQ   groups+48(FP)
	JMP    p4out

p4done:
	VZEROUPPER
	RET
