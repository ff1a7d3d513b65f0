// Copyright 2017 Hajime Hoshi
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package frame

import (
	"math"
	"sync"
)

// The tables and transforms below replace upstream's per-sample math.Pow and
// its 64×32 matrix synthesis filterbank (helix, see README.md).

var (
	pretabInt = [22]int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3, 2, 0}
	// pow2Frac[i] = 2^(i/4)
	pow2Frac = [4]float64{1, 1.189207115002721, 1.4142135623730951, 1.681792830507429}
)

func init() {
}

// pow2Quarter is 2^(q/4). In float32's normal range the power of two is
// made from its exponent bits (helix: math.Ldexp was a few per cent of a
// decode); float32(f)·2^e equals float32(f·2^e) there, so the values are
// math.Ldexp's.
func pow2Quarter(q int) float32 {
	e := q >> 2
	if e >= -126 && e <= 126 {
		return float32(pow2Frac[q&3]) * math.Float32frombits(uint32(e+127)<<23)
	}
	return float32(math.Ldexp(pow2Frac[q&3], e))
}

// synthState is what a stream carries from frame to frame.
type synthState struct {
	store [2][32][18]float32 // IMDCT overlap
	// x holds the DCT outputs of the last 16 time slots per channel (from
	// which the synthesis filterbank's V vectors follow) as a ring written
	// twice, at vpos and vpos+16, so that the 16 newest are contiguous from
	// vpos; upstream shifts a 1024-float V array every slot.
	x    [2][32][32]float32
	vpos [2]int
	// rows is the AVX2 kernel's ring (instead of x): per slot the row
	// X[0..31], 0, X[31..1], X[0..15], from which V[0..31] = ±R[16..47]
	// and V[32..63] = -R[48..79] are contiguous, written twice like x.
	rows    [2][32][80]float32
	reorder [576]float32
}

// synthesize runs the polyphase synthesis filterbank for one time slot:
// 32 subband samples in, 32 PCM samples out.
//
// The matrixing V[i] = Σ s[k]·cos((16+i)(2k+1)π/64), i = 0..63, is a 32-point
// DCT-II X[m] read at m = 16+i, with X[32] = 0, X[64-m] = -X[m] and
// X[64+m] = -X[m]; so only X is kept. Output sample j is
// Σ_{i<8} V_{2i}[j]·D[64i+j] + V_{2i+1}[32+j]·D[64i+32+j], V_t the vector t
// slots old; V[16±k] = ∓X[32-k] and V[48±k] = -X[k] let samples 16-k and
// 16+k share their 16 loads.
func (st *synthState) synthesize(ch int, s *[32]float32, out *[32]float32) {
	if hasWindowKernel {
		st.synthesizeAVX2(ch, s, out)
		return
	}
	dct32(s)
	st.window(ch, s, out)
}

// synthesizeAVX2 is synthesize through the AVX2/FMA kernel (synthSlotAVX2):
// the matrixing as a direct 32×32 product instead of the fast DCT, and the
// window's sums in another order, with fused multiply-adds.
func (st *synthState) synthesizeAVX2(ch int, s *[32]float32, out *[32]float32) {
	pos := (st.vpos[ch] - 1) & 15
	st.vpos[ch] = pos
	synthSlotAVX2(s, &st.rows[ch][pos], &st.rows[ch][pos+16], synthCoef(), dctMatrix(), out)
}

// dctMatrix is the matrixing as synthSlotAVX2 reads it: dct[k][m] =
// cos(m(2k+1)π/64), the weight of subband sample k in DCT output m. Built on
// first use (issue 50: nothing at start).
var dctMatrix = sync.OnceValue(func() *[32][32]float32 {
	var t [32][32]float32
	for k := range t {
		for m := range t[k] {
			t[k][m] = float32(math.Cos(float64(m*(2*k+1)) * math.Pi / 64))
		}
	}
	return &t
})

// window is the synthesis window in Go, the reference for windowAVX2 and its
// fallback: s holds the slot's DCT outputs.
func (st *synthState) window(ch int, s *[32]float32, out *[32]float32) {
	pos := (st.vpos[ch] - 1) & 15
	st.vpos[ch] = pos
	ring := &st.x[ch]
	ring[pos] = *s
	ring[pos+16] = *s
	r := (*[16][32]float32)(ring[pos : pos+16])
	var o0, o16 float32
	for i := 0; i < 8; i++ {
		o0 += r[2*i][16]*synthC0[2*i] + r[2*i+1][16]*synthC0[2*i+1]
		o16 += r[2*i+1][0] * synthC16[i]
	}
	out[0], out[16] = o0, o16
	for k := 1; k < 16; k++ {
		c1, c2 := &synthCMinus[k], &synthCPlus[k]
		a, b := r[0][32-k], r[1][k]
		s1 := a*c1[0] + b*c1[1]
		s2 := a*c2[0] + b*c2[1]
		a, b = r[2][32-k], r[3][k]
		t1 := a*c1[2] + b*c1[3]
		t2 := a*c2[2] + b*c2[3]
		a, b = r[4][32-k], r[5][k]
		s1 += a*c1[4] + b*c1[5]
		s2 += a*c2[4] + b*c2[5]
		a, b = r[6][32-k], r[7][k]
		t1 += a*c1[6] + b*c1[7]
		t2 += a*c2[6] + b*c2[7]
		a, b = r[8][32-k], r[9][k]
		s1 += a*c1[8] + b*c1[9]
		s2 += a*c2[8] + b*c2[9]
		a, b = r[10][32-k], r[11][k]
		t1 += a*c1[10] + b*c1[11]
		t2 += a*c2[10] + b*c2[11]
		a, b = r[12][32-k], r[13][k]
		s1 += a*c1[12] + b*c1[13]
		s2 += a*c2[12] + b*c2[13]
		a, b = r[14][32-k], r[15][k]
		t1 += a*c1[14] + b*c1[15]
		t2 += a*c2[14] + b*c2[15]
		out[16-k], out[16+k] = s1+t1, s2+t2
	}
}

// The window coefficients synthesize multiplies by, signs folded in:
// synthCMinus[k] for sample 16-k, synthCPlus[k] for 16+k, interleaved as
// (even vector, odd vector) for i = 0..7.
var synthC0 [16]float32
var synthC16 [8]float32
var synthCMinus, synthCPlus [16][16]float32

// synthCoef is synthSlotAVX2's window: for the row t slots old, the 32
// coefficients by which R_t[16..47] (t even) or R_t[48..79] (t odd) are
// multiplied, signs folded in: V[16+k] = -X[32-k] and V[32..63] is -R[48..79].
// Built on first use, as dctMatrix: nothing at start (issue 50).
var synthCoef = sync.OnceValue(func() *[16][32]float32 {
	var c [16][32]float32
	for i := 0; i < 8; i++ {
		for j := 0; j < 32; j++ {
			c[2*i][j] = synthDtbl[64*i+j]
			if j > 16 {
				c[2*i][j] = -synthDtbl[64*i+j]
			}
			c[2*i+1][j] = -synthDtbl[64*i+32+j]
		}
	}
	return &c
})

func init() {
	de := func(i, j int) float32 { return synthDtbl[64*i+j] }
	do := func(i, j int) float32 { return synthDtbl[64*i+32+j] }
	for i := 0; i < 8; i++ {
		synthC0[2*i] = de(i, 0)
		synthC0[2*i+1] = -do(i, 0)
		synthC16[i] = -do(i, 16)
		for k := 1; k < 16; k++ {
			synthCMinus[k][2*i] = de(i, 16-k)
			synthCMinus[k][2*i+1] = -do(i, 16-k)
			synthCPlus[k][2*i] = -de(i, 16+k)
			synthCPlus[k][2*i+1] = -do(i, 16+k)
		}
	}
}
