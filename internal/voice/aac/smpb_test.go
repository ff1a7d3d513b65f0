package aac

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

func mp4Box(typ string, payload ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0)
	b = append(b, typ...)
	for _, p := range payload {
		b = append(b, p...)
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)))
	return b
}

// TestITunSMPB: without an edit list, iTunes' gapless tag says how many
// priming samples to drop and how many to keep (as iTunes and older Apple
// encoders write it).
func TestITunSMPB(t *testing.T) {
	b := smpbFile(t)
	s, err := OpenMP4(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, s)
	want := readAll(t, open(t, "speech.m4a")) // trimmed by its edit list: skip 1024
	if len(got) != 0x2309C {
		t.Errorf("%d samples, iTunSMPB says %d", len(got), 0x2309C)
	}
	for k := range min(len(got), len(want)) {
		if got[k] != want[k] {
			t.Fatalf("sample %d: %v, with the edit list %v", k, got[k], want[k])
		}
	}
}

// smpbFile is speech.m4a with its edit list replaced by an iTunSMPB tag that
// says the same: 1024 priming samples, 143516 kept.
func smpbFile(t *testing.T) []byte {
	b, err := os.ReadFile(filepath.Join(fixtures, "speech.m4a"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("moov")) - 4
	if i < 0 || int(binary.BigEndian.Uint32(b[i:])) != len(b)-i {
		t.Fatal("speech.m4a: moov is not the last box")
	}
	e := bytes.Index(b[i:], []byte("edts"))
	if e < 0 {
		t.Fatal("no edts")
	}
	copy(b[i+e:], "free") // the edit list is gone
	if u := bytes.Index(b[i:], []byte("udta")); u >= 0 {
		copy(b[i+u:], "free") // and ffmpeg's tags, replaced by those below
	}
	smpb := " 00000000 00000400 000003A6 000000000002309C 00000000 00000000"
	ilst := mp4Box("ilst", mp4Box("----",
		mp4Box("mean", []byte{0, 0, 0, 0}, []byte("com.apple.iTunes")),
		mp4Box("name", []byte{0, 0, 0, 0}, []byte("iTunSMPB")),
		mp4Box("data", []byte{0, 0, 0, 1, 0, 0, 0, 0}, []byte(smpb))))
	udta := mp4Box("udta", mp4Box("meta", []byte{0, 0, 0, 0}, mp4Box("hdlr", make([]byte, 25)), ilst))
	b = append(b, udta...)
	binary.BigEndian.PutUint32(b[i:], uint32(len(b)-i))
	return b
}
