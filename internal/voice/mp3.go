package voice

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	mp3 "github.com/helixhq/helix/internal/third_party/gomp3"
)

// helix's copy of go-mp3 (internal/third_party/gomp3) yields float samples in
// the stream's channels, decodes the Xing/Info frame as a frame of silence and
// keeps the encoder delay and padding; helix trims all three using the LAME
// tag, as ffmpeg does, so durations are exact.
const mp3DecoderDelay = 529

type mp3Header struct {
	mpeg1      bool
	bitrate    int // kbit/s
	rate       int
	padding    int
	channels   int
	sideInfo   int
	frameBytes int
	samples    int // per frame
}

var mp3Bitrates = [2][16]int{
	{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, -1}, // MPEG-1 layer III
	{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, -1},     // MPEG-2/2.5 layer III
}

func parseMP3Header(b []byte) (mp3Header, bool) {
	if len(b) < 4 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		return mp3Header{}, false
	}
	ver := (b[1] >> 3) & 3 // 0: 2.5, 2: 2, 3: 1
	layer := (b[1] >> 1) & 3
	bi := b[2] >> 4
	ri := (b[2] >> 2) & 3
	if ver == 1 || layer != 1 || bi == 0 || bi == 15 || ri == 3 {
		return mp3Header{}, false // layer III only; free-format bitrates are not supported
	}
	h := mp3Header{mpeg1: ver == 3, padding: int(b[2]>>1) & 1}
	rates := [3]int{44100, 48000, 32000}
	h.rate = rates[ri]
	switch ver {
	case 2:
		h.rate /= 2
	case 0:
		h.rate /= 4
	}
	h.channels = 2
	if b[3]>>6 == 3 {
		h.channels = 1
	}
	if h.mpeg1 {
		h.bitrate = mp3Bitrates[0][bi]
		h.samples = 1152
		h.frameBytes = 144000*h.bitrate/h.rate + h.padding
		h.sideInfo = map[bool]int{true: 17, false: 32}[h.channels == 1]
	} else {
		h.bitrate = mp3Bitrates[1][bi]
		h.samples = 576
		h.frameBytes = 72000*h.bitrate/h.rate + h.padding
		h.sideInfo = map[bool]int{true: 9, false: 17}[h.channels == 1]
	}
	return h, true
}

// mp3Scan walks every frame header once, so that a truncated or corrupt file is
// caught before decoding (go-mp3 stops silently at a damaged frame).
type mp3Scan struct {
	first          mp3Header
	frames         int
	xing           bool
	xingFrames     int
	delay, padding int
	haveLAME       bool
}

func scanMP3(f *os.File) (*mp3Scan, error) {
	r := bufio.NewReaderSize(f, 64<<10)
	var off int64
	// ID3v2 tags at the start
	for {
		b, err := r.Peek(10)
		if err != nil || string(b[:3]) != "ID3" {
			break
		}
		size := int64(b[6]&0x7F)<<21 | int64(b[7]&0x7F)<<14 | int64(b[8]&0x7F)<<7 | int64(b[9]&0x7F)
		if b[5]&0x10 != 0 {
			size += 10 // footer
		}
		if _, err := r.Discard(int(10 + size)); err != nil {
			return nil, errors.New("truncated: file ends inside the ID3v2 tag")
		}
		off += 10 + size
	}
	s := &mp3Scan{}
	for {
		b, err := r.Peek(4)
		if len(b) == 0 && errors.Is(err, io.EOF) {
			break
		}
		h, ok := parseMP3Header(b)
		if !ok {
			if rest, _ := r.Peek(128); len(b) >= 3 && string(b[:3]) == "TAG" && len(rest) == 128 {
				break // ID3v1 trailer
			}
			if s.frames == 0 {
				return nil, fmt.Errorf("corrupt: no MPEG audio frame at byte %d", off)
			}
			if len(b) < 4 {
				return nil, fmt.Errorf("truncated: file ends inside the frame header at byte %d", off)
			}
			return nil, fmt.Errorf("corrupt: frame %d at byte %d is not an MPEG audio frame", s.frames+1, off)
		}
		if s.frames == 0 {
			s.first = h
			head, _ := r.Peek(h.frameBytes)
			s.parseXing(head, h)
		} else if h.rate != s.first.rate {
			return nil, fmt.Errorf("corrupt: frame %d at byte %d changes the sample rate", s.frames+1, off)
		}
		if n, err := r.Discard(h.frameBytes); err != nil {
			return nil, fmt.Errorf("truncated: frame %d at byte %d needs %d bytes, file has %d", s.frames+1, off, h.frameBytes, n)
		}
		off += int64(h.frameBytes)
		s.frames++
	}
	if s.frames == 0 {
		return nil, errors.New("no MPEG audio frames")
	}
	if s.xing && s.xingFrames > 0 && s.frames-1 < s.xingFrames {
		return nil, fmt.Errorf("truncated: the Xing header announces %d frames, the file has %d", s.xingFrames, s.frames-1)
	}
	return s, nil
}

func (s *mp3Scan) parseXing(b []byte, h mp3Header) {
	i := 4 + h.sideInfo
	if len(b) < i+8 || (string(b[i:i+4]) != "Xing" && string(b[i:i+4]) != "Info") {
		return
	}
	s.xing = true
	flags := binary.BigEndian.Uint32(b[i+4:])
	i += 8
	if flags&1 != 0 && len(b) >= i+4 {
		s.xingFrames = int(binary.BigEndian.Uint32(b[i:]))
		i += 4
	}
	if flags&2 != 0 {
		i += 4
	}
	if flags&4 != 0 {
		i += 100
	}
	if flags&8 != 0 {
		i += 4
	}
	// LAME tag: 9-byte encoder name, then at +21 twelve bits of delay and twelve of padding
	if len(b) >= i+24 && (string(b[i:i+4]) == "LAME" || string(b[i:i+4]) == "Lavc" || string(b[i:i+4]) == "Lavf") {
		d := b[i+21:]
		s.delay = int(d[0])<<4 | int(d[1])>>4
		s.padding = int(d[1]&0x0F)<<8 | int(d[2])
		s.haveLAME = true
	}
}

type mp3Source struct {
	f    *os.File
	dec  *mp3.Decoder
	info Info
	skip int   // frames still to drop at the start
	left int64 // frames still to emit; -1 when unknown
}

func newMP3(f *os.File) (*mp3Source, error) {
	s, err := scanMP3(f)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	// not a Seeker (go-mp3 would scan the file a second time), buffered: the
	// decoder reads a frame in three or four small pieces
	dec, err := mp3.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("corrupt: %v", err)
	}
	m := &mp3Source{f: f, dec: dec, info: Info{Format: MP3, SampleRate: dec.SampleRate(), Channels: s.first.channels}, left: -1}
	total := s.frames * s.first.samples
	if s.xing {
		m.skip += s.first.samples // the Info frame itself
		total -= s.first.samples
	}
	m.skip += mp3DecoderDelay
	if s.haveLAME {
		m.skip += s.delay
		total -= s.delay + s.padding
	}
	if total > 0 {
		m.left = int64(total)
	}
	return m, nil
}

func (m *mp3Source) Info() Info   { return m.info }
func (m *mp3Source) Close() error { return m.f.Close() }

func (m *mp3Source) Read(p []float32) (int, error) {
	ch := m.info.Channels
	frames := len(p) / ch
	if m.left == 0 || frames == 0 {
		return 0, io.EOF
	}
	if m.left > 0 {
		frames = int(min(int64(frames), m.left))
	}
	for {
		n, err := m.dec.ReadFloat32(p[:frames*ch])
		if n == 0 {
			if errors.Is(err, io.EOF) {
				return 0, io.EOF
			}
			if err == nil {
				err = errors.New("decoder returned no samples")
			}
			return 0, &DecodeError{MP3, err}
		}
		if m.dec.Channels() != ch {
			return 0, &DecodeError{MP3, fmt.Errorf("a frame has %d channels, the stream %d", m.dec.Channels(), ch)}
		}
		k := n / ch
		if m.skip > 0 {
			d := min(m.skip, k)
			m.skip -= d
			if d == k {
				continue
			}
			copy(p, p[d*ch:n])
			k -= d
		}
		if m.left > 0 {
			m.left -= int64(k)
		}
		return k * ch, nil
	}
}
