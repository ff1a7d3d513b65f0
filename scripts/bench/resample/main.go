// Command resample measures helix's resampler next to sox on the same test
// signals (passband ripple, bandwidth, stopband rejection, 1 kHz SNR), and
// times helix's decoders. It is driven by scripts/bench/resample.sh.
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/helixhq/helix/internal/voice"
	"github.com/helixhq/helix/internal/voice/dsp"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: resample quality|decode ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "quality":
		err = quality(os.Args[2:])
	case "decode":
		err = decode(os.Args[2:])
	case "convert":
		err = convert(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "resample:", err)
		os.Exit(1)
	}
}

// decode times decoding a file to float samples (no processing);
// -cpuprofile writes a pprof CPU profile of it, -compare checks the samples
// against a reference decode (raw float32 little-endian, e.g. ffmpeg -f f32le).
func decode(args []string) error {
	fs := flag.NewFlagSet("decode", flag.ExitOnError)
	prof := fs.String("cpuprofile", "", "write a CPU profile to this file")
	ref := fs.String("compare", "", "compare with this raw f32le decode: length, SNR, correlation")
	_ = fs.Parse(args)
	if fs.NArg() != 1 {
		return errors.New("usage: resample decode [-cpuprofile file] [-compare ref.f32] audio-file")
	}
	stop, err := profile(*prof)
	if err != nil {
		return err
	}
	defer stop()
	var want []float32
	if *ref != "" {
		b, err := os.ReadFile(*ref)
		if err != nil {
			return err
		}
		want = make([]float32, len(b)/4)
		for i := range want {
			want[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	start := time.Now()
	s, err := voice.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer s.Close()
	buf := make([]float32, 8192)
	var n int64
	var sig, noise, ab, aa, worst float64
	for {
		k, err := s.Read(buf)
		if want != nil {
			for i, x := range buf[:k] {
				if j := n + int64(i); j < int64(len(want)) {
					y := float64(want[j])
					d := float64(x) - y
					sig += y * y
					noise += d * d
					ab += float64(x) * y
					aa += float64(x) * float64(x)
					worst = max(worst, math.Abs(d))
				}
			}
		}
		n += int64(k)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	in := s.Info()
	fmt.Printf("%.3f s to decode %.1f s of %s audio\n", time.Since(start).Seconds(), float64(n)/float64(in.Channels*in.SampleRate), in.Format)
	if want != nil {
		fmt.Printf("%s: %d samples, reference %d; over the common length SNR %.1f dB, correlation %.9f, largest difference %.2g\n",
			in.Format, n, len(want), dsp.DB(math.Sqrt(sig/noise)), ab/math.Sqrt(aa*sig), worst)
	}
	return nil
}

// convert runs helix's whole convert pipeline (voice.Convert, as
// `helix voice convert` does) into a buffered file, optionally under the CPU
// profiler, so that a profile shows the pipeline without the CLI around it.
func convert(args []string) error {
	fs := flag.NewFlagSet("convert", flag.ExitOnError)
	prof := fs.String("cpuprofile", "", "write a CPU profile to this file")
	rounds := fs.Int("rounds", 1, "convert this many times (a longer profile)")
	_ = fs.Parse(args)
	if fs.NArg() != 2 {
		return errors.New("usage: resample convert [-cpuprofile F] [-rounds N] IN OUT.wav")
	}
	stop, err := profile(*prof)
	if err != nil {
		return err
	}
	defer stop()
	for range *rounds {
		out, err := os.Create(fs.Arg(1))
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(out, 256<<10)
		if _, err := w.Write(voice.WAVHeader(0)); err != nil {
			return err
		}
		res, err := voice.Convert(func() (voice.Source, error) { return voice.Open(fs.Arg(0)) }, voice.ProcessOptions{HighPass: true}, w)
		if err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if _, err := out.WriteAt(voice.WAVHeader(res.Samples), 0); err != nil {
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
	return nil
}

type resampler struct {
	name string
	run  func(rate int, x []float32) ([]float32, error)
}

func quality(args []string) error {
	fs := flag.NewFlagSet("quality", flag.ExitOnError)
	dir := fs.String("dir", os.TempDir(), "work directory")
	_ = fs.Parse(args)
	rs := []resampler{
		{"helix", func(rate int, x []float32) ([]float32, error) {
			r, err := dsp.NewResampler(rate, 16000, dsp.DefaultSpec)
			if err != nil {
				return nil, err
			}
			return r.Flush(r.Process(x, nil)), nil
		}},
		{"sox rate -h", soxRun(*dir, "-h")},
		{"sox rate -v", soxRun(*dir, "-v")},
	}
	fmt.Println("ripple: 50 Hz-7.2 kHz; bandwidth: the -0.1 dB and -3 dB (sox's definition) frequencies;")
	fmt.Println("rejection: worst tone from 8 kHz to the input Nyquist; SNR: 1 kHz tone; float32 in and out")
	fmt.Printf("%-7s %-12s %10s %10s %10s %12s %10s\n", "input", "resampler", "ripple dB", "-0.1dB Hz", "-3dB Hz", "rejection dB", "SNR dB")
	for _, rate := range []int{44100, 48000} {
		var base [5]float64
		for i, r := range rs {
			m, err := measure(rate, r)
			if err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
			rej := fmt.Sprintf("%.1f", m[3])
			if math.IsInf(m[3], 1) {
				rej = "all zero"
			}
			fmt.Printf("%-7d %-12s %10.5f %10.0f %10.0f %12s %10.1f\n", rate, r.name, m[0], m[1], m[2], rej, m[4])
			if i == 0 {
				base = m
			} else {
				fmt.Printf("%-7s %-12s %10s %10.3f %10.3f %12.3f %10.3f\n", "", "  helix/"+r.name[4:], "", base[1]/m[1], base[2]/m[2], base[3]/m[3], base[4]/m[4])
			}
		}
	}
	return nil
}

func tone(rate int, f, amp float64, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(amp * math.Sin(2*math.Pi*f*float64(i)/float64(rate)))
	}
	return x
}

// measure: passband ripple (50 Hz–7.2 kHz), the -0.1 dB and -3 dB frequencies,
// the worst stopband rejection (tones from 8 kHz to the input's Nyquist), 1 kHz SNR.
func measure(rate int, r resampler) ([5]float64, error) {
	var m [5]float64
	n := rate / 2
	gain := func(f float64) (float64, error) {
		y, err := r.run(rate, tone(rate, f, 0.5, n))
		if err != nil {
			return 0, err
		}
		a, _ := dsp.ToneFit(y, 16000, f)
		return dsp.DB(a / 0.5), nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for f := 50.0; f <= 7200; f += 250 {
		g, err := gain(f)
		if err != nil {
			return m, err
		}
		lo, hi = min(lo, g), max(hi, g)
	}
	m[0] = hi - lo
	for f := 7000.0; f < 8000; f += 10 {
		g, err := gain(f)
		if err != nil {
			return m, err
		}
		if g < -0.1 && m[1] == 0 {
			m[1] = f
		}
		if g < -3 {
			m[2] = f
			break
		}
	}
	worst := math.Inf(-1)
	for _, f := range []float64{8000, 8050, 8500, 9000, 10000, 12000, 15000, 18000, float64(rate)/2 - 100} {
		y, err := r.run(rate, tone(rate, f, 0.5, n))
		if err != nil {
			return m, err
		}
		worst = max(worst, dsp.DB(dsp.RMS(y)/(0.5/math.Sqrt2)))
	}
	m[3] = -worst
	y, err := r.run(rate, tone(rate, 1000, 0.5, n))
	if err != nil {
		return m, err
	}
	a, resid := dsp.ToneFit(y, 16000, 1000)
	m[4] = dsp.DB(a / math.Sqrt2 / resid)
	return m, nil
}

// soxRun resamples through sox with float32 files, so quantisation does not hide the filter.
func soxRun(dir, quality string) func(int, []float32) ([]float32, error) {
	return func(rate int, x []float32) ([]float32, error) {
		in, out := filepath.Join(dir, "in.f32"), filepath.Join(dir, "out.f32")
		b := make([]byte, 4*len(x))
		for i, v := range x {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		if err := os.WriteFile(in, b, 0o644); err != nil {
			return nil, err
		}
		cmd := exec.Command("sox", "-t", "f32", "-r", fmt.Sprint(rate), "-c", "1", in, "-t", "f32", out, "rate", quality, "16000")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("sox: %v: %s", err, msg)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			return nil, err
		}
		y := make([]float32, len(b)/4)
		for i := range y {
			y[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return y, nil
	}
}

// profile starts a CPU profile written to path ("": none); stop ends it.
func profile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
