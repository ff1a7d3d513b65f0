package aac

import (
	"encoding/binary"
	"errors"
)

var errOverrun = errors.New("corrupt: the frame's bits end inside a syntax element")

// bitReader reads MSB-first bits from a frame. b carries 8 zero bytes past
// the frame's end so that peek can load 64 bits without a bounds branch in
// the common case; reading past end is caught by overrun.
type bitReader struct {
	b   []byte
	pos int // bits consumed
	end int // bits in the frame
}

func (r *bitReader) reset(frame []byte, buf *[]byte) {
	n := len(frame) + 8
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	copy(b, frame)
	clear(b[len(frame):])
	r.b, r.pos, r.end = b, 0, len(frame)*8
}

// peek returns the next n (≤ 32) bits without consuming them; bits past the
// frame read as zero.
func (r *bitReader) peek(n uint) uint32 {
	i := r.pos >> 3
	if i+8 > len(r.b) {
		return 0
	}
	v := binary.BigEndian.Uint64(r.b[i:])
	return uint32((v << uint(r.pos&7)) >> (64 - n))
}

func (r *bitReader) skip(n int) { r.pos += n }

func (r *bitReader) read(n uint) uint32 {
	v := r.peek(n)
	r.pos += int(n)
	return v
}

func (r *bitReader) bit() bool { return r.read(1) != 0 }

func (r *bitReader) overrun() bool { return r.pos > r.end }

func (r *bitReader) left() int { return r.end - r.pos }

func (r *bitReader) align() { r.pos = (r.pos + 7) &^ 7 }
