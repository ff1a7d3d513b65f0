package dsp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// resampleAll runs x through a fresh resampler in uneven blocks, as a stream would arrive.
func resampleAll(t testing.TB, in, out int, x []float32) []float32 {
	t.Helper()
	r, err := NewResampler(in, out, DefaultSpec)
	if err != nil {
		t.Fatal(err)
	}
	var y []float32
	for i := 0; i < len(x); {
		n := min(len(x)-i, 1000+i%3001)
		y = r.Process(x[i:i+n], y)
		i += n
	}
	return r.Flush(y)
}

func tone(rate int, f, amp float64, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(amp * math.Sin(2*math.Pi*f*float64(i)/float64(rate)))
	}
	return x
}

// bothDesigns runs f with the direct polyphase design and with the FFT
// low-pass design (which machines without the vector kernels use).
func bothDesigns(t *testing.T, f func(t *testing.T)) {
	saved := directStage
	defer func() { directStage = saved }()
	for _, direct := range []bool{true, false} {
		directStage = direct
		t.Run(map[bool]string{true: "direct", false: "fft"}[direct], f)
	}
}

func TestResamplerQuality(t *testing.T) { bothDesigns(t, testResamplerQuality) }

func testResamplerQuality(t *testing.T) {
	for _, in := range []int{44100, 48000, 32000, 96000} {
		n := in / 4
		// passband ripple from 50 Hz to 90% of 8 kHz; -3 dB at 95% or above (sox's bandwidth)
		lo, hi := math.Inf(1), math.Inf(-1)
		for f := 50.0; f <= 7200; f += 750 {
			a, _ := ToneFit(resampleAll(t, in, 16000, tone(in, f, 0.5, n)), 16000, f)
			lo, hi = min(lo, DB(a/0.5)), max(hi, DB(a/0.5))
		}
		a, _ := ToneFit(resampleAll(t, in, 16000, tone(in, 7600, 0.5, n)), 16000, 7600)
		// stopband: tones from the Nyquist frequency up must vanish (anything left is aliasing)
		worst := math.Inf(-1)
		for _, f := range []float64{8000, 8100, 9000, 12000, 19999} {
			if f >= float64(in)/2 {
				continue
			}
			worst = max(worst, DB(RMS(resampleAll(t, in, 16000, tone(in, f, 0.5, n)))/(0.5/math.Sqrt2)))
		}
		amp, resid := ToneFit(resampleAll(t, in, 16000, tone(in, 1000, 0.5, n)), 16000, 1000)
		snr := DB(amp / math.Sqrt2 / resid)
		t.Logf("%d→16000: ripple %.4f dB, gain at 7600 Hz %.4f dB, worst stopband %.1f dB, 1 kHz SNR %.1f dB", in, hi-lo, DB(a/0.5), worst, snr)
		if DB(a/0.5) < -3 {
			t.Errorf("%d→16000: %.2f dB at 7600 Hz: bandwidth under 95%%", in, DB(a/0.5))
		}
		if hi-lo > 0.02 {
			t.Errorf("%d→16000: passband ripple %.4f dB, want ≤ 0.02", in, hi-lo)
		}
		if worst > -120 {
			t.Errorf("%d→16000: stopband rejection %.1f dB, want ≤ -120", in, worst)
		}
		if snr < 110 {
			t.Errorf("%d→16000: 1 kHz SNR %.1f dB, want ≥ 110", in, snr)
		}
	}
}

// TestResamplerHighRates checks the rejection of tones just under the input's
// Nyquist frequency at high rates, where a first half-band stage folds them to
// a few hundred hertz and only its own stopband stands in the way.
func TestResamplerHighRates(t *testing.T) { bothDesigns(t, testResamplerHighRates) }

func testResamplerHighRates(t *testing.T) {
	for _, in := range []int{88200, 96000, 192000} {
		for _, f := range []float64{float64(in)/2 - 100, float64(in)/2 - 2000, 12000} {
			if db := DB(RMS(resampleAll(t, in, 16000, tone(in, f, 0.5, in/4))) / (0.5 / math.Sqrt2)); db > -125 {
				t.Errorf("%d→16000: %.0f Hz tone at %.1f dB, want ≤ -125", in, f, db)
			}
		}
	}
}

func TestResamplerLengthAndRatio(t *testing.T) {
	for _, c := range []struct{ in, out, l, m int }{{44100, 16000, 160, 441}, {48000, 16000, 1, 3}, {8000, 16000, 2, 1}, {22050, 16000, 320, 441}} {
		r, err := NewResampler(c.in, c.out, DefaultSpec)
		if err != nil {
			t.Fatal(err)
		}
		if l, m := r.Ratio(); l != c.l || m != c.m {
			t.Errorf("%d→%d: ratio %d/%d, want %d/%d", c.in, c.out, l, m, c.l, c.m)
		}
		x := tone(c.in, 440, 0.5, c.in+17)
		y := resampleAll(t, c.in, c.out, x)
		want := int((int64(len(x))*int64(c.out) + int64(c.in)/2) / int64(c.in))
		if len(y) != want {
			t.Errorf("%d→%d: %d samples out of %d, want %d", c.in, c.out, len(y), len(x), want)
		}
		// aligned: the output tone has the same phase as the input tone
		a, resid := ToneFit(y, c.out, 440)
		if math.Abs(a-0.5) > 1e-3 || resid > 1e-4 {
			t.Errorf("%d→%d: 440 Hz tone amplitude %.5f residual %.2g (delay not compensated?)", c.in, c.out, a, resid)
		}
	}
}

// TestResamplerBuffersStayBounded feeds a long stream and checks the resampler
// keeps only a filter's length of input, whatever the length of the stream.
func TestResamplerBuffersStayBounded(t *testing.T) {
	r, err := NewResampler(44100, 16000, DefaultSpec)
	if err != nil {
		t.Fatal(err)
	}
	block := tone(44100, 440, 0.5, 4096)
	var out []float32
	for i := 0; i < 40; i++ { // 3.7 s: unbounded, the buffer would reach 160k samples
		out = r.Process(block, out[:0])
		for _, st := range r.stages {
			if p, ok := st.(*stage); ok && cap(p.buf) > 4*(p.k+len(block)) {
				t.Fatalf("after %d blocks a stage's input buffer holds %d samples (capacity %d)", i+1, len(p.buf), cap(p.buf))
			}
			if h, ok := st.(*halfBand); ok && cap(h.ev)+cap(h.od) > 4*(2*len(h.taps)+len(block)) {
				t.Fatalf("after %d blocks a half-band stage holds %d samples (capacity %d)", i+1, len(h.ev)+len(h.od), cap(h.ev)+cap(h.od))
			}
			if f, ok := st.(*fftFilter); ok && cap(f.pend) > 4*(2*f.hop+len(block)) {
				t.Fatalf("after %d blocks the FFT stage holds %d samples (capacity %d)", i+1, len(f.pend), cap(f.pend))
			}
		}
	}
}

func BenchmarkResample44100(b *testing.B) {
	x := tone(44100, 1000, 0.5, 44100*10)
	b.SetBytes(int64(len(x) * 4))
	r, _ := NewResampler(44100, 16000, DefaultSpec)
	out := make([]float32, 0, 170000)
	for b.Loop() {
		out = r.Process(x, out[:0])
	}
}

// TestResamplerBlockSizes feeds the same noise whole and in blocks of 1 to
// 1,000 samples: each output must come out the same bit for bit and the
// length must be round(n·L/M), whatever the blocks, including inputs
// shorter than one period of the polyphase stage (320 outputs at 44.1 kHz)
// or than its filter.
func TestResamplerBlockSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	sizes := []int{1, 2, 3, 5, 7, 64, 1000}
	bothDesigns(t, func(t *testing.T) {
		for _, in := range []int{44100, 48000, 22050, 32000, 96000, 8000, 11025} {
			for _, n := range []int{0, 1, 2, 31, 700, 5000} {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(rng.Float64()*2 - 1)
				}
				r, err := NewResampler(in, 16000, DefaultSpec)
				if err != nil {
					t.Fatal(err)
				}
				whole := r.Flush(r.Process(x, nil))
				r, _ = NewResampler(in, 16000, DefaultSpec)
				var parts []float32
				for i, b := 0, 0; i < n; b++ {
					k := min(n-i, sizes[b%len(sizes)])
					parts = r.Process(x[i:i+k], parts)
					i += k
				}
				parts = r.Flush(parts)
				if want := int((int64(n)*16000 + int64(in)/2) / int64(in)); len(whole) != want || len(parts) != want {
					t.Fatalf("%d Hz, %d samples: %d outputs whole, %d in blocks, want %d", in, n, len(whole), len(parts), want)
				}
				for i := range whole {
					if whole[i] != parts[i] {
						t.Fatalf("%d Hz, %d samples: output %d is %v whole, %v in blocks", in, n, i, whole[i], parts[i])
					}
				}
			}
		}
	})
}
