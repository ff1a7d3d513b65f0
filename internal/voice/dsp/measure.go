package dsp

import "math"

// Measurement helpers for the resampler's quality figures, shared by the
// tests and scripts/bench/resample. Each looks at the middle three quarters
// of a signal, away from the filters' edge effects.

// ToneFit fits a sinusoid of frequency f (Hz) to y sampled at rate by least
// squares and returns its amplitude and the RMS of what is left.
func ToneFit(y []float32, rate int, f float64) (amp, resid float64) {
	lo, hi := len(y)/8, len(y)-len(y)/8
	var ss, sc, cc, s1, c1 float64
	for i := lo; i < hi; i++ {
		w := 2 * math.Pi * f * float64(i) / float64(rate)
		s, c := math.Sin(w), math.Cos(w)
		ss, cc, sc = ss+s*s, cc+c*c, sc+s*c
		s1, c1 = s1+float64(y[i])*s, c1+float64(y[i])*c
	}
	det := ss*cc - sc*sc
	a, b := (s1*cc-c1*sc)/det, (c1*ss-s1*sc)/det
	var e float64
	for i := lo; i < hi; i++ {
		w := 2 * math.Pi * f * float64(i) / float64(rate)
		d := float64(y[i]) - a*math.Sin(w) - b*math.Cos(w)
		e += d * d
	}
	return math.Hypot(a, b), math.Sqrt(e / float64(hi-lo))
}

// RMS is the root mean square of y.
func RMS(y []float32) float64 {
	lo, hi := len(y)/8, len(y)-len(y)/8
	var e float64
	for _, v := range y[lo:hi] {
		e += float64(v) * float64(v)
	}
	return math.Sqrt(e / float64(hi-lo))
}

// DB converts an amplitude ratio to decibels.
func DB(x float64) float64 { return 20 * math.Log10(x) }
