package aac

import "golang.org/x/sys/cpu"

// hasFFTKernel selects the AVX2/FMA radix-2 stages (helix, issue 50): the
// IMDCT's FFT was the largest part of an AAC decode, and Go does not
// vectorise; the Go stages in fft.run stay as the reference and fallback.
var hasFFTKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// fftStagesAVX2 runs fft.run's stages over z (n ≥ 8, a power of two): the
// radix-4 first pass, then the radix-2 stages of sizes 8 to n with the
// twiddles of the stage of half size h at tw[h:2h].
//
//go:noescape
func fftStagesAVX2(z *complex128, n int, tw *complex128)
