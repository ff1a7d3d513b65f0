package voice

import (
	"bufio"
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
	Info    webm.Info     `ebml:"Info"`
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

// webmSegmentEnd reads the sizes of the EBML header and the Segment: a file
// shorter than its Segment says is truncated. Live recordings (MediaRecorder)
// write an unknown size, and then known is false.
func webmSegmentEnd(r io.Reader) (end int64, known bool, err error) {
	br := bufio.NewReader(r)
	var off int64
	vint := func(id bool) (uint64, bool, error) {
		b, err := br.ReadByte()
		if err != nil {
			return 0, false, err
		}
		n := 1
		for mask := byte(0x80); n <= 8 && b&mask == 0; mask >>= 1 {
			n++
		}
		if n > 8 {
			return 0, false, errors.New("corrupt: bad EBML length")
		}
		v := uint64(b)
		if !id {
			v &= uint64(0xFF >> n)
		}
		all := v == uint64(0xFF>>n)
		for i := 1; i < n; i++ {
			c, err := br.ReadByte()
			if err != nil {
				return 0, false, err
			}
			v = v<<8 | uint64(c)
			all = all && c == 0xFF
		}
		off += int64(n)
		return v, all, nil
	}
	if _, _, err := vint(true); err != nil { // EBML
		return 0, false, err
	}
	size, _, err := vint(false)
	if err != nil {
		return 0, false, err
	}
	if _, err := br.Discard(int(size)); err != nil {
		return 0, false, err
	}
	off += int64(size)
	if id, _, err := vint(true); err != nil || id != 0x18538067 {
		return 0, false, errors.New("corrupt: no Segment after the EBML header")
	}
	size, unknown, err := vint(false)
	if err != nil || unknown {
		return 0, false, err
	}
	return off + int64(size), true, nil
}

func newWebM(f *os.File, path string) (Source, error) {
	end, known, err := webmSegmentEnd(f)
	if err != nil {
		return nil, truncated(err, "the EBML header")
	}
	if st, err := f.Stat(); err == nil && known && st.Size() < end {
		return nil, fmt.Errorf("truncated: the Segment needs %d bytes, the file has %d", end, st.Size())
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	var w webmFile
	err = ebml.Unmarshal(bufio.NewReaderSize(f, 64<<10), &w, ebml.WithIgnoreUnknown(true))
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
		return newFFmpeg(path, Matroska)
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
