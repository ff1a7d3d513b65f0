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

package imdct

import (
	"math"
	"math/cmplx"
)

var imdctWinData = [4][36]float32{}

func init() {
	for i := 0; i < 36; i++ {
		imdctWinData[0][i] = float32(math.Sin(math.Pi / 36 * (float64(i) + 0.5)))
	}
	for i := 0; i < 18; i++ {
		imdctWinData[1][i] = float32(math.Sin(math.Pi / 36 * (float64(i) + 0.5)))
	}
	for i := 18; i < 24; i++ {
		imdctWinData[1][i] = 1.0
	}
	for i := 24; i < 30; i++ {
		imdctWinData[1][i] = float32(math.Sin(math.Pi / 12 * (float64(i) + 0.5 - 18.0)))
	}
	for i := 30; i < 36; i++ {
		imdctWinData[1][i] = 0.0
	}
	for i := 0; i < 12; i++ {
		imdctWinData[2][i] = float32(math.Sin(math.Pi / 12 * (float64(i) + 0.5)))
	}
	for i := 12; i < 36; i++ {
		imdctWinData[2][i] = 0.0
	}
	for i := 0; i < 6; i++ {
		imdctWinData[3][i] = 0.0
	}
	for i := 6; i < 12; i++ {
		imdctWinData[3][i] = float32(math.Sin(math.Pi / 12 * (float64(i) + 0.5 - 6.0)))
	}
	for i := 12; i < 18; i++ {
		imdctWinData[3][i] = 1.0
	}
	for i := 18; i < 36; i++ {
		imdctWinData[3][i] = float32(math.Sin(math.Pi / 36 * (float64(i) + 0.5)))
	}
}

var cosN12 = [6][12]float32{}

func init() {
	const N = 12
	for i := 0; i < 6; i++ {
		for j := 0; j < 12; j++ {
			cosN12[i][j] = float32(math.Cos(math.Pi / (2 * N) * (2*float64(j) + 1 + N/2) * (2*float64(i) + 1)))
		}
	}
}

var cosN36 = [18][36]float32{}

func init() {
	const N = 36
	for i := 0; i < 18; i++ {
		for j := 0; j < 36; j++ {
			cosN36[i][j] = float32(math.Cos(math.Pi / (2 * N) * (2*float64(j) + 1 + N/2) * (2*float64(i) + 1)))
		}
	}
}

func Win(in []float32, blockType int) []float32 {
	out := make([]float32, 36)
	if blockType == 2 {
		iwd := imdctWinData[blockType]
		const N = 12
		for i := 0; i < 3; i++ {
			for p := 0; p < N; p++ {
				sum := float32(0.0)
				for m := 0; m < N/2; m++ {
					sum += in[i+3*m] * cosN12[m][p]
				}
				out[6*i+p+6] += sum * iwd[p]
			}
		}
		return out
	}
	const N = 36
	iwd := imdctWinData[blockType]
	for p := 0; p < N; p++ {
		sum := float32(0.0)
		for m := 0; m < N/2; m++ {
			sum += in[m] * cosN36[m][p]
		}
		out[p] = sum * iwd[p]
	}
	return out
}

// Twiddles of the 18-point DCT-IV computed through a 9-point complex DFT:
// pre[k] = e^(-iπ(k+¼)/18), post[j] = e^(-iπj/18), w9[k] = e^(-2πik/9).
var dct4Pre, dct4Post, w9 [9]complex64

func init() {
	for k := 0; k < 9; k++ {
		dct4Pre[k] = complex64(cmplx.Exp(complex(0, -math.Pi*(float64(k)+0.25)/18)))
		dct4Post[k] = complex64(cmplx.Exp(complex(0, -math.Pi*float64(k)/18)))
		w9[k] = complex64(cmplx.Exp(complex(0, -2*math.Pi*float64(k)/9)))
	}
}

// dct4x18 computes z[n] = Σ x[m]·cos(π/18·(n+½)(m+½)): the sequence
// x[2k] + i·x[17-2k] is pre-twiddled, transformed by a 9-point DFT (as 3×3)
// and post-twiddled; z[2j] and -z[17-2j] are the real and imaginary parts.
func dct4x18(z *[18]float32, x *[18]float32) {
	var t [9]complex64
	for k := 0; k < 9; k++ {
		t[k] = complex(x[2*k], x[17-2*k]) * dct4Pre[k]
	}
	// 3-point DFTs over a (k = 3a+b), then twiddles w9^(b·j1)
	const h = 0.8660254037844386 // √3/2
	var B [3][3]complex64        // B[b][j1]
	for b := 0; b < 3; b++ {
		a0, a1, a2 := t[b], t[3+b], t[6+b]
		s, d := a1+a2, a1-a2
		m := a0 - s*0.5
		jd := complex(h*imag(d), -h*real(d)) // -i·(√3/2)·d
		B[b][0] = a0 + s
		B[b][1] = (m + jd) * w9[b]
		B[b][2] = (m - jd) * w9[(2*b)%9]
	}
	// 3-point DFTs over b give T[j1 + 3·j2]
	for j1 := 0; j1 < 3; j1++ {
		a0, a1, a2 := B[0][j1], B[1][j1], B[2][j1]
		s, d := a1+a2, a1-a2
		m := a0 - s*0.5
		jd := complex(h*imag(d), -h*real(d))
		for j2, v := range [3]complex64{a0 + s, m + jd, m - jd} {
			j := j1 + 3*j2
			u := v * dct4Post[j]
			z[2*j] = real(u)
			z[17-2*j] = -imag(u)
		}
	}
}

// WinTo is Win without allocating. A long block's 36-point IMDCT is computed
// from one 18-point DCT-IV z (half upstream's multiplications):
// y[p] = z[p+9] for p < 9, -z[26-p] for p < 27, -z[p-27] after.
func WinTo(out *[36]float32, in *[18]float32, blockType int) {
	if blockType == 2 {
		*out = [36]float32{}
		iwd := &imdctWinData[2]
		const N = 12
		for i := 0; i < 3; i++ {
			for p := 0; p < N; p++ {
				sum := float32(0.0)
				for m := 0; m < N/2; m++ {
					sum += in[i+3*m] * cosN12[m][p]
				}
				out[6*i+p+6] += sum * iwd[p]
			}
		}
		return
	}
	var z [18]float32
	dct4x18(&z, in)
	iwd := &imdctWinData[blockType]
	for p := 0; p < 9; p++ {
		out[p] = z[p+9] * iwd[p]
	}
	for p := 9; p < 27; p++ {
		out[p] = -z[26-p] * iwd[p]
	}
	for p := 27; p < 36; p++ {
		out[p] = -z[p-27] * iwd[p]
	}
}
