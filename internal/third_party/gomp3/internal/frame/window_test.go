package frame

import (
	"math"
	"math/rand/v2"
	"testing"
)

// windowDefinition is the synthesis window from its definition, in float64:
// out[j] = Σ_{i<8} V_{2i}[j]·D[64i+j] + V_{2i+1}[32+j]·D[64i+32+j], V_t the
// matrixing of the slot t slots old, here from its DCT outputs X (V[i] =
// X[16+i], X[32] = 0, X[64-m] = -X[m], X[64+m] = -X[m]); mag is Σ|term|.
func windowDefinition(hist [][32]float32, j int) (sum, mag float64) {
	x := func(x *[32]float32, m int) float64 {
		switch {
		case m < 32:
			return float64(x[m])
		case m == 32:
			return 0
		case m < 64:
			return -float64(x[64-m])
		default:
			return -float64(x[m-64])
		}
	}
	v := func(t, i int) float64 { return x(&hist[len(hist)-1-t], 16+i) }
	for i := 0; i < 8; i++ {
		a := v(2*i, j) * float64(synthDtbl[64*i+j])
		b := v(2*i+1, 32+j) * float64(synthDtbl[64*i+32+j])
		sum += a + b
		mag += math.Abs(a) + math.Abs(b)
	}
	return sum, mag
}

// TestWindowKernelMatchesGo runs the AVX2/FMA synthesis window and the Go one
// over the same random DCT outputs (two channels, 300 slots, so the rings
// wrap many times) and checks both against the definition in float64, within
// 16 float32 roundings of the sum of the terms' magnitudes: a kernel that reads
// the wrong row, coefficient or sign is off by a whole term.
func TestWindowKernelMatchesGo(t *testing.T) {
	if !hasWindowKernel {
		t.Skip("no AVX2/FMA on this CPU: the Go window is the only one")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var goSt, asmSt synthState
	var hist [2][][32]float32
	const eps = 16 * 0x1p-24
	var worstGo, worstAsm float64
	for slot := 0; slot < 300; slot++ {
		for ch := 0; ch < 2; ch++ {
			var x [32]float32
			for i := range x {
				x[i] = float32(rng.NormFloat64()) * float32(1+slot%7)
			}
			hist[ch] = append(hist[ch], x)
			a, b := x, x
			var outGo, outAsm [32]float32
			goSt.window(ch, &a, &outGo)
			asmSt.windowAVX2(ch, &b, &outAsm)
			if len(hist[ch]) < 16 {
				continue // the definition needs 16 slots of history; both start from zeros
			}
			for j := 0; j < 32; j++ {
				want, mag := windowDefinition(hist[ch], j)
				eGo, eAsm := math.Abs(float64(outGo[j])-want), math.Abs(float64(outAsm[j])-want)
				if eGo > eps*mag || eAsm > eps*mag {
					t.Fatalf("slot %d channel %d sample %d: definition %g, Go %g, AVX2 %g (Σ|terms| %g)", slot, ch, j, want, outGo[j], outAsm[j], mag)
				}
				worstGo, worstAsm = max(worstGo, eGo/mag), max(worstAsm, eAsm/mag)
			}
		}
	}
	t.Logf("largest error relative to Σ|terms|: Go %.2g, AVX2 %.2g", worstGo, worstAsm)
}
