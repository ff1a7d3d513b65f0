package voice

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/helixhq/helix/internal/voice/voicetest"
)

// TestDenoiseRaisesSegmentalSNR: espeak-ng speech with pauses, sox white
// noise 5 dB below it throughout; --denoise (the profile from the pauses the
// VAD finds) raises the segmental SNR against the clean speech by at least 5 dB.
func TestDenoiseRaisesSegmentalSNR(t *testing.T) {
	if tool := voicetest.Missing(); tool != "" {
		t.Skipf("SKIPPED: %s is not on PATH (scripts/test-deps.sh installs it)", tool)
	}
	dir := t.TempDir()
	clean, err := voicetest.Spoken(dir, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	noise, err := voicetest.Noise(dir, "white", float64(len(clean.Samples))/voicetest.Rate+1, 3)
	if err != nil {
		t.Fatal(err)
	}
	noisy := voicetest.Mix(clean.Samples, clean.Speech, noise, 5)
	path := filepath.Join(dir, "noisy.wav")
	if err := voicetest.WriteWAV(path, noisy); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := Convert(func() (Source, error) { return Open(path) }, ProcessOptions{Denoise: true}, &out)
	if err != nil {
		t.Fatal(err)
	}
	den := make([]float32, 0, len(noisy))
	for _, v := range pcm16(out.Bytes()) {
		den = append(den, float32(v))
	}
	if len(den) != len(noisy) || res.NoiseProfile == nil || *res.NoiseProfile < 1 {
		t.Fatalf("%d samples out of %d; noise profile %v s", len(den), len(noisy), res.NoiseProfile)
	}
	before, after := voicetest.SegSNR(clean.Samples, noisy), voicetest.SegSNR(clean.Samples, den)
	t.Logf("segmental SNR %.2f dB → %.2f dB (profile from %.2f s)", before, after, *res.NoiseProfile)
	if after-before < 5 {
		t.Errorf("segmental SNR %.2f dB → %.2f dB: want at least 5 dB better", before, after)
	}
}
