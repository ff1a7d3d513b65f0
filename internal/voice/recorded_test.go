package voice

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// withMvhdTime is the fixture with its movie header's creation time set (ffmpeg -bitexact leaves it 0).
func withMvhdTime(t testing.TB, name string, at time.Time) []byte {
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("mvhd"))
	if i < 0 || b[i+4] != 0 {
		t.Fatalf("%s: no version-0 mvhd", name)
	}
	binary.BigEndian.PutUint32(b[i+8:], uint32(at.Sub(mp4Epoch)/time.Second))
	return b
}

// withChunk inserts a RIFF chunk after the WAVE header of a WAV fixture.
func withChunk(t testing.TB, name, id string, body []byte) []byte {
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	chunk := append([]byte(id), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...)
	chunk = append(chunk, body...)
	if len(body)%2 == 1 {
		chunk = append(chunk, 0)
	}
	out := append(append(append([]byte(nil), b[:12]...), chunk...), b[12:]...)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(out)-8))
	return out
}

func bext(date, clock string) []byte {
	b := make([]byte, 602)
	copy(b[320:], date)
	copy(b[330:], clock)
	return b
}

func TestRecordedAt(t *testing.T) {
	at := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	// WAV times name no zone: they are the local time of the machine
	local := time.Date(2026, 3, 14, 9, 26, 53, 0, time.Local)
	dir := t.TempDir()
	mtime := time.Date(2025, 12, 24, 18, 0, 0, 0, time.UTC)
	info := []byte("INFO")
	info = append(info, "ICRD"...)
	info = binary.LittleEndian.AppendUint32(info, 11)
	info = append(info, "2026-02-01\x00\x00"...)
	for _, c := range []struct {
		name string
		data []byte
		want time.Time
		from string
	}{
		{"m4a with mvhd time", withMvhdTime(t, "speech.m4a", at), at, RecordedFromContainer},
		{"m4a without (0)", mustRead(t, "speech.m4a"), mtime, RecordedFromMtime},
		{"wav with bext", withChunk(t, "speech-s16-22k.wav", "bext", bext("2026-03-14", "09:26:53")), local, RecordedFromContainer},
		{"wav with bext, other separators", withChunk(t, "speech-s16-22k.wav", "bext", bext("2026_03_14", "09.26.53")), local, RecordedFromContainer},
		{"wav with LIST/INFO ICRD", withChunk(t, "speech-s16-22k.wav", "LIST", info), time.Date(2026, 2, 1, 0, 0, 0, 0, time.Local), RecordedFromContainer},
		{"wav with an empty bext", withChunk(t, "speech-s16-22k.wav", "bext", bext("", "")), mtime, RecordedFromMtime},
		{"plain wav", mustRead(t, "speech-s16-22k.wav"), mtime, RecordedFromMtime},
		{"flac", mustRead(t, "speech.flac"), mtime, RecordedFromMtime},
	} {
		p := filepath.Join(dir, "rec")
		os.WriteFile(p, c.data, 0o644)
		os.Chtimes(p, mtime, mtime)
		got, from, err := RecordedAt(p)
		if err != nil || !got.Equal(c.want) || from != c.from {
			t.Errorf("%s: %v from %s (%v), want %v from %s", c.name, got, from, err, c.want, c.from)
		}
	}
	// the file still decodes with the chunk in it
	p := filepath.Join(dir, "bext.wav")
	os.WriteFile(p, withChunk(t, "speech-s16-22k.wav", "bext", bext("2026-03-14", "09:26:53")), 0o644)
	if _, _, err := Samples(func() (Source, error) { return Open(p) }); err != nil {
		t.Errorf("WAV with bext: %v", err)
	}
}

func mustRead(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzContainerTime: the creation-time reader takes any bytes (boxes and
// chunks of any size, nested or cut short) without panicking or looping, and
// a time it returns is a plausible one.
func FuzzContainerTime(f *testing.F) {
	at := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	for _, b := range [][]byte{withMvhdTime(f, "speech-aac-16k-mono-short.m4a", at), withChunk(f, "speech-u8-8k.wav", "bext", bext("2026-03-14", "09:26:53"))} {
		f.Add(b[:min(len(b), 6000)])
	}
	f.Add([]byte("RIFF\x00\x00\x00\x00WAVELIST\x10\x00\x00\x00INFOICRD\x04\x00\x00\x002026"))
	f.Add([]byte("\x00\x00\x00\x01ftyp\x00\x00\x00\x00\x00\x00\x00\x10"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := ContainerTime(bytes.NewReader(b), int64(len(b)))
		if ok && !plausible(got) {
			t.Fatalf("implausible time %v", got)
		}
	})
}
