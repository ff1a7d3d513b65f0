package voice

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/voice"
)

// ConvertOptions are the inputs of `voice convert`.
type ConvertOptions struct {
	IO      *iostreams.IOStreams
	JSON    bool
	In, Out string // "-": standard input, standard output
	Force   bool   // overwrite an existing OUT
	Process processFlags
}

// NewCmdConvert decodes and processes one recording into a 16 kHz WAV file.
func NewCmdConvert(f *cmdutil.Factory, runF func(*ConvertOptions) error) *cobra.Command {
	opts := &ConvertOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "convert IN|- OUT.wav|-",
		Short: "Convert a recording to 16 kHz mono 16-bit WAV",
		Long: `Convert a recording to 16 kHz mono 16-bit PCM WAV, the input speech-to-text
services want. No provider is called and nothing is stored. "-" reads the
recording from standard input or writes the WAV to standard output (the
report then goes to standard error). An existing OUT is not overwritten
without --force.

` + formatsHelp + `

EXAMPLES
  helix voice convert memo.webm memo.wav
  helix voice convert call.m4a call.wav --normalize loudness --trim-silence
  helix voice convert take.flac take.wav --output json
  helix voice convert noisy.m4a speech.wav --vad --denoise   # speech only, noise reduced
  curl -s https://example.com/memo.ogg | helix voice convert - - > memo.wav

` + cmdutil.ExitStatus(cmdutil.ExitFailed, cmdutil.ExitUsage, cmdutil.ExitInterrupted),
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.In, opts.Out = args[0], args[1]
			opts.JSON = f.Global.JSON()
			cfg, err := f.Config()
			if err != nil {
				return cmdutil.InputError(err)
			}
			if err := opts.Process.settings(cmd, cfg); err != nil {
				return err
			}
			if _, err := opts.Process.options(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return convertRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite OUT when it exists")
	opts.Process.bind(cmd, false)
	return cmd
}

// ConvertResult is what `voice convert` reports.
type ConvertResult struct {
	In  string `json:"in"`
	Out string `json:"out"`
	voice.Result
	OutDuration float64 `json:"out_duration_seconds"`
}

func convertRun(ctx context.Context, opts *ConvertOptions) (err error) {
	po, err := opts.Process.options()
	if err != nil {
		return err
	}
	in := opts.In
	if in == "-" {
		// decoders seek (MP4 boxes, WAV chunks): the recording lands in a file first
		if in, err = spool(opts.IO.In); err != nil {
			return err
		}
		defer os.Remove(in)
	} else if _, err := os.Stat(in); err != nil {
		return cmdutil.InputError(err)
	}
	toStdout := opts.Out == "-"
	if !toStdout && !opts.Force {
		if _, err := os.Stat(opts.Out); err == nil {
			return cmdutil.InputError(fmt.Errorf("%s exists: pass --force to overwrite it", opts.Out))
		}
	}
	// write next to the target and rename, so a failed conversion leaves no half file
	dir := filepath.Dir(opts.Out)
	if toStdout {
		dir = ""
	}
	tmp, err := os.CreateTemp(dir, ".helix-convert-*.wav")
	if err != nil {
		if !toStdout && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOTDIR)) {
			// the user's path is wrong, not the machine: name it, not the temp file
			return cmdutil.InputError(fmt.Errorf("write %s: cannot create files in %s: %w", opts.Out, dir, unwrapPath(err)))
		}
		return err
	}
	if toStdout {
		defer os.Remove(tmp.Name())
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 256<<10)
	if _, err := w.Write(voice.WAVHeader(0)); err != nil {
		return err
	}
	res, err := voice.Convert(func() (voice.Source, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return voice.Open(in)
	}, po, w)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		var pe *os.PathError
		if errors.As(err, &pe) && pe.Path == tmp.Name() {
			return err
		}
		return cmdutil.InputError(fmt.Errorf("decode %s: %w", opts.In, err))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if _, err := tmp.WriteAt(voice.WAVHeader(res.Samples), 0); err != nil {
		return err
	}
	report := opts.IO.Out
	if toStdout {
		// the WAV is the result on stdout; the report goes to stderr
		report = opts.IO.ErrOut
		if _, err := tmp.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.Copy(opts.IO.Out, tmp); err != nil {
			return err
		}
		if err := tmp.Close(); err != nil {
			return err
		}
	} else {
		if err := tmp.Close(); err != nil {
			return err
		}
		if err := os.Rename(tmp.Name(), opts.Out); err != nil {
			return err
		}
	}
	out := ConvertResult{In: opts.In, Out: opts.Out, Result: res, OutDuration: float64(res.Samples) / voice.TargetRate}
	if opts.JSON {
		if toStdout {
			b, err := json.Marshal(out) // one line: stderr carries JSON objects a line each
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(report, "%s\n", b)
			return err
		}
		return cmdutil.WriteJSON(report, out)
	}
	_, err = fmt.Fprintf(report, "%s: %s, %d Hz, %d ch, %.2f s → %s: 16000 Hz mono 16-bit, %.2f s\n",
		opts.In, res.Format, res.Rate, res.Channels, res.Duration, opts.Out, out.OutDuration)
	return err
}

// unwrapPath is a path error's cause without the path, which is helix's
// temp file rather than anything the user named.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// spool copies standard input to a temporary file and returns its name.
func spool(r io.Reader) (string, error) {
	f, err := os.CreateTemp("", ".helix-convert-in-*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("read standard input: %w", err)
	}
	return f.Name(), nil
}
