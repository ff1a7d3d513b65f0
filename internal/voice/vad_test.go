package voice

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/helixhq/helix/internal/voice/voicetest"
)

// vadTimeline is the recording: 10 × (2 s of espeak-ng speech, 3 s
// of silence or of sox white noise 10 dB below the speech).
func vadTimeline(t *testing.T) (string, *voicetest.Timeline) {
	t.Helper()
	if tool := voicetest.Missing(); tool != "" {
		t.Skipf("SKIPPED: %s is not on PATH (scripts/test-deps.sh installs it)", tool)
	}
	dir := t.TempDir()
	tl, err := voicetest.Alternating(dir, 10, 2, 3, "white", -10)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "timeline.wav")
	if err := voicetest.WriteWAV(path, tl.Samples); err != nil {
		t.Fatal(err)
	}
	return path, tl
}

// TestVADKeepsSpeechDropsTheRest: ≥ 98 % of the speech frames kept, ≤ 10 %
// of the others, the audio sent at most half the recording.
func TestVADKeepsSpeechDropsTheRest(t *testing.T) {
	path, tl := vadTimeline(t)
	res, err := Convert(func() (Source, error) { return Open(path) }, ProcessOptions{HighPass: true, VAD: true}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var ranges [][2]int64
	for _, s := range res.Segments {
		ranges = append(ranges, [2]int64{s.In, s.In + s.N})
	}
	speech, other := tl.Kept(ranges)
	total := float64(len(tl.Samples))
	t.Logf("speech frames kept %.1f %%, non-speech kept %.1f %%, sent %.1f %% (%.2f s of %.2f s), %d stretches",
		100*speech, 100*other, 100*float64(res.Samples)/total, *res.Speech, total/TargetRate, len(res.Segments))
	if speech < 0.98 || other > 0.10 || float64(res.Samples) > 0.5*total {
		t.Errorf("speech kept %.3f (want ≥ 0.98), non-speech kept %.3f (want ≤ 0.10), sent %.3f of the recording (want ≤ 0.5)",
			speech, other, float64(res.Samples)/total)
	}
	if *res.Speech+*res.Dropped < total/TargetRate-0.001 || *res.Speech != float64(res.Samples)/TargetRate {
		t.Errorf("speech_seconds %.3f + dropped_seconds %.3f, recording %.3f s", *res.Speech, *res.Dropped, total/TargetRate)
	}
	// a time in the kept audio maps into the stretch it came from; the end
	// of a stretch stays its end
	for _, s := range res.Segments {
		at := float64(s.Out+s.N) / TargetRate
		if got, want := res.OriginalEnd(at), float64(s.In+s.N)/TargetRate; got != want {
			t.Errorf("OriginalEnd(%.4f) = %.4f, want %.4f", at, got, want)
		}
		mid := float64(s.Out+s.N/2) / TargetRate
		if got, want := res.OriginalTime(mid), float64(s.In+s.N/2)/TargetRate; got != want {
			t.Errorf("OriginalTime(%.4f) = %.4f, want %.4f", mid, got, want)
		}
	}
}

// TestVADOffKeepsEverything: without --vad nothing is dropped or mapped.
func TestVADOffKeepsEverything(t *testing.T) {
	path, tl := vadTimeline(t)
	res, err := Convert(func() (Source, error) { return Open(path) }, ProcessOptions{HighPass: true}, io.Discard)
	if err != nil || res.Samples != int64(len(tl.Samples)) || res.Segments != nil || res.Speech != nil {
		t.Errorf("%v: %d samples of %d, segments %v", err, res.Samples, len(tl.Samples), res.Segments)
	}
}
