// Package voice decodes voice recordings in the formats devices record, turns
// them into 16 kHz mono 16-bit PCM and transcribes them with a speech-to-text provider.
package voice

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/helixhq/helix/internal/voice/aac"
)

// Format is an audio container and codec, detected from the file's bytes.
type Format string

// Formats helix recognises.
const (
	WAV      Format = "wav"
	MP3      Format = "mp3"
	FLAC     Format = "flac"
	WebMOpus Format = "webm-opus"
	OggOpus  Format = "ogg-opus"
	OggOther Format = "ogg-vorbis"
	Matroska Format = "matroska" // WebM/Matroska whose audio is not Opus
	M4A      Format = "m4a"
	AAC      Format = "aac" // ADTS
)

// Info describes a decoded stream.
type Info struct {
	Format     Format
	SampleRate int // Hz, of the samples Read returns
	Channels   int // of the samples Read returns
}

// Source yields interleaved float32 samples (full scale ±1) block by block.
type Source interface {
	Info() Info
	// Read fills p with whole frames and returns the number of samples written;
	// io.EOF after the last one. Any other error means the file is damaged.
	Read(p []float32) (int, error)
	Close() error
}

// ErrNeedFFmpeg is returned for formats that only ffmpeg decodes when ffmpeg is not on PATH.
var ErrNeedFFmpeg = errors.New("ffmpeg is not on PATH")

// Detect names the format of a file from its first bytes.
func Detect(head []byte) (Format, error) {
	switch {
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WAVE":
		return WAV, nil
	case len(head) >= 4 && string(head[:4]) == "fLaC":
		return FLAC, nil
	case len(head) >= 4 && string(head[:4]) == "OggS":
		if bytes.Contains(head[:min(len(head), 128)], []byte("\x01vorbis")) {
			return OggOther, nil
		}
		return OggOpus, nil // a damaged OpusHead is reported by the Opus reader
	case len(head) >= 4 && bytes.Equal(head[:4], []byte{0x1A, 0x45, 0xDF, 0xA3}):
		return WebMOpus, nil // the codec is checked when the tracks are read
	case len(head) >= 8 && string(head[4:8]) == "ftyp":
		return M4A, nil
	case aac.IsADTS(head):
		return AAC, nil
	case len(head) >= 3 && string(head[:3]) == "ID3":
		return MP3, nil
	case len(head) >= 2 && head[0] == 0xFF && head[1]&0xE0 == 0xE0 && head[1]&0x06 == 0x02:
		return MP3, nil // MPEG audio layer III frame sync
	}
	return "", errors.New("not a recognised audio format (WAV, MP3, FLAC, WebM/Opus, Ogg/Opus, Ogg Vorbis, M4A, AAC)")
}

// Open detects the format of the file at path and returns a Source decoding it.
func Open(path string) (Source, error) { return openFile(path, true) }

// openFile is Open; with ffmpegOK false, formats that need ffmpeg fail with
// ErrNeedFFmpeg instead of starting it (the fuzz targets use that).
func openFile(path string, ffmpegOK bool) (Source, error) {
	viaFFmpeg := func(format Format, why string) (Source, error) {
		if !ffmpegOK {
			return nil, fmt.Errorf("%s: %w", formatNames[format], ErrNeedFFmpeg)
		}
		return newFFmpeg(path, format, why)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 256)
	n, err := io.ReadFull(fh, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		fh.Close()
		return nil, err
	}
	if n == 0 {
		fh.Close()
		return nil, errors.New("empty file")
	}
	format, err := Detect(head[:n])
	if err != nil {
		fh.Close()
		return nil, err
	}
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		fh.Close()
		return nil, err
	}
	var src Source
	switch format {
	case WAV:
		src, err = newWAV(bufio.NewReaderSize(fh, 64<<10), fh, WAV)
	case MP3:
		src, err = newMP3(fh)
	case FLAC:
		src, err = newFLAC(fh)
	case OggOpus:
		src, err = newOggOpus(bufio.NewReaderSize(fh, 64<<10), fh)
	case WebMOpus:
		src, err = newWebM(fh, path)
	case M4A, AAC:
		src, err = newAAC(fh, format)
		if errors.Is(err, aac.ErrUnsupported) {
			// HE-AAC and the rarer AAC flavours: ffmpeg decodes them
			fh.Close()
			return viaFFmpeg(format, err.Error())
		}
	case OggOther:
		// ffmpeg decodes a truncated or damaged Ogg file without complaint: check its pages first
		err = checkOgg(bufio.NewReaderSize(fh, 64<<10))
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", formatNames[format], err)
		}
		return viaFFmpeg(format, "")
	default:
		fh.Close()
		return viaFFmpeg(format, "")
	}
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %w", format, err)
	}
	return src, nil
}

// OpenContext is Open whose Source stops with ctx's error once ctx is done,
// so an interrupted run does not finish decoding an hour-long file first.
func OpenContext(ctx context.Context, path string) (Source, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := Open(path)
	if err != nil {
		return nil, err
	}
	return &ctxSource{Source: s, ctx: ctx}, nil
}

type ctxSource struct {
	Source
	ctx context.Context
}

func (c *ctxSource) Read(p []float32) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.Source.Read(p)
}

// DecodeError is damage found while reading samples.
type DecodeError struct {
	Format Format
	Err    error
}

func (e *DecodeError) Error() string { return fmt.Sprintf("%s: %v", e.Format, e.Err) }
func (e *DecodeError) Unwrap() error { return e.Err }

// truncated turns an early EOF into a message a user can act on.
func truncated(err error, what string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("truncated: file ends inside %s", what)
	}
	return err
}
