package voice

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"strings"
	"time"
)

// Where a recording's time came from.
const (
	RecordedFromContainer = "container" // the file's own creation time (MP4 mvhd, WAV bext or LIST/INFO ICRD)
	RecordedFromMtime     = "mtime"     // the file's modification time
	RecordedFromFlag      = "flag"      // --recorded-at
)

// RecordedAt is when the recording at path was made: the creation time its
// container records where the format has one, else the file's modification time.
func RecordedAt(path string) (time.Time, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}, "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return time.Time{}, "", err
	}
	if t, ok := ContainerTime(f, st.Size()); ok {
		return t, RecordedFromContainer, nil
	}
	return st.ModTime().UTC(), RecordedFromMtime, nil
}

// maxBoxes caps how many boxes or chunks ContainerTime walks: a file of a
// million tiny boxes is damaged, and must not cost a million reads.
const maxBoxes = 4096

// ContainerTime reads the creation time a container records: the movie
// header (mvhd) of an MP4/M4A file, the bext chunk's origination date and
// time or LIST/INFO's ICRD of a WAV file. It reports false for other
// formats, a missing or zero time, or damage; it never fails the recording.
func ContainerTime(r io.ReaderAt, size int64) (time.Time, bool) {
	head := make([]byte, 12)
	if n, _ := r.ReadAt(head, 0); n < 12 {
		return time.Time{}, false
	}
	switch {
	case string(head[4:8]) == "ftyp":
		return mp4Time(r, 0, size, 0)
	case string(head[:4]) == "RIFF" && string(head[8:12]) == "WAVE":
		return wavTime(r, size)
	}
	return time.Time{}, false
}

var mp4Epoch = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)

// plausible keeps times a recorder could have written: a zero or garbage
// field is no time at all.
func plausible(t time.Time) bool {
	return t.Year() >= 1990 && t.Year() <= 2200
}

// mp4Time walks the boxes in [off, end) looking for moov/mvhd.
func mp4Time(r io.ReaderAt, off, end int64, depth int) (time.Time, bool) {
	hdr := make([]byte, 16)
	for i := 0; off+8 <= end && i < maxBoxes; i++ {
		if n, _ := r.ReadAt(hdr[:8], off); n < 8 {
			return time.Time{}, false
		}
		size, typ, body := int64(binary.BigEndian.Uint32(hdr)), string(hdr[4:8]), off+8
		switch size {
		case 0: // to the end of the file
			size = end - off
		case 1:
			if n, _ := r.ReadAt(hdr[8:16], off+8); n < 8 {
				return time.Time{}, false
			}
			size, body = int64(binary.BigEndian.Uint64(hdr[8:16])), off+16
		}
		if size < body-off || size > end-off {
			return time.Time{}, false
		}
		switch typ {
		case "moov":
			if depth == 0 {
				return mp4Time(r, body, off+size, 1)
			}
		case "mvhd":
			if depth != 1 {
				break
			}
			b := make([]byte, 12)
			if n, _ := r.ReadAt(b, body); n < 12 {
				return time.Time{}, false
			}
			var secs uint64
			if b[0] == 1 {
				secs = binary.BigEndian.Uint64(b[4:12])
			} else {
				secs = uint64(binary.BigEndian.Uint32(b[4:8]))
			}
			if secs == 0 || secs > 1<<40 {
				return time.Time{}, false
			}
			t := mp4Epoch.Add(time.Duration(secs) * time.Second)
			return t, plausible(t)
		}
		off += size
	}
	return time.Time{}, false
}

// wavTime walks the RIFF chunks for bext (preferred: broadcast recorders
// fill it) and LIST/INFO ICRD. Neither names a time zone: the time is taken
// as the local time of the machine running helix.
func wavTime(r io.ReaderAt, size int64) (time.Time, bool) {
	var icrd time.Time
	hdr := make([]byte, 8)
	off := int64(12)
	for i := 0; off+8 <= size && i < maxBoxes; i++ {
		if n, _ := r.ReadAt(hdr, off); n < 8 {
			break
		}
		id, n := string(hdr[:4]), int64(binary.LittleEndian.Uint32(hdr[4:]))
		body := off + 8
		if n > size-body {
			n = size - body
		}
		switch id {
		case "bext":
			if n >= 338 {
				b := make([]byte, 18)
				if k, _ := r.ReadAt(b, body+320); k == 18 {
					if t, ok := parseRecTime(string(b[:10]) + " " + string(b[10:])); ok {
						return t, true
					}
					if t, ok := parseRecTime(string(b[:10])); ok {
						return t, true
					}
				}
			}
		case "LIST":
			if n >= 4 && n <= 1<<20 && icrd.IsZero() {
				b := make([]byte, n)
				if k, _ := r.ReadAt(b, body); int64(k) == n && string(b[:4]) == "INFO" {
					icrd = infoICRD(b[4:])
				}
			}
		}
		off = body + n + n&1
	}
	return icrd, !icrd.IsZero()
}

// infoICRD finds the ICRD (creation date) subchunk of a LIST/INFO body.
func infoICRD(b []byte) time.Time {
	for i := 0; len(b) >= 8 && i < maxBoxes; i++ {
		id, n := string(b[:4]), int(binary.LittleEndian.Uint32(b[4:8]))
		if n < 0 || n > len(b)-8 {
			return time.Time{}
		}
		if id == "ICRD" {
			s := string(bytes.TrimRight(b[8:8+n], "\x00 "))
			t, _ := parseRecTime(s)
			return t
		}
		b = b[min(len(b), 8+n+n&1):]
	}
	return time.Time{}
}

// parseRecTime reads the date and time forms recorders write.
func parseRecTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	// EBU Tech 3285 allows any of these separators in the date
	s = strings.Map(func(r rune) rune {
		if r == '_' || r == '/' || r == '.' {
			return '-'
		}
		return r
	}, s)
	if len(s) >= 10 && s[4] == ':' && s[7] == ':' {
		s = s[:4] + "-" + s[5:7] + "-" + s[8:]
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15-04-05", "2006-01-02"} {
		var t time.Time
		var err error
		if layout == time.RFC3339 {
			t, err = time.Parse(layout, s)
		} else {
			t, err = time.ParseInLocation(layout, s, time.Local)
		}
		if err == nil && plausible(t) {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
