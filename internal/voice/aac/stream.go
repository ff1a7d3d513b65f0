package aac

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// Stream decodes a whole file: frames from a container, trimmed of the
// encoder delay and padding the container records.
type Stream struct {
	dec   *Decoder
	next  func() ([]byte, error)
	pcm   []float32
	pos   int   // next sample of pcm to hand out
	skip  int64 // frames (sample times) still to drop at the start
	left  int64 // frames still to emit; −1 when the container does not say
	frame int   // frames decoded
	err   error
}

func newStream(c Config, next func() ([]byte, error), skip, total int64) (*Stream, error) {
	d, err := NewDecoder(c)
	if err != nil {
		return nil, err
	}
	s := &Stream{dec: d, next: next, pcm: make([]float32, 0, 1024*c.Channels), skip: skip, left: total}
	// decode the first frame now: implicit HE-AAC shows only in its fill elements
	if err := s.fill(); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if d.SBR {
		return nil, unsupported("HE-AAC (SBR)")
	}
	return s, nil
}

// SampleRate and Channels of the decoded samples.
func (s *Stream) SampleRate() int { return s.dec.cfg.SampleRate }
func (s *Stream) Channels() int   { return s.dec.cfg.Channels }

func (s *Stream) fill() error {
	b, err := s.next()
	if err != nil {
		return err
	}
	s.pcm = s.pcm[:1024*s.dec.cfg.Channels]
	s.pos = 0
	if err := s.dec.Decode(b, s.pcm); err != nil {
		return fmt.Errorf("frame %d: %w", s.frame+1, err)
	}
	s.frame++
	return nil
}

// Read fills p with whole frames of interleaved samples and returns the
// number of samples written; io.EOF after the last.
func (s *Stream) Read(p []float32) (int, error) {
	ch := s.dec.cfg.Channels
	n := 0
	for n+ch <= len(p) && s.left != 0 {
		if s.pos == len(s.pcm) {
			if s.err != nil {
				break
			}
			if err := s.fill(); err != nil {
				s.err = err
				s.pcm = s.pcm[:0]
				s.pos = 0
				break
			}
		}
		avail := (len(s.pcm) - s.pos) / ch
		if s.skip > 0 {
			d := int(min(int64(avail), s.skip))
			s.skip -= int64(d)
			s.pos += d * ch
			continue
		}
		k := min(avail, (len(p)-n)/ch)
		if s.left > 0 {
			k = int(min(int64(k), s.left))
			s.left -= int64(k)
		}
		copy(p[n:], s.pcm[s.pos:s.pos+k*ch])
		s.pos += k * ch
		n += k * ch
	}
	if n > 0 {
		return n, nil
	}
	if s.err == nil || errors.Is(s.err, io.EOF) || s.left == 0 {
		return 0, io.EOF
	}
	return 0, s.err
}

// ADTS header fields (ISO/IEC 13818-7 6.2)
type adtsHeader struct {
	cfg       Config
	hdrLen    int
	frameLen  int
	rawBlocks int
}

func parseADTS(b []byte) (adtsHeader, error) {
	var h adtsHeader
	if len(b) < 7 || b[0] != 0xFF || b[1]&0xF6 != 0xF0 {
		return h, corrupt("no ADTS sync word")
	}
	protAbsent := b[1]&1 != 0
	profile := int(b[2] >> 6)
	h.cfg.ObjectType = profile + 1
	h.cfg.RateIndex = int(b[2] >> 2 & 0xF)
	h.cfg.Channels = int(b[2]&1)<<2 | int(b[3]>>6)
	h.frameLen = int(b[3]&3)<<11 | int(b[4])<<3 | int(b[5]>>5)
	h.rawBlocks = int(b[6] & 3)
	h.hdrLen = 7
	if !protAbsent {
		h.hdrLen = 9
	}
	if h.cfg.RateIndex >= len(sampleRates) {
		return h, corrupt("ADTS sampling frequency index %d", h.cfg.RateIndex)
	}
	h.cfg.SampleRate = sampleRates[h.cfg.RateIndex]
	if h.frameLen < h.hdrLen {
		return h, corrupt("ADTS frame length %d", h.frameLen)
	}
	return h, nil
}

// IsADTS reports whether b starts with an ADTS header.
func IsADTS(b []byte) bool {
	_, err := parseADTS(b)
	return err == nil
}

// OpenADTS decodes an ADTS stream (.aac). ADTS records no encoder delay, so
// every decoded sample is returned, as ffmpeg does.
func OpenADTS(r io.Reader) (*Stream, error) {
	br := bufio.NewReaderSize(r, 16<<10)
	var first *adtsHeader
	buf := make([]byte, 1<<13)
	n := 0
	next := func() ([]byte, error) {
		hb, err := br.Peek(9)
		if len(hb) == 0 && errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		h, herr := parseADTS(hb)
		if herr != nil {
			if len(hb) < 7 {
				return nil, fmt.Errorf("truncated: file ends inside ADTS header %d", n+1)
			}
			return nil, fmt.Errorf("ADTS frame %d: %w", n+1, herr)
		}
		if first != nil && (h.cfg != first.cfg) {
			return nil, corrupt("ADTS frame %d changes the stream's configuration", n+1)
		}
		if h.rawBlocks != 0 {
			return nil, unsupported("ADTS frames of several raw data blocks")
		}
		b := buf[:h.frameLen]
		if k, err := io.ReadFull(br, b); err != nil {
			return nil, fmt.Errorf("truncated: ADTS frame %d needs %d bytes, file has %d", n+1, h.frameLen, k)
		}
		n++
		return b[h.hdrLen:], nil
	}
	hb, _ := br.Peek(9)
	h, err := parseADTS(hb)
	if err != nil {
		return nil, err
	}
	if h.cfg.ObjectType != 2 {
		return nil, unsupported("ADTS profile %d (only AAC-LC is decoded natively)", h.cfg.ObjectType-1)
	}
	if h.cfg.Channels != 1 && h.cfg.Channels != 2 {
		return nil, unsupported("channel configuration %d (mono and stereo are decoded natively)", h.cfg.Channels)
	}
	first = &h
	return newStream(h.cfg, next, 0, -1)
}
