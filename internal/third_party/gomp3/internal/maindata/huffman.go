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

package maindata

import (
	"fmt"
	"math"
	"sync"

	"github.com/helixhq/helix/internal/third_party/gomp3/internal/bits"
	"github.com/helixhq/helix/internal/third_party/gomp3/internal/consts"
	"github.com/helixhq/helix/internal/third_party/gomp3/internal/frameheader"
	"github.com/helixhq/helix/internal/third_party/gomp3/internal/huffman"
	"github.com/helixhq/helix/internal/third_party/gomp3/internal/sideinfo"
)

func readHuffman(m *bits.Bits, header frameheader.FrameHeader, sideInfo *sideinfo.SideInfo, mainData *MainData, part_2_start, gr, ch int) error {
	p43 := Pow43()
	huffman.Prepare()
	// Check that there is any data to decode. If not, zero the array.
	if sideInfo.Part2_3Length[gr][ch] == 0 {
		for i := 0; i < consts.SamplesPerGr; i++ {
			mainData.Is[gr][ch][i] = 0.0
		}
		return nil
	}

	// Calculate bit_pos_end which is the index of the last bit for this part.
	bit_pos_end := part_2_start + sideInfo.Part2_3Length[gr][ch] - 1
	// Determine region boundaries
	region_1_start := 0
	region_2_start := 0
	if (sideInfo.WinSwitchFlag[gr][ch] == 1) && (sideInfo.BlockType[gr][ch] == 2) {
		region_1_start = 36                  // sfb[9/3]*3=36
		region_2_start = consts.SamplesPerGr // No Region2 for short block case.
		// helix: region 0 ends after three short bands, 36 lines at every
		// rate but MPEG-2.5's 8 kHz, whose short bands are twice as wide
		if header.SfBandRow() == 2 && header.SamplingFrequency() == 2 {
			region_1_start = 72
		}
	} else {
		sfreq := header.SamplingFrequency()
		l := consts.SfBandIndices[header.SfBandRow()][sfreq][consts.SfBandIndicesLong]
		i := sideInfo.Region0Count[gr][ch] + 1
		if i < 0 || len(l) <= i {
			// TODO: Better error messages (#3)
			return fmt.Errorf("mp3: readHuffman failed: invalid index i: %d", i)
		}
		region_1_start = l[i]
		j := sideInfo.Region0Count[gr][ch] + sideInfo.Region1Count[gr][ch] + 2
		if j < 0 || len(l) <= j {
			// TODO: Better error messages (#3)
			return fmt.Errorf("mp3: readHuffman failed: invalid index j: %d", j)
		}
		region_2_start = l[j]
	}
	// Read big_values using tables according to region_x_start (helix: one
	// loop per region, so the table is chosen once per region, not per line)
	is := &mainData.Is[gr][ch]
	bigEnd := sideInfo.BigValues[gr][ch] * 2
	if bigEnd > len(is) {
		// #22
		return fmt.Errorf("mp3: is_pos was too big: %d", len(is))
	}
	is_pos := 0
	for r, end := range [3]int{region_1_start, region_2_start, bigEnd} {
		table_num := sideInfo.TableSelect[gr][ch][r]
		for end = min(end, bigEnd); is_pos < end; is_pos += 2 {
			// Get next Huffman coded words
			x, y, _, _, err := huffman.Decode(m, table_num)
			if err != nil {
				return err
			}
			// In the big_values area there are two freq lines per Huffman word
			// is_pos is even and below end ≤ 576 = len(is): is_pos+1 is in range
			is[is_pos] = pow43(p43, x)
			is[is_pos+1] = pow43(p43, y)
		}
	}
	// Read small values until is_pos = 576 or we run out of huffman data
	// TODO: Is this comment wrong?
	table_num := sideInfo.Count1TableSelect[gr][ch] + 32
	is_pos = bigEnd
	for is_pos <= 572 && m.BitPos() <= bit_pos_end {
		// Get next Huffman coded words
		x, y, v, w, err := huffman.Decode(m, table_num)
		if err != nil {
			return err
		}
		mainData.Is[gr][ch][is_pos] = pow43(p43, v)
		is_pos++
		if is_pos >= consts.SamplesPerGr {
			break
		}
		mainData.Is[gr][ch][is_pos] = pow43(p43, w)
		is_pos++
		if is_pos >= consts.SamplesPerGr {
			break
		}
		mainData.Is[gr][ch][is_pos] = pow43(p43, x)
		is_pos++
		if is_pos >= consts.SamplesPerGr {
			break
		}
		mainData.Is[gr][ch][is_pos] = pow43(p43, y)
		is_pos++
	}
	// Check that we didn't read past the end of this section
	if m.BitPos() > (bit_pos_end + 1) {
		// Remove last words read
		is_pos -= 4
	}
	if is_pos < 0 {
		is_pos = 0
	}

	// Setup count1 which is the index of the first sample in the rzero reg.
	sideInfo.Count1[gr][ch] = is_pos

	// Zero out the last part if necessary
	for is_pos < consts.SamplesPerGr {
		mainData.Is[gr][ch][is_pos] = 0.0
		is_pos++
	}
	// Set the bitpos to point to the next part to read
	m.SetPos(bit_pos_end + 1)
	return nil
}

// Pow43[i] = i^(4/3) for every magnitude Huffman decoding can yield
// (15 + 2^13-1). readHuffman stores ±|x|^(4/3) so that requantisation is one
// multiplication per line (helix).
// It is computed on the first decode, not at package initialisation: every
// helix process links the decoder, few decode an MP3 (issue 50).
var Pow43 = sync.OnceValue(func() *[8207]float32 {
	var t [8207]float32
	for i := range t {
		t[i] = float32(math.Pow(float64(i), 4.0/3.0))
	}
	return &t
})

// pow43 is sign(x)·|x|^(4/3), without a branch on the sign (helix: signs are
// random, a branch on them is mispredicted half the time).
func pow43(t *[8207]float32, x int) float32 {
	s := x >> 63 // 0 or -1
	v := math.Float32bits(t[(x^s)-s])
	return math.Float32frombits(v | uint32(s)&0x80000000)
}
