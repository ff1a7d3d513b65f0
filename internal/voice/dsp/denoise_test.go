package dsp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDenoiserPassesCleanSignal: with a noise profile far below the signal
// the denoiser is transparent and aligned: output = input, sample for sample,
// whatever the block sizes.
func TestDenoiserPassesCleanSignal(t *testing.T) {
	x := make([]float32, 16000+123)
	for i := range x {
		x[i] = float32(0.5 * math.Sin(2*math.Pi*440*float64(i)/16000))
	}
	psd := make([]float64, DenoiseFFT/2+1)
	for k := range psd {
		psd[k] = 1e-12
	}
	d := NewDenoiser(psd, nil)
	var out []float32
	for i := 0; i < len(x); i += 1000 {
		out = d.Process(x[i:min(i+1000, len(x))], out)
	}
	out = d.Flush(out)
	if len(out) != len(x) {
		t.Fatalf("%d samples out of %d", len(out), len(x))
	}
	var worst float64
	for i := range x {
		worst = max(worst, math.Abs(float64(out[i]-x[i])))
	}
	if worst > 1e-3 {
		t.Errorf("largest difference %g", worst)
	}
}

// TestDenoiserLowersNoise: white noise alone, its profile known, comes out
// at least 15 dB lower.
func TestDenoiserLowersNoise(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 5*16000)
	for i := range x {
		x[i] = float32(0.05 * r.NormFloat64())
	}
	all := func(int64) bool { return true }
	p := NewNoiseProfile(all)
	p.Write(x)
	d := NewDenoiser(p.PSD(), nil)
	out := d.Flush(d.Process(x, nil))
	in, o := RMS(x[16000:]), RMS(out[16000:])
	if DB(in/o) < 15 {
		t.Errorf("noise lowered by %.1f dB", DB(in/o))
	}
}
