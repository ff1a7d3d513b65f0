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

import "math"

// The tables and transforms below replace upstream's per-sample math.Pow and
// its 64×32 matrix synthesis filterbank (helix, see README.md).

var (
	// powtab34f[i] = i^(4/3) for every value Huffman decoding can yield (15 + 2^13-1).
	powtab34f [8207]float32
	pretabInt = [22]int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3, 2, 0}
	// pow2Frac[i] = 2^(i/4)
	pow2Frac = [4]float64{1, 1.189207115002721, 1.4142135623730951, 1.681792830507429}
)

func init() {
	for i := range powtab34f {
		powtab34f[i] = float32(math.Pow(float64(i), 4.0/3.0))
	}
}

// pow2Quarter is 2^(q/4).
func pow2Quarter(q int) float32 {
	return float32(math.Ldexp(pow2Frac[q&3], q>>2))
}

// synthState is what a stream carries from frame to frame.
type synthState struct {
	store [2][32][18]float32 // IMDCT overlap
	// v holds the last 16 V vectors of the synthesis filterbank per channel as
	// a ring (vpos is the newest) instead of upstream's shifted 1024-float array.
	v       [2][16][64]float32
	vpos    [2]int
	reorder [576]float32
}

// synthesize runs the polyphase synthesis filterbank for one time slot:
// 32 subband samples in, 32 PCM samples out.
//
// The matrixing V[i] = Σ s[k]·cos((16+i)(2k+1)π/64), i = 0..63, is a 32-point
// DCT-II X[m] read at m = 16+i, with X[32] = 0, X[64-m] = -X[m] and
// X[64+m] = -X[m].
func (st *synthState) synthesize(ch int, s *[32]float32, out *[32]float32) {
	dct32(s)
	st.vpos[ch] = (st.vpos[ch] - 1) & 15
	pos := st.vpos[ch]
	v := &st.v[ch][pos]
	for i := 0; i < 16; i++ {
		v[i] = s[16+i]
		v[48+i] = -s[i]
	}
	v[16] = 0
	for i := 17; i < 48; i++ {
		v[i] = -s[48-i]
	}
	// out[j] = Σ_{i<8} V_{2i}[j]·D[64i+j] + V_{2i+1}[32+j]·D[64i+32+j], V_t the
	// vector t slots old.
	vs := &st.v[ch]
	var e [8]*[32]float32
	var o [8]*[32]float32
	for i := 0; i < 8; i++ {
		e[i] = (*[32]float32)(vs[(pos+2*i)&15][0:32])
		o[i] = (*[32]float32)(vs[(pos+2*i+1)&15][32:64])
	}
	for j := 0; j < 32; j++ {
		d := &synthDtblT[j]
		s0 := e[0][j]*d[0] + o[0][j]*d[1]
		s1 := e[1][j]*d[2] + o[1][j]*d[3]
		s2 := e[2][j]*d[4] + o[2][j]*d[5]
		s3 := e[3][j]*d[6] + o[3][j]*d[7]
		s0 += e[4][j]*d[8] + o[4][j]*d[9]
		s1 += e[5][j]*d[10] + o[5][j]*d[11]
		s2 += e[6][j]*d[12] + o[6][j]*d[13]
		s3 += e[7][j]*d[14] + o[7][j]*d[15]
		out[j] = (s0 + s1) + (s2 + s3)
	}
}

// synthDtblT[j] holds the 16 window coefficients output sample j needs, in the
// order synthesize reads them.
var synthDtblT = func() (t [32][16]float32) {
	for j := 0; j < 32; j++ {
		for i := 0; i < 8; i++ {
			t[j][2*i] = synthDtbl[64*i+j]
			t[j][2*i+1] = synthDtbl[64*i+32+j]
		}
	}
	return t
}()
