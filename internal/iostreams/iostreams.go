// Package iostreams carries stdin, stdout and stderr with what the program
// knows about them (whether each is a terminal), so commands never reach for os.Std*.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"github.com/mattn/go-isatty"

	"github.com/helixhq/helix/internal/redact"
)

// IOStreams is what a command reads from and writes to.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY  bool
	stdoutTTY bool
	stderrTTY bool
}

// System returns the process's own streams. Whatever is written to stdout
// and stderr — results, log lines, the final error — has every secret helix
// knows masked (package redact).
func System() *IOStreams {
	s := &IOStreams{
		In:        os.Stdin,
		Out:       redact.Writer(os.Stdout),
		ErrOut:    redact.Writer(os.Stderr),
		stdinTTY:  isTerminal(os.Stdin),
		stderrTTY: isTerminal(os.Stderr),
	}
	s.SetStdoutTTY(isTerminal(os.Stdout))
	return s
}

// Terminal is a writer that says whether a person reads it. Out is one when
// stdout is a terminal, so printers that get only a writer (a JSON result is
// indented for people, one line for programs) need no IOStreams.
type Terminal interface {
	io.Writer
	IsTerminal() bool
}

type terminal struct{ io.Writer }

func (terminal) IsTerminal() bool { return true }

// IsTerminal reports whether w is a terminal's writer (see Terminal).
func IsTerminal(w io.Writer) bool {
	t, ok := w.(Terminal)
	return ok && t.IsTerminal()
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// IsStdinTTY reports whether a person can answer a prompt.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// SetStdinTTY lets tests pretend a person sits at the keyboard.
func (s *IOStreams) SetStdinTTY(v bool) { s.stdinTTY = v }

// IsStdoutTTY reports whether results go to a terminal (a person reads them).
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether progress can be drawn.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// SetStdoutTTY and SetStderrTTY let tests pretend to be a terminal.
func (s *IOStreams) SetStdoutTTY(v bool) {
	s.stdoutTTY = v
	t, wrapped := s.Out.(terminal)
	switch {
	case v && !wrapped && s.Out != nil:
		s.Out = terminal{s.Out}
	case !v && wrapped:
		s.Out = t.Writer
	}
}

func (s *IOStreams) SetStderrTTY(v bool) { s.stderrTTY = v }

// Test returns streams backed by buffers: stdin, stdout, stderr.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}
