package voice

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/pion/opus"
)

// opusRate is the rate helix decodes Opus at: every Opus stream is coded at
// 48 kHz internally, and pre-skip and granule positions count 48 kHz samples.
const opusRate = 48000

// opusHead is the identification header (RFC 7845 §5.1), in an Ogg stream's
// first packet and in a WebM track's CodecPrivate.
type opusHead struct {
	channels int
	preSkip  int
	gain     float32
}

func parseOpusHead(b []byte) (opusHead, error) {
	if len(b) < 19 || string(b[:8]) != "OpusHead" {
		return opusHead{}, errors.New("corrupt: missing OpusHead")
	}
	h := opusHead{
		channels: int(b[9]),
		preSkip:  int(binary.LittleEndian.Uint16(b[10:])),
		gain:     float32(math.Pow(10, float64(int16(binary.LittleEndian.Uint16(b[16:])))/(20*256))),
	}
	if b[18] != 0 || h.channels < 1 || h.channels > 2 {
		return opusHead{}, fmt.Errorf("unsupported channel mapping (family %d, %d channels): helix decodes mono and stereo Opus", b[18], h.channels)
	}
	return h, nil
}

// opusDecoder decodes packets and trims pre-skip from the start.
type opusDecoder struct {
	dec   opus.Decoder
	head  opusHead
	skip  int
	pcm   []float32
	count int64 // samples per channel decoded after pre-skip
}

func newOpusDecoder(h opusHead) (*opusDecoder, error) {
	dec, err := opus.NewDecoderWithOutput(opusRate, h.channels)
	if err != nil {
		return nil, err
	}
	return &opusDecoder{dec: dec, head: h, skip: h.preSkip, pcm: make([]float32, 5760*h.channels)}, nil
}

// decode appends the packet's samples (after pre-skip) to out.
func (o *opusDecoder) decode(pkt []byte, out []float32) ([]float32, error) {
	n, err := o.dec.DecodeToFloat32(pkt, o.pcm)
	if err != nil {
		return out, err
	}
	ch := o.head.channels
	s := o.pcm[:n*ch]
	if o.skip > 0 {
		d := min(o.skip, n)
		o.skip -= d
		s = s[d*ch:]
	}
	for _, v := range s {
		out = append(out, v*o.head.gain)
	}
	o.count += int64(len(s) / ch)
	return out, nil
}

// pcmQueue hands decoded samples to Read callers in whatever sizes they ask.
type pcmQueue struct{ buf []float32 }

func (q *pcmQueue) drain(p []float32, ch int) int {
	n := min(len(p)-len(p)%ch, len(q.buf))
	copy(p, q.buf[:n])
	q.buf = q.buf[:copy(q.buf, q.buf[n:])]
	return n
}

// oggOpusSource reads Ogg pages (RFC 3533) itself, checking each page's CRC.
type oggOpusSource struct {
	r      io.Reader
	c      io.Closer
	dec    *opusDecoder
	serial uint32
	page   int
	pkt    []byte // packet continued from an earlier page
	q      pcmQueue
	eos    bool
}

type oggPage struct {
	flags   byte
	granule int64
	serial  uint32
	segs    []byte
	body    []byte
}

func readOggPage(r io.Reader, n int) (*oggPage, error) {
	var h [27]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("truncated: file ends inside the header of page %d", n)
	}
	if string(h[:4]) != "OggS" || h[4] != 0 {
		return nil, fmt.Errorf("corrupt: page %d does not start with OggS", n)
	}
	p := &oggPage{flags: h[5], granule: int64(binary.LittleEndian.Uint64(h[6:])), serial: binary.LittleEndian.Uint32(h[14:])}
	p.segs = make([]byte, h[26])
	if _, err := io.ReadFull(r, p.segs); err != nil {
		return nil, fmt.Errorf("truncated: file ends inside page %d", n)
	}
	size := 0
	for _, s := range p.segs {
		size += int(s)
	}
	p.body = make([]byte, size)
	if _, err := io.ReadFull(r, p.body); err != nil {
		return nil, fmt.Errorf("truncated: file ends inside page %d", n)
	}
	want := binary.LittleEndian.Uint32(h[22:])
	h[22], h[23], h[24], h[25] = 0, 0, 0, 0
	crc := oggCRC(oggCRC(oggCRC(0, h[:]), p.segs), p.body)
	if crc != want {
		return nil, fmt.Errorf("corrupt: page %d fails its CRC check", n)
	}
	return p, nil
}

// packets splits a page into packets; the last is incomplete when it ends in a 255 lacing value.
func (p *oggPage) packets(carry []byte) (done [][]byte, rest []byte) {
	off := 0
	cur := carry
	for _, s := range p.segs {
		cur = append(cur, p.body[off:off+int(s)]...)
		off += int(s)
		if s < 255 {
			done = append(done, cur)
			cur = nil
		}
	}
	return done, cur
}

var oggTable = func() (t [256]uint32) {
	for i := range t {
		r := uint32(i) << 24
		for j := 0; j < 8; j++ {
			if r&0x80000000 != 0 {
				r = r<<1 ^ 0x04C11DB7
			} else {
				r <<= 1
			}
		}
		t[i] = r
	}
	return t
}()

func oggCRC(crc uint32, b []byte) uint32 {
	for _, v := range b {
		crc = crc<<8 ^ oggTable[byte(crc>>24)^v]
	}
	return crc
}

// checkOgg reads every page of an Ogg file, checking lengths and CRCs.
func checkOgg(r io.Reader) error {
	for n := 1; ; n++ {
		if _, err := readOggPage(r, n); err != nil {
			if errors.Is(err, io.EOF) {
				if n == 1 {
					return errors.New("no Ogg pages")
				}
				return nil
			}
			return err
		}
	}
}

func newOggOpus(r io.Reader, c io.Closer) (*oggOpusSource, error) {
	s := &oggOpusSource{r: r, c: c}
	var headers [][]byte
	for len(headers) < 2 {
		p, err := readOggPage(r, s.page+1)
		if err != nil {
			return nil, truncated(err, "the Opus headers")
		}
		s.page++
		if s.page == 1 {
			s.serial = p.serial
		}
		if p.serial != s.serial {
			continue
		}
		var done [][]byte
		done, s.pkt = p.packets(s.pkt)
		headers = append(headers, done...)
	}
	h, err := parseOpusHead(headers[0])
	if err != nil {
		return nil, err
	}
	if len(headers[1]) < 8 || string(headers[1][:8]) != "OpusTags" {
		return nil, errors.New("corrupt: missing OpusTags")
	}
	if s.dec, err = newOpusDecoder(h); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *oggOpusSource) Info() Info {
	return Info{Format: OggOpus, SampleRate: opusRate, Channels: s.dec.head.channels}
}
func (s *oggOpusSource) Close() error { return s.c.Close() }

func (s *oggOpusSource) Read(p []float32) (int, error) {
	ch := s.dec.head.channels
	for len(s.q.buf) < len(p) && !s.eos {
		pg, err := readOggPage(s.r, s.page+1)
		if errors.Is(err, io.EOF) {
			s.eos = true // no EOS flag: a recording cut short, but every page was whole
			break
		}
		if err != nil {
			return 0, &DecodeError{OggOpus, err}
		}
		s.page++
		if pg.serial != s.serial {
			continue
		}
		var done [][]byte
		done, s.pkt = pg.packets(s.pkt)
		for _, pkt := range done {
			if s.q.buf, err = s.dec.decode(pkt, s.q.buf); err != nil {
				return 0, &DecodeError{OggOpus, fmt.Errorf("corrupt packet on page %d: %v", s.page, err)}
			}
		}
		// the granule position is the true end: drop the encoder's padding on the last page
		if end := pg.granule - int64(s.dec.head.preSkip); pg.granule >= 0 && len(done) > 0 && s.dec.count > end && end >= 0 {
			cut := int(s.dec.count - end)
			s.q.buf = s.q.buf[:max(0, len(s.q.buf)-cut*ch)]
			s.dec.count = end
		}
		if pg.flags&4 != 0 {
			s.eos = true
		}
	}
	n := s.q.drain(p, ch)
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
