package voice

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/at-wat/ebml-go"
	"github.com/at-wat/ebml-go/webm"
)

// WebM as browsers' MediaRecorder writes it: one Opus track, clusters of
// SimpleBlocks, often with unknown element sizes. The compressed file is
// parsed whole (it is small next to its decoded samples), then decoded block by block.
type webmFile struct {
	Header  webm.EBMLHeader `ebml:"EBML"`
	Segment webmSegment     `ebml:"Segment"`
}

type webmSegment struct {
	Tracks  webm.Tracks   `ebml:"Tracks"`
	Cluster []webmCluster `ebml:"Cluster"`
}

type webmCluster struct {
	Timecode    uint64           `ebml:"Timecode"`
	SimpleBlock []ebml.Block     `ebml:"SimpleBlock"`
	BlockGroup  []webmBlockGroup `ebml:"BlockGroup"`
}

type webmBlockGroup struct {
	Block          ebml.Block `ebml:"Block"`
	DiscardPadding int64      `ebml:"DiscardPadding"`
}

type webmBlock struct {
	time    int64
	frames  [][]byte
	discard int64 // ns of padding to drop from the end
}

type webmSource struct {
	f      *os.File
	dec    *opusDecoder
	blocks []webmBlock
	next   int
	q      pcmQueue
}

// ebmlMasters are the container elements whose children checkEBML walks.
var ebmlMasters = map[uint64]bool{
	0x1A45DFA3: true, 0x18538067: true, 0x114D9B74: true, 0x4DBB: true, 0x1549A966: true,
	0x1654AE6B: true, 0xAE: true, 0xE1: true, 0xE0: true, 0x1F43B675: true, 0xA0: true,
	0x1C53BB6B: true, 0xBB: true, 0xB7: true, 0x1254C367: true, 0x7373: true, 0x63C0: true, 0x67C8: true,
}

// checkEBML walks every element header and checks that each declared size
// fits in the file, before ebml-go (which allocates whatever a size claims)
// reads it. Unknown sizes (live recordings) are allowed on container elements.
func checkEBML(b []byte) error {
	vint := func(off int, id bool) (uint64, int, bool, error) {
		if off >= len(b) {
			return 0, 0, false, errors.New("truncated: file ends inside an element header")
		}
		n := 1
		for mask := byte(0x80); n <= 8 && b[off]&mask == 0; mask >>= 1 {
			n++
		}
		if n > 8 || (id && n > 4) {
			return 0, 0, false, fmt.Errorf("corrupt: bad EBML number at byte %d", off)
		}
		if off+n > len(b) {
			return 0, 0, false, errors.New("truncated: file ends inside an element header")
		}
		v := uint64(b[off])
		if !id {
			v &= uint64(0xFF >> n)
		}
		all := v == uint64(0xFF>>n)
		for i := 1; i < n; i++ {
			v = v<<8 | uint64(b[off+i])
			all = all && b[off+i] == 0xFF
		}
		return v, n, all, nil
	}
	for off := 0; off < len(b); {
		id, n1, _, err := vint(off, true)
		if err != nil {
			return err
		}
		size, n2, unknown, err := vint(off+n1, false)
		if err != nil {
			return err
		}
		data := off + n1 + n2
		if unknown {
			if !ebmlMasters[id] {
				return fmt.Errorf("corrupt: element %#x at byte %d has no size", id, off)
			}
			off = data
			continue
		}
		if size > uint64(len(b)-data) {
			return fmt.Errorf("truncated: element %#x at byte %d needs %d bytes, the file has %d left", id, off, size, len(b)-data)
		}
		if ebmlMasters[id] {
			off = data
		} else {
			off = data + int(size)
		}
	}
	return nil
}

func newWebM(f *os.File, path string) (Source, error) {
	raw, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	if err := checkEBML(raw); err != nil {
		return nil, err
	}
	var w webmFile
	err = ebml.Unmarshal(bytes.NewReader(raw), &w, ebml.WithIgnoreUnknown(true))
	if err != nil && !errors.Is(err, io.EOF) {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("truncated: file ends inside an element")
		}
		return nil, fmt.Errorf("corrupt: %v", err)
	}
	if w.Header.DocType != "webm" && w.Header.DocType != "matroska" {
		return nil, fmt.Errorf("corrupt: EBML document type %q is neither webm nor matroska", w.Header.DocType)
	}
	var track *webm.TrackEntry
	for i, t := range w.Segment.Tracks.TrackEntry {
		if t.TrackType == 2 || t.Audio != nil {
			track = &w.Segment.Tracks.TrackEntry[i]
			break
		}
	}
	if track == nil {
		return nil, errors.New("no audio track")
	}
	if track.CodecID != "A_OPUS" {
		f.Close()
		return newFFmpeg(path, Matroska, "")
	}
	h, err := parseOpusHead(track.CodecPrivate)
	if err != nil {
		return nil, err
	}
	s := &webmSource{f: f}
	if s.dec, err = newOpusDecoder(h); err != nil {
		return nil, err
	}
	for _, c := range w.Segment.Cluster {
		for _, b := range c.SimpleBlock {
			if b.TrackNumber == track.TrackNumber {
				s.blocks = append(s.blocks, webmBlock{time: int64(c.Timecode) + int64(b.Timecode), frames: b.Data})
			}
		}
		for _, g := range c.BlockGroup {
			if g.Block.TrackNumber == track.TrackNumber {
				s.blocks = append(s.blocks, webmBlock{time: int64(c.Timecode) + int64(g.Block.Timecode), frames: g.Block.Data, discard: g.DiscardPadding})
			}
		}
	}
	if len(s.blocks) == 0 {
		return nil, errors.New("truncated: no audio blocks")
	}
	sort.SliceStable(s.blocks, func(i, j int) bool { return s.blocks[i].time < s.blocks[j].time })
	return s, nil
}

func (s *webmSource) Info() Info {
	return Info{Format: WebMOpus, SampleRate: opusRate, Channels: s.dec.head.channels}
}
func (s *webmSource) Close() error { return s.f.Close() }

func (s *webmSource) Read(p []float32) (int, error) {
	ch := s.dec.head.channels
	for len(s.q.buf) < len(p) && s.next < len(s.blocks) {
		b := s.blocks[s.next]
		s.next++
		var err error
		for _, fr := range b.frames {
			if s.q.buf, err = s.dec.decode(fr, s.q.buf); err != nil {
				return 0, &DecodeError{WebMOpus, fmt.Errorf("corrupt Opus packet in block %d: %v", s.next, err)}
			}
		}
		if b.discard > 0 {
			cut := int(b.discard * opusRate / 1e9)
			s.q.buf = s.q.buf[:max(0, len(s.q.buf)-cut*ch)]
		}
	}
	n := s.q.drain(p, ch)
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
