// Package voice implements `helix voice`: decode recordings, convert them to
// 16 kHz mono 16-bit PCM, transcribe them and store the transcripts.
package voice

import (
	"strconv"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/voice"
)

// NewCmdVoice is the `voice` group.
func NewCmdVoice(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "voice <command>",
		Short: "Convert and transcribe voice recordings",
	}
	cmd.AddCommand(NewCmdConvert(f, nil), NewCmdTranscribe(f, nil))
	return cmd
}

// processFlags are shared by convert and transcribe.
type processFlags struct {
	HighPass    bool
	Normalize   string
	TrimSilence bool
	VAD         bool
	Denoise     bool
}

// bind adds the processing flags; vad is --vad's default (on for transcribe).
func (p *processFlags) bind(cmd *cobra.Command, vad bool) {
	cmd.Flags().BoolVar(&p.HighPass, "highpass", true, "remove rumble below 80 Hz")
	cmd.Flags().StringVar(&p.Normalize, "normalize", "none", "level the audio: none, peak (to -1 dBFS) or loudness (to -20 dBFS)")
	cmd.Flags().BoolVar(&p.TrimSilence, "trim-silence", false, "drop leading and trailing silence (150 ms kept)")
	cmd.Flags().BoolVar(&p.VAD, "vad", vad, "drop the frames without speech (a short hang-over kept around words); setting voice.vad")
	cmd.Flags().BoolVar(&p.Denoise, "denoise", false, "reduce steady background noise (spectral, profile from the frames without speech); setting voice.denoise")
}

// settings fills --vad and --denoise from voice.vad and voice.denoise when
// neither the flag nor the command's own setting (voice.convert.vad…) gave them.
func (p *processFlags) settings(cmd *cobra.Command, cfg *config.Config) error {
	if err := settingBool(cmd, cfg, "vad", "voice.vad", &p.VAD); err != nil {
		return err
	}
	return settingBool(cmd, cfg, "denoise", "voice.denoise", &p.Denoise)
}

// settingBool sets *v from the voice-wide setting key unless flag was given
// on the command line or by the command's own key.
func settingBool(cmd *cobra.Command, cfg *config.Config, flag, key string, v *bool) error {
	fl := cmd.Flags().Lookup(flag)
	if fl == nil || fl.Changed || cfg.IsSet(cmdutil.FlagKey(cmd, fl)) || !cfg.IsSet(key) {
		return nil
	}
	b, err := strconv.ParseBool(cfg.String(key))
	if err != nil {
		return cmdutil.FlagErrorf("invalid value for %s (from %s): use true or false", key, cfg.Source(key))
	}
	*v = b
	return nil
}

func (p *processFlags) options() (voice.ProcessOptions, error) {
	o := voice.ProcessOptions{HighPass: p.HighPass, TrimSilence: p.TrimSilence, VAD: p.VAD, Denoise: p.Denoise}
	switch p.Normalize {
	case "none", "":
	case voice.NormalizePeak, voice.NormalizeLoudness:
		o.Normalize = p.Normalize
	default:
		return o, cmdutil.FlagErrorf("invalid --normalize %q: use none, peak or loudness", p.Normalize)
	}
	return o, nil
}

const formatsHelp = `Formats are detected from the bytes, not the file name: WAV (PCM 8/16/24/32-bit,
float 32/64, WAVE_FORMAT_EXTENSIBLE), MP3, FLAC, WebM/Opus (as browsers record
it), Ogg/Opus and AAC-LC in M4A or ADTS (as Safari and iOS record it) are decoded
natively; HE-AAC and Ogg Vorbis need ffmpeg on PATH.
The audio is downmixed to mono, high-passed at 80 Hz, resampled to 16 kHz by a
polyphase Kaiser-windowed sinc filter (125 dB rejection, -3 dB at 95% of Nyquist)
and dithered to 16 bits. A damaged or truncated file is an input error (exit 2)
that names the file and the problem.`
