// Package voicetest makes real test audio with a known timeline: speech
// spoken by espeak-ng, noise synthesised by sox, mixed at chosen levels. The
// VAD and denoise tests and benchmarks (scripts/bench/vad.sh, denoise.sh) use it.
package voicetest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// Rate of everything here: 16 kHz mono.
const Rate = 16000

// Sentences are spoken one per speech stretch (each longer than 2 s at 165 words a minute).
var Sentences = []string{
	"I finally booked the flight to Lisbon for the second week of May",
	"Remember to call the dentist about the appointment next Thursday morning",
	"The garden needs watering every evening while the weather stays this hot",
	"My sister said the new bakery on the corner sells wonderful sourdough bread",
	"Write down the name of the book that Maria recommended at dinner yesterday",
	"The meeting with the landlord moved to Friday afternoon at half past three",
	"I should start running again before the half marathon in the autumn",
	"Buy oat milk, coffee beans and a birthday card for grandmother tomorrow",
	"The train was late again so I missed the first part of the lecture",
	"Ask the doctor whether the new medicine can be taken with breakfast",
}

// Missing names the first tool of espeak-ng and sox that is not on PATH, or "".
func Missing() string {
	for _, tool := range []string{"espeak-ng", "sox"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool
		}
	}
	return ""
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", name, err, out)
	}
	return nil
}

// Speech speaks text with espeak-ng (voice, e.g. "en-us") and returns it at
// 16 kHz with its leading and trailing silence trimmed (sox).
func Speech(dir, voice, text string) ([]float32, error) {
	raw, wav := filepath.Join(dir, "espeak.wav"), filepath.Join(dir, "speech.wav")
	if err := run("espeak-ng", "-v", voice, "-s", "165", "-w", raw, text); err != nil {
		return nil, err
	}
	if err := run("sox", raw, "-r", strconv.Itoa(Rate), "-b", "16", wav, "rate", "-v",
		"silence", "1", "0.01", "0.1%", "reverse", "silence", "1", "0.01", "0.1%", "reverse"); err != nil {
		return nil, err
	}
	return ReadWAV(wav)
}

// Noise is seconds of sox-made noise: "white", "pink", "brown", at unit RMS.
// "babble" is six espeak-ng talkers at once (different voices and
// sentences), the noise of a room of people talking.
func Noise(dir, kind string, seconds float64, seed int) ([]float32, error) {
	n := int(seconds * Rate)
	var x []float32
	if kind == "babble" {
		x = make([]float32, n)
		voices := []string{"en-us", "en-gb", "en-us+f3", "en-gb+m3", "en-us+f5", "en-gb-scotland"}
		for v, voice := range voices {
			for at := (v * 3301) % Rate; at < n; {
				s, err := Speech(dir, voice, Sentences[(seed+v+at/Rate)%len(Sentences)])
				if err != nil {
					return nil, err
				}
				for i := 0; i < len(s) && at+i < n; i++ {
					x[at+i] += s[i]
				}
				at += len(s) + Rate/10
			}
		}
	} else {
		p := filepath.Join(dir, "noise.wav")
		if err := run("sox", "-R", "-n", "-r", strconv.Itoa(Rate), "-b", "16", "-c", "1", p, "synth", strconv.FormatFloat(seconds, 'f', 3, 64),
			kind+"noise", "vol", "0.25"); err != nil {
			return nil, err
		}
		var err error
		if x, err = ReadWAV(p); err != nil {
			return nil, err
		}
	}
	r := RMS(x)
	if r == 0 {
		return nil, errors.New("silent noise")
	}
	for i := range x {
		x[i] /= float32(r)
	}
	return x[:min(n, len(x))], nil
}

// RMS is the root mean square of x.
func RMS(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(max(1, len(x))))
}

// Timeline is a recording made of known stretches.
type Timeline struct {
	Samples []float32
	Speech  []bool // per sample: inside a speech stretch
}

// Alternating builds n × (speechSec of speech, gapSec of silence or noise):
// the gaps alternate between digital silence and noise of the given kind at
// noiseDB relative to the speech's RMS (e.g. -10). Each speech stretch is a
// sentence cut to speechSec.
func Alternating(dir string, n int, speechSec, gapSec float64, noise string, noiseDB float64) (*Timeline, error) {
	tl := &Timeline{}
	ns, ng := int(speechSec*Rate), int(gapSec*Rate)
	nz, err := Noise(dir, noise, float64(n)*gapSec, 7)
	if err != nil {
		return nil, err
	}
	for k := range n {
		s, err := Speech(dir, "en-us", Sentences[k%len(Sentences)])
		if err != nil {
			return nil, err
		}
		if len(s) < ns {
			return nil, fmt.Errorf("sentence %d is %.2f s, shorter than %.2f s", k, float64(len(s))/Rate, speechSec)
		}
		s = s[:ns]
		tl.Samples = append(tl.Samples, s...)
		for range ns {
			tl.Speech = append(tl.Speech, true)
		}
		gain := float32(RMS(s) * math.Pow(10, noiseDB/20))
		for i := range ng {
			v := float32(0)
			if k%2 == 1 {
				v = nz[k*ng+i] * gain
			}
			tl.Samples = append(tl.Samples, v)
			tl.Speech = append(tl.Speech, false)
		}
	}
	return tl, nil
}

// ReadWAV reads a 16-bit mono PCM WAV file (as sox writes it).
func ReadWAV(path string) ([]float32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return nil, fmt.Errorf("%s: not a WAV file", path)
	}
	for off := 12; off+8 <= len(b); {
		id, n := string(b[off:off+4]), int(binary.LittleEndian.Uint32(b[off+4:]))
		body := off + 8
		if id == "data" {
			n = min(n, len(b)-body)
			x := make([]float32, n/2)
			for i := range x {
				x[i] = float32(int16(binary.LittleEndian.Uint16(b[body+2*i:]))) / 32768
			}
			return x, nil
		}
		off = body + n + n&1
	}
	return nil, fmt.Errorf("%s: no data chunk", path)
}

// WriteWAV writes x as a 16 kHz mono 16-bit WAV file (clipped to full scale).
func WriteWAV(path string, x []float32) error {
	b := make([]byte, 44+2*len(x))
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+2*len(x)))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], Rate)
	binary.LittleEndian.PutUint32(b[28:], 2*Rate)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(2*len(x)))
	for i, v := range x {
		s := math.Round(float64(v) * 32767)
		binary.LittleEndian.PutUint16(b[44+2*i:], uint16(int16(max(-32768, min(32767, s)))))
	}
	return os.WriteFile(path, b, 0o644)
}

// Kept scores a VAD's kept ranges ([start, end) samples) against the
// timeline by 20 ms frames (a frame counts by its middle sample): the
// fractions of speech frames and of non-speech frames kept.
func (tl *Timeline) Kept(ranges [][2]int64) (speech, nonSpeech float64) {
	const frame = Rate / 50
	keep := make([]bool, len(tl.Samples))
	for _, r := range ranges {
		for i := max(0, r[0]); i < min(r[1], int64(len(keep))); i++ {
			keep[i] = true
		}
	}
	var sp, spKept, ns, nsKept int
	for f := 0; f+frame <= len(tl.Samples); f += frame {
		mid := f + frame/2
		if tl.Speech[mid] {
			sp++
			if keep[mid] {
				spKept++
			}
		} else {
			ns++
			if keep[mid] {
				nsKept++
			}
		}
	}
	return float64(spKept) / float64(max(1, sp)), float64(nsKept) / float64(max(1, ns))
}

// Spoken is n sentences spoken one after another with pause
// seconds of silence after each, and the mask of speech.
func Spoken(dir string, n int, pause float64) (*Timeline, error) {
	tl := &Timeline{}
	for k := range n {
		s, err := Speech(dir, "en-us", Sentences[k%len(Sentences)])
		if err != nil {
			return nil, err
		}
		tl.Samples = append(tl.Samples, s...)
		for range s {
			tl.Speech = append(tl.Speech, true)
		}
		for range int(pause * Rate) {
			tl.Samples = append(tl.Samples, 0)
			tl.Speech = append(tl.Speech, false)
		}
	}
	return tl, nil
}

// Mix returns clean plus noise (repeated as needed) scaled so that the
// speech (the samples speech marks) is snrDB above the noise.
func Mix(clean []float32, speech []bool, noise []float32, snrDB float64) []float32 {
	var s float64
	var n int
	for i, v := range clean {
		if speech[i] {
			s += float64(v) * float64(v)
			n++
		}
	}
	level := math.Sqrt(s/float64(max(1, n))) * math.Pow(10, -snrDB/20) / RMS(noise)
	out := make([]float32, len(clean))
	for i, v := range clean {
		out[i] = v + float32(level)*noise[i%len(noise)]
	}
	return out
}

// SegSNR is the segmental SNR of y against the clean reference x in dB: the
// mean over 20 ms frames of 10·log10(Σx² / Σ(x−y)²), each clamped to
// [−10, 35] dB, over the frames of speech (clean energy within 40 dB of the
// loudest frame), as speech-enhancement papers report it.
func SegSNR(x, y []float32) float64 {
	const frame = Rate / 50
	n := min(len(x), len(y)) / frame
	energy := make([]float64, n)
	var top float64
	for f := range n {
		for _, v := range x[f*frame : (f+1)*frame] {
			energy[f] += float64(v) * float64(v)
		}
		top = max(top, energy[f])
	}
	var sum float64
	var used int
	for f := range n {
		if energy[f] < top*1e-4 || energy[f] == 0 {
			continue
		}
		var e float64
		for i := f * frame; i < (f+1)*frame; i++ {
			d := float64(x[i]) - float64(y[i])
			e += d * d
		}
		snr := 35.0
		if e > 0 {
			snr = max(-10, min(35, 10*math.Log10(energy[f]/e)))
		}
		sum += snr
		used++
	}
	return sum / float64(max(1, used))
}
