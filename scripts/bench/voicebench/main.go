// Command voicebench makes the speech-and-noise material of
// scripts/bench/vad.sh and denoise.sh (espeak-ng speech, sox noise, known
// timelines) and scores what helix and sox do with it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/helixhq/helix/internal/voice"
	"github.com/helixhq/helix/internal/voice/voicetest"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: voicebench vad|mix|segsnr ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "vad":
		err = vad(os.Args[2:])
	case "mix":
		err = mix(os.Args[2:])
	case "segsnr":
		err = segsnr(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "voicebench:", err)
		os.Exit(1)
	}
}

// vad builds 10 × (2 s speech, 3 s silence or noise at -db dB), runs helix's
// VAD on it, and prints the fractions of speech and non-speech frames kept
// and of the recording sent; the WAV is left in -dir for sox.
func vad(args []string) error {
	fs := flag.NewFlagSet("vad", flag.ExitOnError)
	dir := fs.String("dir", os.TempDir(), "work directory")
	noise := fs.String("noise", "white", "white, pink, brown or babble")
	db := fs.Float64("db", -10, "noise level relative to the speech, dB")
	fs.Parse(args)
	tl, err := voicetest.Alternating(*dir, 10, 2, 3, *noise, *db)
	if err != nil {
		return err
	}
	path := filepath.Join(*dir, "vad-"+*noise+".wav")
	if err := voicetest.WriteWAV(path, tl.Samples); err != nil {
		return err
	}
	res, err := voice.Convert(func() (voice.Source, error) { return voice.Open(path) }, voice.ProcessOptions{HighPass: true, VAD: true}, io.Discard)
	if err != nil {
		return err
	}
	var ranges [][2]int64
	for _, s := range res.Segments {
		ranges = append(ranges, [2]int64{s.In, s.In + s.N})
	}
	sp, ns := tl.Kept(ranges)
	fmt.Printf("%-7s %+5.0f dB  speech frames kept %5.1f %%  non-speech kept %5.1f %%  sent %5.1f %% of %.0f s  (%s)\n",
		*noise, *db, 100*sp, 100*ns, 100*float64(res.Samples)/float64(len(tl.Samples)), float64(len(tl.Samples))/voicetest.Rate, path)
	return nil
}

// mix writes clean.wav (sentences with 1 s pauses, tiled to -seconds),
// noise.wav (the noise alone, for sox noiseprof) and noisy.wav (both, the
// speech -snr dB above the noise).
func mix(args []string) error {
	fs := flag.NewFlagSet("mix", flag.ExitOnError)
	dir := fs.String("dir", os.TempDir(), "work directory")
	kind := fs.String("noise", "white", "white, pink, brown or babble")
	snr := fs.Float64("snr", 5, "speech-to-noise ratio, dB")
	secs := fs.Float64("seconds", 60, "length")
	fs.Parse(args)
	one, err := voicetest.Spoken(*dir, 10, 1)
	if err != nil {
		return err
	}
	n := int(*secs * voicetest.Rate)
	clean := &voicetest.Timeline{}
	for len(clean.Samples) < n {
		k := min(len(one.Samples), n-len(clean.Samples))
		clean.Samples = append(clean.Samples, one.Samples[:k]...)
		clean.Speech = append(clean.Speech, one.Speech[:k]...)
	}
	nz, err := voicetest.Noise(*dir, *kind, min(*secs, 120)+1, 11)
	if err != nil {
		return err
	}
	noisy := voicetest.Mix(clean.Samples, clean.Speech, nz, *snr)
	noiseOnly := make([]float32, len(noisy))
	for i := range noisy {
		noiseOnly[i] = noisy[i] - clean.Samples[i]
	}
	for name, x := range map[string][]float32{"clean.wav": clean.Samples, "noise.wav": noiseOnly[:min(len(noiseOnly), 30*voicetest.Rate)], "noisy.wav": noisy} {
		if err := voicetest.WriteWAV(filepath.Join(*dir, name), x); err != nil {
			return err
		}
	}
	return nil
}

// segsnr prints the segmental SNR of each file against the first.
func segsnr(args []string) error {
	if len(args) < 2 {
		return errors.New("usage: segsnr CLEAN.wav FILE.wav…")
	}
	clean, err := voicetest.ReadWAV(args[0])
	if err != nil {
		return err
	}
	for _, p := range args[1:] {
		x, err := voicetest.ReadWAV(p)
		if err != nil {
			return err
		}
		fmt.Printf("%s=%s ", filepath.Base(p), strconv.FormatFloat(voicetest.SegSNR(clean, x), 'f', 2, 64))
	}
	fmt.Println()
	return nil
}
