package voice

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

var formatNames = map[Format]string{
	M4A: "M4A/AAC", AAC: "ADTS AAC", OggOther: "Ogg Vorbis", Matroska: "WebM/Matroska with a codec other than Opus",
}

// ffmpegSource decodes formats that have no pure-Go decoder by running
// ffmpeg, which writes float32 WAV to a pipe that helix's own WAV reader parses.
type ffmpegSource struct {
	*wavSource
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stderr *bytes.Buffer
	format Format
	path   string
}

// why, when not empty, says why a format that usually decodes natively
// needs ffmpeg (e.g. "unsupported AAC stream: HE-AAC (SBR)").
func newFFmpeg(path string, format Format, why string) (Source, error) {
	bin, err := exec.LookPath("ffmpeg")
	if err != nil {
		what := formatNames[format]
		if why != "" {
			what += " (" + why + ")"
		}
		return nil, fmt.Errorf("%s has no built-in decoder: install ffmpeg (e.g. apt-get install ffmpeg) and put it on PATH: %w", what, ErrNeedFFmpeg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-nostdin", "-hide_banner", "-loglevel", "error", "-i", path,
		"-vn", "-map", "0:a:0", "-c:a", "pcm_f32le", "-f", "wav", "pipe:1")
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	s := &ffmpegSource{cmd: cmd, cancel: cancel, stderr: stderr, format: format, path: path}
	w, err := newWAV(bufio.NewReaderSize(out, 64<<10), nil, format)
	if err != nil {
		cancel()
		_ = cmd.Wait()
		return nil, fmt.Errorf("%s (ffmpeg): %s", formatNames[format], s.reason(err))
	}
	w.toEOF = true // ffmpeg cannot seek back into a pipe to write sizes
	s.wavSource = w
	return s, nil
}

func (s *ffmpegSource) reason(err error) string {
	if msg := strings.TrimSpace(s.stderr.String()); msg != "" {
		lines := strings.Split(msg, "\n")
		return "corrupt: " + strings.TrimPrefix(lines[len(lines)-1], s.path+": ")
	}
	return err.Error()
}

func (s *ffmpegSource) Read(p []float32) (int, error) {
	n, err := s.wavSource.Read(p)
	if errors.Is(err, io.EOF) {
		werr := s.cmd.Wait()
		if werr == nil && s.stderr.Len() > 0 {
			werr = errors.New("ffmpeg reported errors")
		}
		if werr != nil {
			return 0, &DecodeError{s.format, errors.New(s.reason(werr))}
		}
		s.cmd = nil
	}
	return n, err
}

func (s *ffmpegSource) Close() error {
	s.cancel()
	if s.cmd != nil {
		_ = s.cmd.Wait()
	}
	return nil
}
