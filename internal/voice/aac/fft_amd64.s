#include "textflag.h"

// func fftStagesAVX2(z *complex128, n int, tw *complex128)
// The radix-2 stages of fft.run from size 8 up to n: for each stage of half
// size h, blocks of 2h values, a[k] ± b[k]·tw[h+k], two complex values per
// register.
TEXT ·fftStagesAVX2(SB), NOSPLIT, $0-24
	MOVQ z+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ tw+16(FP), DX
	SHLQ $4, CX           // n in bytes
	MOVQ $64, R8          // h in bytes (4 values)

stage:
	MOVQ R8, R9
	SHLQ $1, R9           // block size in bytes
	CMPQ R9, CX
	JGT  done
	LEAQ (DX)(R8*1), R10  // this stage's twiddles: tw[h..2h)
	XORQ R11, R11         // block start

block:
	CMPQ R11, CX
	JGE  nextstage
	LEAQ (SI)(R11*1), DI  // a
	LEAQ (DI)(R8*1), BX   // b
	XORQ AX, AX           // k in bytes

bfly:
	VMOVUPD (BX)(AX*1), Y0         // br0 bi0 br1 bi1
	VMOVUPD (R10)(AX*1), Y1        // wr0 wi0 wr1 wi1
	VMOVDDUP Y1, Y2                // wr0 wr0 wr1 wr1
	VPERMILPD $0xF, Y1, Y3         // wi0 wi0 wi1 wi1
	VPERMILPD $0x5, Y0, Y4         // bi0 br0 bi1 br1
	VMULPD Y3, Y4, Y4              // bi·wi, br·wi
	VFMADDSUB231PD Y2, Y0, Y4      // br·wr − bi·wi, bi·wr + br·wi
	VMOVUPD (DI)(AX*1), Y5
	VSUBPD Y4, Y5, Y6
	VADDPD Y4, Y5, Y5
	VMOVUPD Y6, (BX)(AX*1)
	VMOVUPD Y5, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, R8
	JLT  bfly
	ADDQ R9, R11
	JMP  block

nextstage:
	MOVQ R9, R8
	JMP  stage

done:
	VZEROUPPER
	RET
