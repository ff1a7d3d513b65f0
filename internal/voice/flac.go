package voice

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
)

type flacSource struct {
	f       *os.File
	s       *flac.Stream
	info    Info
	scale   float32
	total   uint64 // samples per channel the STREAMINFO announces, 0 if unknown
	seen    uint64
	pending *frame.Frame
	off     int // next sample of pending
}

func newFLAC(f *os.File) (*flacSource, error) {
	s, err := flac.New(bufio.NewReaderSize(f, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("corrupt header: %w", truncated(err, "the metadata"))
	}
	si := s.Info
	if si.SampleRate == 0 || si.NChannels == 0 {
		return nil, errors.New("corrupt STREAMINFO: no sample rate or channels")
	}
	return &flacSource{
		f: f, s: s, total: si.NSamples,
		info:  Info{Format: FLAC, SampleRate: int(si.SampleRate), Channels: int(si.NChannels)},
		scale: 1 / float32(uint64(1)<<(si.BitsPerSample-1)),
	}, nil
}

func (d *flacSource) Info() Info   { return d.info }
func (d *flacSource) Close() error { return d.f.Close() }

func (d *flacSource) Read(p []float32) (int, error) {
	ch := d.info.Channels
	for d.pending == nil || d.off >= int(d.pending.BlockSize) {
		fr, err := d.s.ParseNext()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if d.total > 0 && d.seen < d.total {
					return 0, &DecodeError{FLAC, fmt.Errorf("truncated: %d of %d samples present", d.seen, d.total)}
				}
				return 0, io.EOF
			}
			return 0, &DecodeError{FLAC, fmt.Errorf("corrupt frame after sample %d: %w", d.seen, truncated(err, "a frame"))}
		}
		if len(fr.Subframes) != ch {
			return 0, &DecodeError{FLAC, fmt.Errorf("corrupt frame after sample %d: %d channels, stream has %d", d.seen, len(fr.Subframes), ch)}
		}
		d.pending, d.off = fr, 0
		d.seen += uint64(fr.BlockSize)
	}
	n := min(len(p)/ch, int(d.pending.BlockSize)-d.off)
	for c, sf := range d.pending.Subframes {
		src := sf.Samples[d.off : d.off+n]
		for i, v := range src {
			p[i*ch+c] = float32(v) * d.scale
		}
	}
	d.off += n
	return n * ch, nil
}
