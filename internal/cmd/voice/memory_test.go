package voice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/embed/embedtest"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
	"github.com/helixhq/helix/internal/voice/voicetest"
)

// fakeOpenAI answers POST /v1/audio/transcriptions as OpenAI does
// (multipart in, verbose_json out) with text, after checking the request as
// the real service would. It records the duration of each upload.
func fakeOpenAI(t *testing.T, text string) (*httptest.Server, *atomic.Int32, *[]float64) {
	var n atomic.Int32
	var durs []float64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fail := func(status int, msg string) {
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","param":null,"code":null}}`, msg)
		}
		if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/transcriptions" {
			fail(http.StatusNotFound, "Invalid URL")
			return
		}
		if err := r.ParseMultipartForm(64 << 20); err != nil {
			fail(http.StatusBadRequest, "Could not parse multipart form")
			return
		}
		f, fh, err := r.FormFile("file")
		if err != nil {
			fail(http.StatusBadRequest, "Missing file")
			return
		}
		audio, _ := io.ReadAll(f)
		if fh.Header.Get("Content-Type") != "audio/wav" || len(audio) < 44 || string(audio[:4]) != "RIFF" {
			fail(http.StatusBadRequest, "Invalid file format.")
			return
		}
		if v := r.MultipartForm.Value; v["model"][0] != "whisper-1" || v["response_format"][0] != "verbose_json" {
			fail(http.StatusBadRequest, fmt.Sprintf("unexpected fields %v", v))
			return
		}
		k := n.Add(1)
		dur := float64(len(audio)-44) / 32000
		durs = append(durs, dur)
		w.Header().Set("x-request-id", fmt.Sprintf("req_%d", k))
		json.NewEncoder(w).Encode(map[string]any{
			"task": "transcribe", "language": "english", "duration": dur, "text": text,
			"segments": []map[string]any{{"id": 0, "seek": 0, "start": 0.0, "end": dur, "text": text,
				"tokens": []int{50364, 1234}, "temperature": 0.0, "avg_logprob": -0.105, "compression_ratio": 0.8, "no_speech_prob": 0.01}},
			"words": []map[string]any{{"word": " I", "start": 0.1, "end": 0.2}, {"word": " Lisbon", "start": dur - 0.5, "end": dur - 0.1}},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &n, &durs
}

type run struct {
	code           int
	stdout, stderr string
}

func helix(t *testing.T, env []string, args ...string) run {
	t.Helper()
	cmd := exec.Command(testbin.Helix(t), args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir()}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return run{code, out.String(), errb.String()}
}

// counts is the user's recordings, memories and links.
func counts(t *testing.T, pool *pgxpool.Pool, user uuid.UUID) (recs, mems, links int) {
	t.Helper()
	if err := pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM voice_recordings WHERE user_id = $1),
		(SELECT count(*) FROM memories WHERE user_id = $1), (SELECT count(*) FROM helix_voice_memories WHERE user_id = $1)`, user).
		Scan(&recs, &mems, &links); err != nil {
		t.Fatal(err)
	}
	return
}

// TestTranscriptBecomesMemory is the "must show", end to end with the
// real binary on the platform's Supabase-shaped database: a transcribed memo
// is one recording and one memory of its user; again, still one of each;
// memory search finds it (text, then hybrid after embed); synthesize
// --all-users selects the user; decay decays it; after migrate down to 0 and
// up again the memo is still not duplicated; deleting the recording deletes
// its memory.
func TestTranscriptBecomesMemory(t *testing.T) {
	t.Parallel()
	const text = " I finally booked the flight to Lisbon."
	srv, requests, _ := fakeOpenAI(t, text)
	url := pgtest.Platform(t)
	pool := pgtest.Open(t, url)
	env := []string{"DATABASE_URL=" + url, "HELIX_VOICE_OPENAI_BASE_URL=" + srv.URL + "/v1"}
	ctx := context.Background()
	if r := helix(t, env, "migrate", "up"); r.code != 0 {
		t.Fatalf("migrate up: %d %s", r.code, r.stderr)
	}
	user := uuid.New()
	memo := filepath.Join(t.TempDir(), "memo.wav")
	b, err := os.ReadFile(fixture("speech-s16-22k.wav"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(memo, b, 0o644)
	made := time.Date(2026, 9, 14, 7, 30, 0, 0, time.UTC)
	os.Chtimes(memo, made, made) // a WAV without bext or ICRD: the file's time

	transcribe := func() map[string]any {
		t.Helper()
		r := helix(t, env, "voice", "transcribe", memo, "--user-id", user.String(), "--provider", "openai", "-o", "json")
		if r.code != 0 {
			t.Fatalf("transcribe: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%v: %s", err, r.stdout)
		}
		return rep["files"].([]any)[0].(map[string]any)
	}
	f := transcribe()
	if f["status"] != "transcribed" || f["memory_id"] == nil || f["recorded_at"] != "2026-09-14T07:30:00Z" || f["recorded_at_from"] != "mtime" {
		t.Errorf("first run: %v", f)
	}
	var content, typ string
	var created time.Time
	var memID uuid.UUID
	if err := pool.QueryRow(ctx, `SELECT m.id, m.content, m.type, m.created_at FROM memories m
		JOIN helix_voice_memories l ON l.memory_id = m.id
		JOIN voice_recordings v ON v.id = l.recording_id AND v.transcript = m.content
		WHERE m.user_id = $1`, user).Scan(&memID, &content, &typ, &created); err != nil {
		t.Fatal(err)
	}
	if content != strings.TrimSpace(text) || typ != "episodic" || !created.Equal(made) || memID.String() != f["memory_id"] {
		t.Errorf("memory %s %q %s %s", memID, content, typ, created)
	}
	if r, m, l := counts(t, pool, user); r != 1 || m != 1 || l != 1 {
		t.Errorf("after one run: %d recordings, %d memories, %d links", r, m, l)
	}
	if f := transcribe(); f["status"] != "duplicate" || requests.Load() != 1 {
		t.Errorf("second run: %v after %d requests", f, requests.Load())
	}
	if r, m, l := counts(t, pool, user); r != 1 || m != 1 || l != 1 {
		t.Errorf("after two runs: %d recordings, %d memories, %d links", r, m, l)
	}

	search := func() map[string]any {
		t.Helper()
		r := helix(t, env, "memory", "search", "lisbon", "--user-id", user.String(), "-o", "json")
		var rep map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &rep); r.code != 0 || err != nil {
			t.Fatalf("memory search: exit %d %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
		}
		return rep
	}
	if rep := search(); rep["mode"] != "text" || !strings.Contains(fmt.Sprint(rep["results"]), memID.String()) {
		t.Errorf("text search does not find the memo's memory: %v", rep)
	}

	r := helix(t, env, "synthesize", "--all-users", "--dry-run", "-o", "json")
	if r.code != 0 || !strings.Contains(r.stdout, user.String()) {
		t.Errorf("synthesize --all-users does not select the user: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	emb := embedtest.Start(t, &embedtest.Server{})
	eenv := append(env, "HELIX_EMBED_BASE_URL="+emb.URL)
	if r := helix(t, eenv, "embed", "--user-id", user.String()); r.code != 0 {
		t.Fatalf("embed: %d %s", r.code, r.stderr)
	}
	var embedded bool
	pool.QueryRow(ctx, `SELECT embedding IS NOT NULL FROM memories WHERE id = $1`, memID).Scan(&embedded)
	r = helix(t, eenv, "memory", "search", "lisbon", "--user-id", user.String(), "-o", "json")
	if !embedded || r.code != 0 || !strings.Contains(r.stdout, `"mode":"hybrid"`) || !strings.Contains(r.stdout, memID.String()) {
		t.Errorf("after embed (embedded %v): exit %d\n%s\n%s", embedded, r.code, r.stdout, r.stderr)
	}

	if r := helix(t, env, "decay", "run"); r.code != 0 {
		t.Fatalf("decay run: %d %s", r.code, r.stderr)
	}
	var decayed bool
	if err := pool.QueryRow(ctx, `SELECT decayed_at IS NOT NULL FROM memories WHERE id = $1`, memID).Scan(&decayed); err != nil || !decayed {
		t.Errorf("decay run did not decay the memo's memory (%v)", err)
	}

	// helix uninstalled and installed again: its columns and link table are
	// gone, the platform's rows stay; the memo is still not sent again
	if r := helix(t, env, "migrate", "down", "--all-migrations", "--yes"); r.code != 0 {
		t.Fatalf("migrate down: %d %s", r.code, r.stderr)
	}
	if r := helix(t, env, "migrate", "up"); r.code != 0 {
		t.Fatalf("migrate up: %d %s", r.code, r.stderr)
	}
	if f := transcribe(); f["status"] != "duplicate" || requests.Load() != 1 {
		t.Errorf("after down and up: %v after %d requests", f, requests.Load())
	}
	if r, m, l := counts(t, pool, user); r != 1 || m != 1 || l != 1 {
		t.Errorf("after down and up: %d recordings, %d memories, %d links (the link is restored)", r, m, l)
	}

	// the app deletes the memo: its memory goes with it
	if _, err := pool.Exec(ctx, `DELETE FROM voice_recordings WHERE user_id = $1`, user); err != nil {
		t.Fatal(err)
	}
	if r, m, l := counts(t, pool, user); r != 0 || m != 0 || l != 0 {
		t.Errorf("after deleting the recording: %d recordings, %d memories, %d links", r, m, l)
	}
}

// TestVoiceSettings: voice.vad, voice.denoise and voice.memory fill the
// flags nobody gave; a flag beats them; a bad value is a usage error.
func TestVoiceSettings(t *testing.T) {
	t.Setenv("HELIX_VOICE_VAD", "false")
	t.Setenv("HELIX_VOICE_DENOISE", "true")
	t.Setenv("HELIX_VOICE_MEMORY", "false")
	t.Setenv("HELIX_VOICE_MEMORY_TYPE", "semantic")
	user := uuid.NewString()
	f, _ := cmdtest.Factory(t, false)
	o, err := cmdtest.Parse(func(runF func(*TranscribeOptions) error) *cobra.Command { return NewCmdTranscribe(f, runF) }, "a.wav --user-id "+user)
	if err != nil || o.Process.VAD || !o.Process.Denoise || !o.NoMemory || o.MemoryType != "semantic" {
		t.Errorf("from the settings: %v %+v", err, o)
	}
	o, err = cmdtest.Parse(func(runF func(*TranscribeOptions) error) *cobra.Command { return NewCmdTranscribe(f, runF) }, "a.wav --vad --denoise=false --no-memory=false --user-id "+user)
	if err != nil || !o.Process.VAD || o.Process.Denoise || o.NoMemory {
		t.Errorf("flags over settings: %v %+v", err, o)
	}
	t.Setenv("HELIX_VOICE_VAD", "true")
	f, _ = cmdtest.Factory(t, false)
	c, err := cmdtest.Parse(func(runF func(*ConvertOptions) error) *cobra.Command { return NewCmdConvert(f, runF) }, "a.wav b.wav")
	if err != nil || !c.Process.VAD {
		t.Errorf("convert with voice.vad true: %v %+v", err, c)
	}
	t.Setenv("HELIX_VOICE_VAD", "sometimes")
	f, _ = cmdtest.Factory(t, false)
	_, err = cmdtest.Parse(func(runF func(*ConvertOptions) error) *cobra.Command { return NewCmdConvert(f, runF) }, "a.wav b.wav")
	cmdtest.WantFlagError(t, err, "invalid value for voice.vad")
}

// TestTranscribeSendsSpeechOnly: with the VAD (transcribe's default) the
// issue's recording, 10 × (2 s espeak-ng speech, 3 s silence or sox noise
// 10 dB down), reaches the provider as at most half its length; the word
// times stored are the original recording's; the report says how much was kept.
func TestTranscribeSendsSpeechOnly(t *testing.T) {
	if tool := voicetest.Missing(); tool != "" {
		t.Skipf("SKIPPED: %s is not on PATH (scripts/test-deps.sh installs it)", tool)
	}
	dir := t.TempDir()
	tl, err := voicetest.Alternating(dir, 10, 2, 3, "white", -10)
	if err != nil {
		t.Fatal(err)
	}
	memo := filepath.Join(dir, "memo.wav")
	if err := voicetest.WriteWAV(memo, tl.Samples); err != nil {
		t.Fatal(err)
	}
	srv, _, durs := fakeOpenAI(t, "Ten things to remember.")
	t.Setenv("HELIX_VOICE_OPENAI_BASE_URL", srv.URL+"/v1")
	pool := pgtest.New(t)
	f, s := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	user := uuid.New()
	opts := &TranscribeOptions{IO: f.IOStreams, JSON: true, Config: f.Config, DB: f.DB, HTTPClient: f.HTTPClient, Logger: f.Logger, Now: f.Now,
		Files: []string{memo}, UserID: cmdutil.UserID{ID: user, Given: true}, Provider: "openai", Concurrency: 1, MemoryType: "episodic",
		Process: processFlags{HighPass: true, Normalize: "none", VAD: true}}
	if err := transcribeRun(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s", err, s.Err)
	}
	var rep TranscribeReport
	if err := json.Unmarshal(s.Out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	fr := rep.Files[0]
	if len(*durs) != 1 || (*durs)[0] > 25 || fr.Speech == nil || fr.Dropped == nil || *fr.Speech != (*durs)[0] || *fr.Speech+*fr.Dropped < 49.99 {
		t.Fatalf("sent %v s of 50 s; report speech %v dropped %v", *durs, fr.Speech, fr.Dropped)
	}
	// the fake's last word ends 0.1 s before the end of what it heard: in
	// the original, inside the last speech stretch (45–47 s), not at 24 s
	var words []struct{ Start, End float64 }
	if err := pool.QueryRow(context.Background(), `SELECT words FROM voice_recordings WHERE user_id = $1`, user).Scan(&words); err != nil {
		t.Fatal(err)
	}
	if end := words[1].End; end < 45 || end > 47.3 {
		t.Errorf("last word ends at %.2f s of the original, want within the last speech (45–47 s): %v", end, words)
	}
	if start := words[0].Start; start > 0.3 {
		t.Errorf("first word starts at %.2f s", start)
	}
}

// TestConvertVADReport: convert --vad reports the speech kept and the rest
// dropped, and writes only the speech.
func TestConvertVADReport(t *testing.T) {
	f, s := cmdtest.Factory(t, false)
	out := filepath.Join(t.TempDir(), "out.wav")
	opts := &ConvertOptions{IO: f.IOStreams, JSON: true, In: fixture("speech-s16-44k-stereo.wav"), Out: out, Process: processFlags{HighPass: true, Normalize: "none", VAD: true, Denoise: true}}
	if err := convertRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Speech, Dropped, Out, Profile float64
	}
	var m map[string]float64
	json.Unmarshal(s.Out.Bytes(), &m)
	r.Speech, r.Dropped, r.Out, r.Profile = m["speech_seconds"], m["dropped_seconds"], m["out_duration_seconds"], m["noise_profile_seconds"]
	if r.Speech <= 2 || r.Speech != r.Out || r.Speech+r.Dropped < 3.25 || r.Speech+r.Dropped > 3.26 {
		t.Errorf("report %s", s.Out)
	}
	b, err := os.ReadFile(out)
	if err != nil || len(b) != 44+2*int(r.Speech*16000+0.5) {
		t.Errorf("output %d bytes (%v), want the %.3f s of speech", len(b), err, r.Speech)
	}
}
