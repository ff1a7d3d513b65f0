#include "textflag.h"

// func fftStagesAVX2(z *complex128, n int, tw *complex128)
// fft.run's stages: the first two as one radix-4 pass, then the radix-2
// stages from size 8 up to n: for each stage of half size h, blocks of 2h
// values, a[k] ± b[k]·tw[h+k], two complex values per register.
TEXT ·fftStagesAVX2(SB), NOSPLIT, $0-24
	MOVQ z+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ tw+16(FP), DX
	SHLQ $4, CX           // n in bytes
	// the first two stages as one twiddle-free radix-4 pass over each q of
	// four values: t0 = q0+q1, t1 = q0−q1, t2 = q2+q3, t3 = −i(q2−q3);
	// q0, q1, q2, q3 = t0+t2, t1+t3, t0−t2, t1−t3
	VMOVUPD negodd3<>(SB), Y15
	XORQ AX, AX

radix4:
	VMOVUPD (SI)(AX*1), Y0          // q0 q1
	VMOVUPD 32(SI)(AX*1), Y1        // q2 q3
	VPERM2F128 $0x01, Y0, Y0, Y2    // q1 q0
	VADDPD Y2, Y0, Y3               // q0+q1, ·
	VSUBPD Y0, Y2, Y4               // ·, q0−q1
	VBLENDPD $0xC, Y4, Y3, Y3       // t0 t1
	VPERM2F128 $0x01, Y1, Y1, Y2    // q3 q2
	VADDPD Y2, Y1, Y5               // q2+q3, ·
	VSUBPD Y1, Y2, Y6               // ·, q2−q3
	VBLENDPD $0xC, Y6, Y5, Y5       // t2, q2−q3
	VPERMILPD $0x5, Y5, Y6          // ·, (im, re) of q2−q3
	VXORPD Y15, Y6, Y6              // ·, (im, −re): −i(q2−q3)
	VBLENDPD $0xC, Y6, Y5, Y5       // t2 t3
	VADDPD Y5, Y3, Y0
	VSUBPD Y5, Y3, Y1
	VMOVUPD Y0, (SI)(AX*1)
	VMOVUPD Y1, 32(SI)(AX*1)
	ADDQ $64, AX
	CMPQ AX, CX
	JLT  radix4

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

DATA negodd3<>+0(SB)/8, $0
DATA negodd3<>+8(SB)/8, $0
DATA negodd3<>+16(SB)/8, $0
DATA negodd3<>+24(SB)/8, $0x8000000000000000
GLOBL negodd3<>(SB), RODATA|NOPTR, $32
