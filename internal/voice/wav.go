package voice

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

const (
	wavePCM        = 1
	waveFloat      = 3
	waveExtensible = 0xFFFE
)

type wavSource struct {
	r     io.Reader
	c     io.Closer
	info  Info
	tag   int
	bits  int // container bits per sample
	left  int64
	toEOF bool // data size unknown (a stream): read until EOF
	raw   []byte
	off   int64 // file offset of the next byte of the data chunk
}

// maxFloatSample bounds a float sample's magnitude (full scale is 1.0):
// beyond it, or NaN or infinite, a sample is damage, and one such value in
// a recursive filter's state would ruin everything after it (NaN stays NaN;
// 1e38 overflows to Inf). It is 96 dB above full scale.
const maxFloatSample = 1 << 16

// newWAV parses the RIFF chunks up to "data"; the format chunk is read by hand
// for integer PCM 8–32 bit, IEEE float 32/64 and WAVE_FORMAT_EXTENSIBLE.
func newWAV(r io.Reader, c io.Closer, format Format) (*wavSource, error) {
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, truncated(err, "the RIFF header")
	}
	if string(hdr[:4]) != "RIFF" || string(hdr[8:12]) != "WAVE" {
		return nil, errors.New("not a RIFF/WAVE file")
	}
	w := &wavSource{r: r, c: c, off: 12}
	haveFmt := false
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			if !haveFmt {
				return nil, truncated(err, "the chunk list (no fmt chunk)")
			}
			return nil, truncated(err, "the chunk list (no data chunk)")
		}
		id, size := string(ch[:4]), binary.LittleEndian.Uint32(ch[4:])
		w.off += 8
		switch id {
		case "fmt ":
			if size < 16 || size > 1024 {
				return nil, fmt.Errorf("fmt chunk of %d bytes", size)
			}
			b := make([]byte, size+size%2)
			if _, err := io.ReadFull(r, b); err != nil {
				return nil, truncated(err, "the fmt chunk")
			}
			if err := w.parseFmt(b[:size]); err != nil {
				return nil, err
			}
			w.off += int64(len(b))
			w.info.Format = format
			haveFmt = true
		case "data":
			if !haveFmt {
				return nil, errors.New("data chunk before fmt chunk")
			}
			w.left = int64(size)
			if size == 0 || size == 0xFFFFFFFF {
				w.toEOF = true // written by a streaming encoder that could not seek back
			}
			w.left -= w.left % int64(w.frameBytes())
			return w, nil
		default:
			if _, err := io.CopyN(io.Discard, r, int64(size)+int64(size%2)); err != nil {
				return nil, truncated(err, fmt.Sprintf("the %q chunk", id))
			}
			w.off += int64(size) + int64(size%2)
		}
	}
}

func (w *wavSource) parseFmt(b []byte) error {
	tag := int(binary.LittleEndian.Uint16(b[0:]))
	ch := int(binary.LittleEndian.Uint16(b[2:]))
	rate := int(binary.LittleEndian.Uint32(b[4:]))
	align := int(binary.LittleEndian.Uint16(b[12:]))
	bits := int(binary.LittleEndian.Uint16(b[14:]))
	if tag == waveExtensible {
		if len(b) < 40 {
			return errors.New("WAVE_FORMAT_EXTENSIBLE fmt chunk shorter than 40 bytes")
		}
		tag = int(binary.LittleEndian.Uint16(b[24:])) // first two bytes of the sub-format GUID
	}
	switch {
	case ch < 1 || ch > 32:
		return fmt.Errorf("%d channels", ch)
	case rate < 1000 || rate > 768000:
		return fmt.Errorf("sample rate %d Hz", rate)
	case tag == wavePCM && (bits == 8 || bits == 16 || bits == 24 || bits == 32):
	case tag == waveFloat && (bits == 32 || bits == 64):
	default:
		return fmt.Errorf("unsupported sample format (tag %#x, %d bits): helix reads PCM 8/16/24/32-bit and IEEE float 32/64", tag, bits)
	}
	if align != ch*bits/8 {
		return fmt.Errorf("block align %d does not match %d channels of %d bits", align, ch, bits)
	}
	w.tag, w.bits = tag, bits
	w.info.SampleRate, w.info.Channels = rate, ch
	return nil
}

func (w *wavSource) frameBytes() int { return w.info.Channels * w.bits / 8 }
func (w *wavSource) Info() Info      { return w.info }
func (w *wavSource) Close() error {
	if w.c == nil {
		return nil
	}
	return w.c.Close()
}

func (w *wavSource) Read(p []float32) (int, error) {
	bps := w.bits / 8
	p = p[:len(p)-len(p)%w.info.Channels]
	want := len(p) * bps
	if !w.toEOF {
		want = int(min(int64(want), w.left))
	}
	if want == 0 {
		return 0, io.EOF
	}
	if cap(w.raw) < want {
		w.raw = make([]byte, want)
	}
	raw := w.raw[:want]
	n, err := io.ReadFull(w.r, raw)
	fb := w.frameBytes()
	if err != nil {
		if !w.toEOF || !(errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return 0, &DecodeError{w.info.Format, fmt.Errorf("truncated: data chunk is %d bytes short", w.left-int64(n))}
			}
			return 0, &DecodeError{w.info.Format, err}
		}
		if n == 0 {
			return 0, io.EOF
		}
	}
	n -= n % fb
	w.left -= int64(n)
	raw = raw[:n]
	k := n / bps
	off := w.off
	w.off += int64(n)
	switch {
	case w.tag == waveFloat && bps == 4:
		for i := 0; i < k; i++ {
			x := math.Float32frombits(binary.LittleEndian.Uint32(raw[i*4:]))
			if !(x >= -maxFloatSample && x <= maxFloatSample) {
				return 0, w.badSample(strconv.FormatFloat(float64(x), 'g', -1, 32), off+int64(i*4))
			}
			p[i] = x
		}
	case w.tag == waveFloat:
		for i := 0; i < k; i++ {
			x := math.Float64frombits(binary.LittleEndian.Uint64(raw[i*8:]))
			if !(x >= -maxFloatSample && x <= maxFloatSample) {
				return 0, w.badSample(strconv.FormatFloat(x, 'g', -1, 64), off+int64(i*8))
			}
			p[i] = float32(x)
		}
	case bps == 1:
		for i := 0; i < k; i++ {
			p[i] = (float32(raw[i]) - 128) / 128
		}
	case bps == 2:
		raw := raw[:2*k]
		for i := range p[:k] {
			p[i] = float32(int16(uint16(raw[2*i])|uint16(raw[2*i+1])<<8)) / 32768
		}
	case bps == 3:
		for i := 0; i < k; i++ {
			v := int32(uint32(raw[i*3])<<8|uint32(raw[i*3+1])<<16|uint32(raw[i*3+2])<<24) >> 8
			p[i] = float32(v) / (1 << 23)
		}
	case bps == 4:
		for i := 0; i < k; i++ {
			p[i] = float32(float64(int32(binary.LittleEndian.Uint32(raw[i*4:]))) / (1 << 31))
		}
	}
	return k, nil
}

// badSample is a float sample that is NaN, infinite or absurdly large: an
// input error naming where it is, so that it can be found with a hex editor.
func (w *wavSource) badSample(x string, off int64) error {
	return &DecodeError{w.info.Format, fmt.Errorf("sample at byte offset %d is %s: float samples must be finite and within ±%d (full scale is ±1.0)", off, x, maxFloatSample)}
}
