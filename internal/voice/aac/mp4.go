package aac

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A minimal ISO BMFF (MP4/M4A) reader: enough of moov to find the first
// audio track's AudioSpecificConfig, its samples and its edit list. Every
// count is checked against the bytes of its box before anything is
// allocated, and moov is read whole only when the file is at least that long.

type box struct {
	typ  string
	data []byte
}

// boxes splits b into its child boxes.
func boxes(b []byte) ([]box, error) {
	var out []box
	for len(b) > 0 {
		if len(b) < 8 {
			return nil, corrupt("box header cut short")
		}
		size := uint64(binary.BigEndian.Uint32(b))
		typ := string(b[4:8])
		hdr := uint64(8)
		switch size {
		case 0:
			size = uint64(len(b))
		case 1:
			if len(b) < 16 {
				return nil, corrupt("box header cut short")
			}
			size, hdr = binary.BigEndian.Uint64(b[8:]), 16
		}
		if size < hdr || size > uint64(len(b)) {
			return nil, corrupt("box %q of %d bytes in %d", typ, size, len(b))
		}
		out = append(out, box{typ, b[hdr:size]})
		b = b[size:]
	}
	return out, nil
}

func child(b []byte, path ...string) []byte {
	for _, name := range path {
		bs, err := boxes(b)
		if err != nil {
			return nil
		}
		found := false
		for _, x := range bs {
			if x.typ == name {
				b, found = x.data, true
				break
			}
		}
		if !found {
			return nil
		}
	}
	return b
}

type mp4Track struct {
	asc       []byte
	offsets   []int64
	sizes     []uint32
	timescale uint32 // of the media
	movieTS   uint32 // of the movie (elst durations)
	skip      int64  // media time of the first sample shown
	editDur   int64  // the edit's duration in movie time units; −1 unknown
	smpbTotal int64  // iTunSMPB's sample count; −1 unknown
}

// fragment is a movie fragment's moof box: where it starts and its payload.
type fragment struct {
	off  int64
	data []byte
}

// readMoov finds moov and returns its payload, and the payloads of the movie
// fragments (moof) of a fragmented file, as Safari's MediaRecorder writes.
func readMoov(r io.ReadSeeker) ([]byte, []fragment, error) {
	end, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, nil, err
	}
	var off int64
	var hdr [16]byte
	var moov []byte
	var frags []fragment
	for off+8 <= end {
		if _, err := r.Seek(off, io.SeekStart); err != nil {
			return nil, nil, err
		}
		if _, err := io.ReadFull(r, hdr[:8]); err != nil {
			return nil, nil, err
		}
		size := int64(binary.BigEndian.Uint32(hdr[:]))
		typ := string(hdr[4:8])
		h := int64(8)
		if size == 1 {
			if _, err := io.ReadFull(r, hdr[8:16]); err != nil {
				return nil, nil, fmt.Errorf("truncated: file ends inside box %q", typ)
			}
			u := binary.BigEndian.Uint64(hdr[8:])
			if u > uint64(end) {
				return nil, nil, fmt.Errorf("truncated: box %q of %d bytes at byte %d, file has %d", typ, u, off, end)
			}
			size, h = int64(u), 16
		} else if size == 0 {
			size = end - off
		}
		if size < h {
			return nil, nil, corrupt("box %q at byte %d has size %d", typ, off, size)
		}
		if off+size > end {
			return nil, nil, fmt.Errorf("truncated: box %q at byte %d needs %d bytes, file has %d", typ, off, size, end-off)
		}
		if typ == "moov" || typ == "moof" {
			b := make([]byte, size-h)
			if _, err := io.ReadFull(r, b); err != nil {
				return nil, nil, err
			}
			if typ == "moov" {
				if moov != nil {
					return nil, nil, corrupt("a second moov box at byte %d", off)
				}
				moov = b
			} else {
				frags = append(frags, fragment{off, b})
			}
		}
		off += size
	}
	if moov == nil {
		return nil, nil, corrupt("no moov box")
	}
	return moov, frags, nil
}

func parseMP4(r io.ReadSeeker) (*mp4Track, error) {
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	moov, frags, err := readMoov(r)
	if err != nil {
		return nil, err
	}
	bs, err := boxes(moov)
	if err != nil {
		return nil, err
	}
	var movieTS uint32
	if mvhd := child(moov, "mvhd"); len(mvhd) >= 20 {
		if mvhd[0] == 1 && len(mvhd) >= 24 {
			movieTS = binary.BigEndian.Uint32(mvhd[20:])
		} else {
			movieTS = binary.BigEndian.Uint32(mvhd[12:])
		}
	}
	var smpb string
	if ilst := child(moov, "udta", "meta"); len(ilst) > 4 {
		smpb = itunSMPB(child(ilst[4:], "ilst"))
	}
	for _, trak := range bs {
		if trak.typ != "trak" {
			continue
		}
		hdlr := child(trak.data, "mdia", "hdlr")
		if len(hdlr) < 12 || string(hdlr[8:12]) != "soun" {
			continue
		}
		t, err := parseTrak(trak.data, size)
		if err != nil {
			return nil, err
		}
		if len(frags) > 0 {
			if err := t.fragments(trak.data, child(moov, "mvex"), frags, size); err != nil {
				return nil, err
			}
		}
		t.movieTS = movieTS
		if t.editDur < 0 && smpb != "" {
			t.applySMPB(smpb)
		}
		return t, nil
	}
	return nil, corrupt("no audio track")
}

func parseTrak(trak []byte, fileSize int64) (*mp4Track, error) {
	t := &mp4Track{editDur: -1, smpbTotal: -1}
	mdhd := child(trak, "mdia", "mdhd")
	if len(mdhd) >= 16 && mdhd[0] == 0 {
		t.timescale = binary.BigEndian.Uint32(mdhd[12:])
	} else if len(mdhd) >= 24 {
		t.timescale = binary.BigEndian.Uint32(mdhd[20:])
	}
	stbl := child(trak, "mdia", "minf", "stbl")
	if stbl == nil {
		return nil, corrupt("audio track without a sample table")
	}
	stsd := child(stbl, "stsd")
	if len(stsd) < 8 {
		return nil, corrupt("no sample description")
	}
	entries, err := boxes(stsd[8:])
	if err != nil || len(entries) == 0 {
		return nil, corrupt("sample description")
	}
	e := entries[0]
	if e.typ != "mp4a" {
		return nil, unsupported("audio codec %q", e.typ)
	}
	if len(e.data) < 28 {
		return nil, corrupt("mp4a sample entry of %d bytes", len(e.data))
	}
	ext := e.data[28:]
	switch binary.BigEndian.Uint16(e.data[8:]) { // QuickTime sound description version
	case 1:
		if len(ext) < 16 {
			return nil, corrupt("mp4a sample entry")
		}
		ext = ext[16:]
	case 2:
		if len(ext) < 36 {
			return nil, corrupt("mp4a sample entry")
		}
		ext = ext[36:]
	}
	esds := child(ext, "esds")
	if esds == nil {
		esds = child(ext, "wave", "esds")
	}
	if len(esds) < 4 {
		return nil, corrupt("mp4a without esds")
	}
	t.asc, err = parseESDS(esds[4:])
	if err != nil {
		return nil, err
	}
	if err := t.samples(stbl, fileSize); err != nil {
		return nil, err
	}
	if elst := child(trak, "edts", "elst"); len(elst) >= 8 {
		t.parseELST(elst)
	}
	return t, nil
}

// fragments appends the samples of the track's runs in every movie fragment
// (ISO/IEC 14496-12 8.8: moof/traf with tfhd and trun).
func (t *mp4Track) fragments(trak, mvex []byte, frags []fragment, fileSize int64) error {
	tkhd := child(trak, "tkhd")
	var id uint32
	switch {
	case len(tkhd) >= 24 && tkhd[0] == 1:
		id = binary.BigEndian.Uint32(tkhd[20:])
	case len(tkhd) >= 16:
		id = binary.BigEndian.Uint32(tkhd[12:])
	default:
		return corrupt("track header")
	}
	var defSize uint32
	if exs, err := boxes(mvex); err == nil {
		for _, x := range exs {
			if x.typ == "trex" && len(x.data) >= 24 && binary.BigEndian.Uint32(x.data[4:]) == id {
				defSize = binary.BigEndian.Uint32(x.data[16:])
			}
		}
	}
	for _, fr := range frags {
		trafs, err := boxes(fr.data)
		if err != nil {
			return err
		}
		for _, traf := range trafs {
			if traf.typ != "traf" {
				continue
			}
			tfhd := child(traf.data, "tfhd")
			if len(tfhd) < 8 {
				return corrupt("track fragment header")
			}
			if binary.BigEndian.Uint32(tfhd[4:]) != id {
				continue
			}
			flags := binary.BigEndian.Uint32(tfhd) & 0xFFFFFF
			base := fr.off // default-base-is-moof, and the first traf's base without it
			size := defSize
			p := tfhd[8:]
			field := func(n int) (uint64, bool) {
				if len(p) < n {
					return 0, false
				}
				var v uint64
				for _, c := range p[:n] {
					v = v<<8 | uint64(c)
				}
				p = p[n:]
				return v, true
			}
			ok := true
			if flags&0x01 != 0 {
				var v uint64
				v, ok = field(8)
				base = int64(v)
			}
			for _, f := range []struct {
				bit uint32
				n   int
			}{{0x02, 4}, {0x08, 4}} {
				if ok && flags&f.bit != 0 {
					_, ok = field(f.n)
				}
			}
			if ok && flags&0x10 != 0 {
				var v uint64
				v, ok = field(4)
				size = uint32(v)
			}
			if !ok {
				return corrupt("track fragment header")
			}
			trs, err := boxes(traf.data)
			if err != nil {
				return err
			}
			for _, tr := range trs {
				if tr.typ != "trun" {
					continue
				}
				if err := t.run(tr.data, base, size, fileSize); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// run appends the samples of one track run.
func (t *mp4Track) run(b []byte, base int64, defSize uint32, fileSize int64) error {
	if len(b) < 8 {
		return corrupt("track run")
	}
	flags := binary.BigEndian.Uint32(b) & 0xFFFFFF
	n := int(binary.BigEndian.Uint32(b[4:]))
	b = b[8:]
	off := base
	if flags&0x01 != 0 {
		if len(b) < 4 {
			return corrupt("track run")
		}
		off += int64(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
	}
	if flags&0x04 != 0 {
		if len(b) < 4 {
			return corrupt("track run")
		}
		b = b[4:]
	}
	per := 0
	for _, bit := range []uint32{0x100, 0x200, 0x400, 0x800} {
		if flags&bit != 0 {
			per += 4
		}
	}
	if per > 0 && n > len(b)/per {
		return corrupt("track run lists %d samples in %d bytes", n, len(b))
	}
	// every sample takes at least a byte of the file
	if int64(len(t.sizes))+int64(n) > fileSize {
		return corrupt("track runs list more samples than the file has bytes")
	}
	for i := 0; i < n; i++ {
		size := defSize
		e := b[i*per:]
		if flags&0x100 != 0 {
			e = e[4:]
		}
		if flags&0x200 != 0 {
			size = binary.BigEndian.Uint32(e)
		}
		t.offsets = append(t.offsets, off)
		t.sizes = append(t.sizes, size)
		off += int64(size)
	}
	return nil
}

// descriptor reads an MPEG-4 descriptor's tag and payload.
func descriptor(b []byte) (tag byte, body, rest []byte, err error) {
	if len(b) < 2 {
		return 0, nil, nil, corrupt("descriptor cut short")
	}
	tag = b[0]
	n, i := 0, 1
	for ; i < 5 && i < len(b); i++ {
		n = n<<7 | int(b[i]&0x7F)
		if b[i]&0x80 == 0 {
			i++
			break
		}
	}
	if n > len(b)-i {
		return 0, nil, nil, corrupt("descriptor %d of %d bytes in %d", tag, n, len(b)-i)
	}
	return tag, b[i : i+n], b[i+n:], nil
}

func parseESDS(b []byte) ([]byte, error) {
	tag, es, _, err := descriptor(b)
	if err != nil {
		return nil, err
	}
	if tag != 3 || len(es) < 3 {
		return nil, corrupt("esds without an ES descriptor")
	}
	flags := es[2]
	es = es[3:]
	if flags&0x80 != 0 {
		if len(es) < 2 {
			return nil, corrupt("ES descriptor")
		}
		es = es[2:]
	}
	if flags&0x40 != 0 {
		if len(es) < 1 || len(es) < 1+int(es[0]) {
			return nil, corrupt("ES descriptor")
		}
		es = es[1+int(es[0]):]
	}
	if flags&0x20 != 0 {
		if len(es) < 2 {
			return nil, corrupt("ES descriptor")
		}
		es = es[2:]
	}
	for len(es) > 0 {
		tag, dc, rest, err := descriptor(es)
		if err != nil {
			return nil, err
		}
		es = rest
		if tag != 4 {
			continue
		}
		if len(dc) < 13 {
			return nil, corrupt("decoder config descriptor")
		}
		switch dc[0] {
		case 0x40, 0x66, 0x67, 0x68:
		case 0x69, 0x6B:
			return nil, unsupported("MP3 in MP4")
		default:
			return nil, unsupported("object type indication %#x", dc[0])
		}
		dc = dc[13:]
		for len(dc) > 0 {
			tag, dsi, rest, err := descriptor(dc)
			if err != nil {
				return nil, err
			}
			if tag == 5 {
				return dsi, nil
			}
			dc = rest
		}
	}
	return nil, corrupt("esds without an AudioSpecificConfig")
}

func (t *mp4Track) samples(stbl []byte, fileSize int64) error {
	stsz := child(stbl, "stsz")
	if len(stsz) < 12 {
		return corrupt("no sample size table")
	}
	fixed := binary.BigEndian.Uint32(stsz[4:])
	count := int(binary.BigEndian.Uint32(stsz[8:]))
	if count == 0 {
		return nil // a fragmented file: the samples are in the movie fragments
	}
	if fixed == 0 {
		if count > (len(stsz)-12)/4 {
			return corrupt("stsz lists %d samples in %d bytes", count, len(stsz))
		}
		t.sizes = make([]uint32, count)
		for i := range t.sizes {
			t.sizes[i] = binary.BigEndian.Uint32(stsz[12+4*i:])
		}
	} else {
		if int64(count) > fileSize/int64(max(fixed, 1)) {
			return corrupt("stsz lists %d samples of %d bytes in a file of %d", count, fixed, fileSize)
		}
		t.sizes = make([]uint32, count)
		for i := range t.sizes {
			t.sizes[i] = fixed
		}
	}
	var chunks []int64
	if stco := child(stbl, "stco"); len(stco) >= 8 {
		n := int(binary.BigEndian.Uint32(stco[4:]))
		if n > (len(stco)-8)/4 {
			return corrupt("stco lists %d chunks in %d bytes", n, len(stco))
		}
		chunks = make([]int64, n)
		for i := range chunks {
			chunks[i] = int64(binary.BigEndian.Uint32(stco[8+4*i:]))
		}
	} else if co64 := child(stbl, "co64"); len(co64) >= 8 {
		n := int(binary.BigEndian.Uint32(co64[4:]))
		if n > (len(co64)-8)/8 {
			return corrupt("co64 lists %d chunks in %d bytes", n, len(co64))
		}
		chunks = make([]int64, n)
		for i := range chunks {
			chunks[i] = int64(binary.BigEndian.Uint64(co64[8+8*i:]))
		}
	} else {
		return corrupt("no chunk offset table")
	}
	stsc := child(stbl, "stsc")
	if len(stsc) < 8 {
		return corrupt("no sample-to-chunk table")
	}
	n := int(binary.BigEndian.Uint32(stsc[4:]))
	if n > (len(stsc)-8)/12 || n == 0 {
		return corrupt("stsc lists %d entries in %d bytes", n, len(stsc))
	}
	t.offsets = make([]int64, 0, len(t.sizes))
	s := 0
	for i := 0; i < n && s < len(t.sizes); i++ {
		e := stsc[8+12*i:]
		first := int64(binary.BigEndian.Uint32(e)) - 1
		per := int(binary.BigEndian.Uint32(e[4:]))
		last := int64(len(chunks))
		if i+1 < n {
			last = int64(binary.BigEndian.Uint32(stsc[8+12*(i+1):])) - 1
		}
		if first < 0 || last > int64(len(chunks)) || first > last {
			return corrupt("sample-to-chunk table")
		}
		for c := first; c < last && s < len(t.sizes); c++ {
			off := chunks[c]
			for j := 0; j < per && s < len(t.sizes); j++ {
				t.offsets = append(t.offsets, off)
				off += int64(t.sizes[s])
				s++
			}
		}
	}
	if s < len(t.sizes) {
		return corrupt("chunks hold %d of %d samples", s, len(t.sizes))
	}
	return nil
}

func (t *mp4Track) parseELST(b []byte) {
	version := b[0]
	n := int(binary.BigEndian.Uint32(b[4:]))
	b = b[8:]
	size := 12
	if version == 1 {
		size = 20
	}
	for i := 0; i < n && len(b) >= size; i++ {
		var dur, mt int64
		if version == 1 {
			dur, mt = int64(binary.BigEndian.Uint64(b)), int64(binary.BigEndian.Uint64(b[8:]))
		} else {
			dur, mt = int64(binary.BigEndian.Uint32(b)), int64(int32(binary.BigEndian.Uint32(b[4:])))
		}
		b = b[size:]
		if mt == -1 {
			continue // an empty edit (a delay before the track): ignored
		}
		t.skip, t.editDur = mt, dur
		return
	}
}

// itunSMPB returns the value of iTunes' gapless tag, if any.
func itunSMPB(ilst []byte) string {
	items, err := boxes(ilst)
	if err != nil {
		return ""
	}
	for _, it := range items {
		if it.typ != "----" {
			continue
		}
		name := child(it.data, "name")
		data := child(it.data, "data")
		if len(name) < 4 || string(name[4:]) != "iTunSMPB" || len(data) < 8 {
			continue
		}
		return string(data[8:])
	}
	return ""
}

func (t *mp4Track) applySMPB(v string) {
	f := strings.Fields(v)
	if len(f) < 4 {
		return
	}
	delay, err1 := strconv.ParseInt(f[1], 16, 64)
	total, err2 := strconv.ParseInt(f[3], 16, 64)
	if err1 != nil || err2 != nil || delay < 0 || total <= 0 {
		return
	}
	t.skip, t.smpbTotal = delay, total
}

// OpenMP4 decodes the first audio track of an MP4/M4A file, trimmed as its
// edit list (or iTunSMPB tag) says.
func OpenMP4(r io.ReadSeeker) (*Stream, error) {
	t, err := parseMP4(r)
	if err != nil {
		return nil, err
	}
	cfg, err := ParseASC(t.asc)
	if err != nil {
		return nil, err
	}
	if len(t.sizes) == 0 {
		return nil, corrupt("the audio track has no samples")
	}
	rate := int64(cfg.SampleRate)
	ts := int64(t.timescale)
	if ts <= 0 {
		ts = rate
	}
	skip := t.skip * rate / ts
	total := int64(-1)
	switch {
	case t.editDur > 0 && t.movieTS > 0:
		total = t.editDur * rate / int64(t.movieTS)
	case t.smpbTotal > 0:
		total = t.smpbTotal
	}
	if total == 0 {
		total = -1
	}
	if skip < 0 || skip > int64(len(t.sizes))*1024 {
		skip = 0
	}
	var buf []byte
	i := 0
	br := bufio.NewReaderSize(r, 64<<10)
	pos := int64(-1) // where br reads from
	next := func() ([]byte, error) {
		if i == len(t.sizes) {
			return nil, io.EOF
		}
		n := int(t.sizes[i])
		if n > 1<<16 {
			return nil, corrupt("sample %d of %d bytes", i+1, n)
		}
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		b := buf[:n]
		if pos != t.offsets[i] {
			if _, err := r.Seek(t.offsets[i], io.SeekStart); err != nil {
				return nil, err
			}
			br.Reset(r)
			pos = t.offsets[i]
		}
		k, err := io.ReadFull(br, b)
		pos += int64(k)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("truncated: sample %d at byte %d lies past the end of the file", i+1, t.offsets[i])
			}
			return nil, err
		}
		i++
		return b, nil
	}
	return newStream(cfg, next, skip, total)
}
