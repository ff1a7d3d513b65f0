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
	return &IOStreams{
		In:        os.Stdin,
		Out:       redact.Writer(os.Stdout),
		ErrOut:    redact.Writer(os.Stderr),
		stdinTTY:  isTerminal(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
	}
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
func (s *IOStreams) SetStdoutTTY(v bool) { s.stdoutTTY = v }
func (s *IOStreams) SetStderrTTY(v bool) { s.stderrTTY = v }

// Test returns streams backed by buffers: stdin, stdout, stderr.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}
