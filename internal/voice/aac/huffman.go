package aac

import (
	"errors"
	"math"
	"sync"
)

var errBadCode = errors.New("corrupt: invalid Huffman codeword")

const rootBits = 9

// huffTable decodes a prefix code given as (length, codeword) per symbol with
// one lookup of rootBits bits and, for longer codes, a second lookup in a
// subtable. A leaf entry is sym<<8 | length; a subtable entry has bit 31 set,
// the subtable's offset in bits 8–30 and its index width in bits 0–7. A zero
// entry is a bit pattern no codeword starts with.
type huffTable []uint32

func buildHuff(lens []uint8, codes []uint32) huffTable {
	t := make(huffTable, 1<<rootBits)
	subMax := map[uint32]int{}
	for s, l := range lens {
		if int(l) > rootBits {
			p := codes[s] >> (l - rootBits)
			subMax[p] = max(subMax[p], int(l)-rootBits)
		}
	}
	for s, l := range lens {
		if l == 0 || int(l) > rootBits {
			continue
		}
		base := codes[s] << (rootBits - l)
		for i := uint32(0); i < 1<<(rootBits-l); i++ {
			t[base+i] = uint32(s)<<8 | uint32(l)
		}
	}
	for p := uint32(0); p < 1<<rootBits; p++ {
		w, ok := subMax[p]
		if !ok {
			continue
		}
		off := len(t)
		t = append(t, make([]uint32, 1<<w)...)
		t[p] = 1<<31 | uint32(off)<<8 | uint32(w)
	}
	for s, l := range lens {
		if int(l) <= rootBits {
			continue
		}
		e := t[codes[s]>>(l-rootBits)]
		off, w := int(e>>8&0x7FFFFF), uint(e&0xFF)
		r := uint(l) - rootBits
		low := codes[s] & (1<<r - 1)
		base := off + int(low<<(w-r))
		for i := 0; i < 1<<(w-r); i++ {
			t[base+i] = uint32(s)<<8 | uint32(l)
		}
	}
	return t
}

// decode reads one codeword; ok is false for a pattern no codeword matches.
func (t huffTable) decode(r *bitReader) (int, bool) {
	e := t[r.peek(rootBits)]
	if e>>31 != 0 {
		w := uint(e & 0xFF)
		v := r.peek(rootBits+w) & (1<<w - 1)
		e = t[int(e>>8&0x7FFFFF)+int(v)]
	}
	l := int(e & 0xFF)
	if l == 0 {
		return 0, false
	}
	r.skip(l)
	return int(e >> 8 & 0xFFFF), true
}

// codebook is a spectral codebook: its decoding table and, per symbol, the
// unpacked quantised values (2 or 4 of them).
type codebook struct {
	t        huffTable
	dim      int  // 4 or 2 values per codeword
	unsigned bool // sign bits follow the codeword
	vals     [][4]int8
	nz       []uint8      // non-zero values of each symbol (sign bits that follow it)
	fvals    [][4]float32 // vals^(4/3), signed as vals are
}

// tables are built once and shared by every decoder.
type tables struct {
	scf   huffTable
	spec  [12]codebook
	gain  [512]float32 // 2^(0.25·(i−200)): index sf+100 for 2^((sf−100)/4)
	pow43 []float32    // i^(4/3), up to the largest escape value plus a pulse
	win   *windows
}

var getTables = sync.OnceValue(func() *tables {
	t := &tables{scf: buildHuff(scfLen[:], scfCode[:]), win: newWindows()}
	for i := range t.gain {
		t.gain[i] = float32(math.Pow(2, 0.25*float64(i-200)))
	}
	t.pow43 = make([]float32, 8192+16)
	for i := range t.pow43 {
		t.pow43[i] = float32(math.Pow(float64(i), 4.0/3))
	}
	for cb := 1; cb <= 11; cb++ {
		c := codebook{t: buildHuff(specLen[cb], specCode[cb])}
		var mod, off int
		switch cb {
		case 1, 2:
			c.dim, mod, off = 4, 3, -1
		case 3, 4:
			c.dim, mod, c.unsigned = 4, 3, true
		case 5, 6:
			c.dim, mod, off = 2, 9, -4
		case 7, 8:
			c.dim, mod, c.unsigned = 2, 8, true
		case 9, 10:
			c.dim, mod, c.unsigned = 2, 13, true
		case 11:
			c.dim, mod, c.unsigned = 2, 17, true
		}
		c.vals = make([][4]int8, len(specLen[cb]))
		c.nz = make([]uint8, len(specLen[cb]))
		c.fvals = make([][4]float32, len(specLen[cb]))
		for s := range c.vals {
			x := s
			for i := c.dim - 1; i >= 0; i-- {
				c.vals[s][i] = int8(x%mod + off)
				if q := c.vals[s][i]; q != 0 {
					c.nz[s]++
					c.fvals[s][i] = float32(math.Copysign(math.Pow(math.Abs(float64(q)), 4.0/3), float64(q)))
				}
				x /= mod
			}
		}
		t.spec[cb] = c
	}
	return t
})
