package voice

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/helixhq/helix/internal/voice/aac"
)

// aacSource decodes AAC-LC natively (internal/voice/aac), from M4A/MP4 or
// ADTS. Other AAC flavours (HE-AAC's SBR and PS, more than two channels, …)
// go to ffmpeg: Open checks for them before the first sample is read.
type aacSource struct {
	f      *os.File
	s      *aac.Stream
	info   Info
	format Format
}

func newAAC(f *os.File, format Format) (*aacSource, error) {
	var s *aac.Stream
	var err error
	if format == AAC {
		s, err = aac.OpenADTS(f)
	} else {
		s, err = aac.OpenMP4(f)
	}
	if err != nil {
		return nil, err
	}
	return &aacSource{f: f, s: s, format: format, info: Info{Format: format, SampleRate: s.SampleRate(), Channels: s.Channels()}}, nil
}

func (a *aacSource) Info() Info   { return a.info }
func (a *aacSource) Close() error { return a.f.Close() }

func (a *aacSource) Read(p []float32) (int, error) {
	n, err := a.s.Read(p)
	if i := aac.OutOfRange(p[:n], maxFloatSample); i >= 0 {
		return 0, &DecodeError{a.format, fmt.Errorf("corrupt: sample %d of a block decodes to %v", i, p[i])}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return n, &DecodeError{a.format, err}
	}
	return n, err
}
