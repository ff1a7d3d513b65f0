#include "textflag.h"

// Each 128-bit lane: the big-endian values of its two elements (bytes 4-7
// and 12-15) byte-swapped into its low 8 bytes; the high 8 bytes zero.
DATA swap<>+0(SB)/8, $0x0c0d0e0f04050607
DATA swap<>+8(SB)/8, $0x8080808080808080
DATA swap<>+16(SB)/8, $0x0c0d0e0f04050607
DATA swap<>+24(SB)/8, $0x8080808080808080
GLOBL swap<>(SB), RODATA|NOPTR, $32

// An element's length word, 4 big-endian, read little-endian (0x04000000)
// in the even dwords; zero in the odd (the values).
DATA four<>+0(SB)/8, $0x04000000
DATA four<>+8(SB)/8, $0x04000000
DATA four<>+16(SB)/8, $0x04000000
DATA four<>+24(SB)/8, $0x04000000
GLOBL four<>(SB), RODATA|NOPTR, $32

// The even dwords.
DATA even<>+0(SB)/8, $0x00000000ffffffff
DATA even<>+8(SB)/8, $0x00000000ffffffff
DATA even<>+16(SB)/8, $0x00000000ffffffff
DATA even<>+24(SB)/8, $0x00000000ffffffff
GLOBL even<>(SB), RODATA|NOPTR, $32

// func decodeFloat4AVX2(src *byte, dst *float32, n int) (bad bool)
// Decodes n elements (a multiple of 8) of real[]'s binary body, each a
// length word and a value, both big-endian: dst[i] = the value of element
// i. bad: some length word is not 4 (dst is then written all the same).
TEXT ·decodeFloat4AVX2(SB), NOSPLIT, $0-25
	MOVQ src+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ n+16(FP), CX
	VMOVDQU swap<>(SB), Y4
	VMOVDQU four<>(SB), Y5
	VMOVDQU even<>(SB), Y6
	VPXOR   Y7, Y7, Y7
	SHLQ    $2, CX
	ADDQ    DI, CX

loop:
	CMPQ DI, CX
	JGE  done
	VMOVDQU (SI), Y0          // elements 0-3
	VMOVDQU 32(SI), Y1        // elements 4-7
	VPXOR   Y5, Y0, Y2
	VPXOR   Y5, Y1, Y3
	VPOR    Y3, Y2, Y2
	VPAND   Y6, Y2, Y2
	VPOR    Y2, Y7, Y7        // any length word other than 4
	VPSHUFB Y4, Y0, Y0        // v0 v1 0 0 | v2 v3 0 0
	VPSHUFB Y4, Y1, Y1        // v4 v5 0 0 | v6 v7 0 0
	VPUNPCKLQDQ Y1, Y0, Y0    // v0 v1 v4 v5 | v2 v3 v6 v7
	VPERMQ  $0xd8, Y0, Y0     // v0 v1 v2 v3 v4 v5 v6 v7
	VMOVDQU Y0, (DI)
	ADDQ    $64, SI
	ADDQ    $32, DI
	JMP     loop

done:
	VPTEST  Y7, Y7
	SETNE   bad+24(FP)
	VZEROUPPER
	RET
