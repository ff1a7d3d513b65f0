package frame

import (
	"math"
	"math/rand/v2"
	"testing"
)

// dctDefinition is the matrixing's DCT in float64: X[m] = Σ s[k]·cos(m(2k+1)π/64).
func dctDefinition(s *[32]float32) (x [32]float64, mag float64) {
	for k := range s {
		mag += math.Abs(float64(s[k]))
	}
	for m := range x {
		for k := range s {
			x[m] += float64(s[k]) * math.Cos(float64(m*(2*k+1))*math.Pi/64)
		}
	}
	return x, mag
}

// windowDefinition is the synthesis window from its definition, in float64:
// out[j] = Σ_{i<8} V_{2i}[j]·D[64i+j] + V_{2i+1}[32+j]·D[64i+32+j], V_t the
// matrixing of the slot t slots old, here from its DCT outputs X (V[i] =
// X[16+i], X[32] = 0, X[64-m] = -X[m], X[64+m] = -X[m]); mag is Σ|term|.
func windowDefinition(hist [][32]float64, j int) (sum, mag float64) {
	x := func(x *[32]float64, m int) float64 {
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

// TestSynthesisKernelMatchesGo runs the AVX2/FMA synthesis filterbank and the
// Go one (dct32, window) over the same random subband samples (two channels,
// 300 slots, so the rings wrap many times) and checks both against the
// definition in float64 (the DCT by its cosines, then the window), within 16
// float32 roundings of the magnitudes summed (Σ|D|·Σ|s|): a kernel that reads
// the wrong row, coefficient, cosine or sign is off by a whole term.
func TestSynthesisKernelMatchesGo(t *testing.T) {
	if !hasWindowKernel {
		t.Skip("no AVX2/FMA on this CPU: the Go filterbank is the only one")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var goSt, asmSt synthState
	var hist [2][][32]float64
	var mags [2][]float64
	const eps = 16 * 0x1p-24
	var worstGo, worstAsm float64
	for slot := 0; slot < 300; slot++ {
		for ch := 0; ch < 2; ch++ {
			var s [32]float32
			for i := range s {
				s[i] = float32(rng.NormFloat64()) * float32(1+slot%7)
			}
			x, mag := dctDefinition(&s)
			hist[ch] = append(hist[ch], x)
			mags[ch] = append(mags[ch], mag)
			a, b := s, s
			var outGo, outAsm [32]float32
			dct32(&a)
			goSt.window(ch, &a, &outGo)
			asmSt.synthesizeAVX2(ch, &b, &outAsm)
			if len(hist[ch]) < 16 {
				continue // the definition needs 16 slots of history; both start from zeros
			}
			var smax float64
			for _, m := range mags[ch][len(mags[ch])-16:] {
				smax = max(smax, m)
			}
			for j := 0; j < 32; j++ {
				want, dmag := windowDefinition(hist[ch], j)
				// dmag is Σ|D·V|; bound V's own error by Σ|D|·Σ|s|
				var dsum float64
				for i := 0; i < 8; i++ {
					dsum += math.Abs(float64(synthDtbl[64*i+j])) + math.Abs(float64(synthDtbl[64*i+32+j]))
				}
				tol := eps * (dmag + dsum*smax)
				eGo, eAsm := math.Abs(float64(outGo[j])-want), math.Abs(float64(outAsm[j])-want)
				if eGo > tol || eAsm > tol {
					t.Fatalf("slot %d channel %d sample %d: definition %g, Go %g, AVX2 %g (tolerance %g)", slot, ch, j, want, outGo[j], outAsm[j], tol)
				}
				worstGo, worstAsm = max(worstGo, eGo/tol), max(worstAsm, eAsm/tol)
			}
		}
	}
	t.Logf("largest error as a share of the tolerance: Go %.2g, AVX2 %.2g", worstGo, worstAsm)
}

// TestPow2Quarter: the fast 2^(q/4) equals math.Ldexp's for every q a
// frame can produce and beyond, the ends of float32's range included.
func TestPow2Quarter(t *testing.T) {
	for q := -2000; q <= 600; q++ {
		want := float32(math.Ldexp(pow2Frac[q&3], q>>2))
		if got := pow2Quarter(q); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("q=%d: %g, want %g", q, got, want)
		}
	}
}

// TestAntialiasKernelMatchesGo: the AVX2 butterflies give the same bits as
// the Go ones for random lines, with 2 (mixed blocks) and 32 subbands, and
// leave the other lines alone.
func TestAntialiasKernelMatchesGo(t *testing.T) {
	if !hasWindowKernel {
		t.Skip("no AVX2/FMA on this CPU: the Go antialiasing is the only one")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sblim := range []int{2, 32} {
		var a [576]float32
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		b := a
		antialiasGo(&a, sblim)
		antialiasAVX2(&b, sblim, &cs, &ca, &csRev, &caRev)
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				t.Fatalf("sblim %d, line %d: Go %v, AVX2 %v", sblim, i, a[i], b[i])
			}
		}
	}
}
