package voice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/spf13/cobra"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/voice"
)

const fixtures = "../../../testdata/voice"

func fixture(name string) string { return filepath.Join(fixtures, name) }

func TestConvertArgs(t *testing.T) {
	for _, c := range []struct {
		argv    string
		wantErr string
		check   func(*ConvertOptions) bool
	}{
		{"a.webm b.wav", "", func(o *ConvertOptions) bool {
			return o.In == "a.webm" && o.Out == "b.wav" && o.Process.HighPass && o.Process.Normalize == "none" && !o.Process.TrimSilence
		}},
		{"a.webm b.wav --normalize loudness --trim-silence --highpass=false", "", func(o *ConvertOptions) bool {
			return o.Process.Normalize == "loudness" && o.Process.TrimSilence && !o.Process.HighPass
		}},
		{"a.webm b.wav --normalize loud", `invalid --normalize "loud": use none, peak or loudness`, nil},
		{"a.webm", "accepts 2 arg(s), received 1", nil},
	} {
		f, _ := cmdtest.Factory(t, false)
		got, err := cmdtest.Parse(func(runF func(*ConvertOptions) error) *cobra.Command { return NewCmdConvert(f, runF) }, c.argv)
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%q: error %v, want %q", c.argv, err, c.wantErr)
			}
			continue
		}
		if err != nil || !c.check(got) {
			t.Errorf("%q: %v %+v", c.argv, err, got)
		}
	}
}

func TestConvertRun(t *testing.T) {
	for _, tty := range []bool{false, true} {
		f, s := cmdtest.Factory(t, tty)
		out := filepath.Join(t.TempDir(), "out.wav")
		in := fixture("speech-s16-44k-stereo.wav")
		opts := &ConvertOptions{IO: f.IOStreams, In: in, Out: out, Process: processFlags{HighPass: true, Normalize: "none"}}
		if err := convertRun(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("%s: wav, 44100 Hz, 2 ch, 3.25 s → %s: 16000 Hz mono 16-bit, 3.25 s\n", in, out)
		if s.Out.String() != want || s.Err.String() != "" {
			t.Errorf("tty %v: stdout %q, stderr %q; want %q", tty, s.Out, s.Err, want)
		}
		b, err := os.ReadFile(out)
		if err != nil || string(b[:4]) != "RIFF" || len(b) != 44+2*52069 {
			t.Errorf("output file: %v, %d bytes", err, len(b))
		}
	}
}

// TestConvertPipesAndOverwrite: "-" reads standard input and writes standard
// output (the report then goes to stderr, as one JSON line with -o json), and
// an existing output file is kept unless --force.
func TestConvertPipesAndOverwrite(t *testing.T) {
	f, s := cmdtest.Factory(t, false)
	b, err := os.ReadFile(fixture("speech.flac"))
	if err != nil {
		t.Fatal(err)
	}
	s.In.Write(b)
	opts := &ConvertOptions{IO: f.IOStreams, JSON: true, In: "-", Out: "-", Process: processFlags{Normalize: "none"}}
	if err := convertRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var rep ConvertResult
	if out := s.Out.Bytes(); string(out[:4]) != "RIFF" || len(out) != 44+2*52069 {
		t.Errorf("stdout is not the 16 kHz WAV: %d bytes", len(out))
	}
	if err := json.Unmarshal(s.Err.Bytes(), &rep); err != nil || rep.Format != "flac" || strings.Count(s.Err.String(), "\n") != 1 {
		t.Errorf("stderr report: %v %q", err, s.Err)
	}

	out := filepath.Join(t.TempDir(), "kept.wav")
	os.WriteFile(out, []byte("keep me"), 0o644)
	opts = &ConvertOptions{IO: f.IOStreams, In: fixture("speech.flac"), Out: out, Process: processFlags{Normalize: "none"}}
	err = convertRun(context.Background(), opts)
	var ee *cmdutil.ExitError
	if kept, _ := os.ReadFile(out); !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage || string(kept) != "keep me" {
		t.Errorf("existing output without --force: %v, file now %q", err, kept)
	}
	opts.Force = true
	if err := convertRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b[:4]) != "RIFF" {
		t.Errorf("--force did not overwrite %s", out)
	}
}

func TestConvertJSONAndDamagedInput(t *testing.T) {
	f, s := cmdtest.Factory(t, false)
	dir := t.TempDir()
	opts := &ConvertOptions{IO: f.IOStreams, JSON: true, In: fixture("speech-audio.opus"), Out: filepath.Join(dir, "o.wav"), Process: processFlags{Normalize: "peak", TrimSilence: true}}
	if err := convertRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(s.Out.Bytes(), &r); err != nil || r["format"] != "ogg-opus" || r["sample_rate"] != 48000.0 || r["gain_db"].(float64) <= 0 {
		t.Errorf("json %s: %v", s.Out, err)
	}

	b, _ := os.ReadFile(fixture("speech-64k.mp3"))
	bad := filepath.Join(dir, "bad.mp3")
	os.WriteFile(bad, b[:len(b)/2], 0o644)
	out := filepath.Join(dir, "bad.wav")
	err := convertRun(context.Background(), &ConvertOptions{IO: f.IOStreams, In: bad, Out: out, Process: processFlags{Normalize: "none"}})
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage || !strings.HasPrefix(err.Error(), "decode "+bad+": mp3: truncated: frame") {
		t.Errorf("damaged input: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 2 { // o.wav and bad.mp3: no bad.wav, no temporary file
		t.Errorf("files left behind: %v", left)
	}
}

func TestTranscribeArgs(t *testing.T) {
	user := uuid.NewString()
	for _, c := range []struct {
		argv    string
		wantErr string
		check   func(*TranscribeOptions) bool
	}{
		{"a.webm b.m4a --user-id " + user, "", func(o *TranscribeOptions) bool {
			return len(o.Files) == 2 && o.UserID.String() == user && o.Provider == "deepgram" && o.Concurrency == 4 && o.SmartFormat && !o.Force && !o.StoreAudio
		}},
		{"a.webm --user-id " + user + " --provider openai --language en --store-audio --force --concurrency 2 --normalize peak", "", func(o *TranscribeOptions) bool {
			return o.Provider == "openai" && o.Language == "en" && o.StoreAudio && o.Force && o.Concurrency == 2 && o.Process.Normalize == "peak"
		}},
		{"a.webm --user-id " + user, "", func(o *TranscribeOptions) bool {
			return o.Process.VAD && !o.Process.Denoise && !o.NoMemory && o.MemoryType == "episodic" && o.recordedAt.IsZero()
		}},
		{"a.webm --user-id " + user + " --vad=false --denoise --no-memory --recorded-at 2026-09-14T09:30:00+02:00", "", func(o *TranscribeOptions) bool {
			return !o.Process.VAD && o.Process.Denoise && o.NoMemory && o.recordedAt.Equal(time.Date(2026, 9, 14, 7, 30, 0, 0, time.UTC))
		}},
		{"a.webm --user-id " + user + " --recorded-at yesterday", `invalid --recorded-at "yesterday": use RFC 3339, e.g. 2026-11-27T08:30:00Z`, nil},
		{"a.webm", `required flag(s) "user-id" not set`, nil},
		{"a.webm --user-id bob", `invalid --user-id "bob": not a UUID (like 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b)`, nil},
		{"a.webm --user-id " + user + " --provider azure", `invalid --provider "azure": use deepgram or openai`, nil},
		{"a.webm --user-id " + user + " --concurrency 0", `invalid --concurrency 0: use 1 to 64`, nil},
		{"a.webm --user-id " + user + " --language en --detect-language", "if any flags in the group [language detect-language] are set none of the others can be; [detect-language language] were all set", nil},
	} {
		f, _ := cmdtest.Factory(t, false)
		got, err := cmdtest.Parse(func(runF func(*TranscribeOptions) error) *cobra.Command { return NewCmdTranscribe(f, runF) }, c.argv)
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%q: error %v, want %q", c.argv, err, c.wantErr)
			}
			continue
		}
		if err != nil || !c.check(got) {
			t.Errorf("%q: %v %+v", c.argv, err, got)
		}
	}
}

// fakeDeepgram answers /v1/listen as Deepgram does, with a transcript naming
// the request number, after checking the request the way Deepgram would.
func fakeDeepgram(t *testing.T) (*httptest.Server, *atomic.Int32) {
	n := &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := n.Add(1)
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/listen" || r.Header.Get("Authorization") != "Token dg-key" || r.Header.Get("Content-Type") != "audio/wav" ||
			r.URL.Query().Get("model") != "nova-3" || r.URL.Query().Get("smart_format") != "true" || string(body[:4]) != "RIFF" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"err_code":"Bad Request","err_msg":"unexpected request","request_id":"r-bad"}`)
			return
		}
		dur := float64(len(body)-44) / 32000
		fmt.Fprintf(w, `{"metadata":{"request_id":"req-%d","duration":%.4f,"channels":1,"models":["m-1"]},
"results":{"channels":[{"alternatives":[{"transcript":"call the dentist","confidence":0.97,
"words":[{"word":"call","start":0.1,"end":0.3,"confidence":0.99,"punctuated_word":"Call"},{"word":"the","start":0.3,"end":0.4,"confidence":0.98,"punctuated_word":"the"},{"word":"dentist","start":0.4,"end":0.9,"confidence":0.96,"punctuated_word":"dentist."}]}]}]}}`, k, dur)
	}))
	t.Cleanup(srv.Close)
	return srv, n
}

func TestTranscribeRun(t *testing.T) {
	srv, requests := fakeDeepgram(t)
	t.Setenv("DEEPGRAM_API_KEY", "dg-key")
	t.Setenv("HELIX_VOICE_DEEPGRAM_BASE_URL", srv.URL)
	pool := pgtest.New(t)
	user := uuid.New()

	dir := t.TempDir()
	b, _ := os.ReadFile(fixture("speech.flac"))
	bad := filepath.Join(dir, "bad.flac")
	os.WriteFile(bad, b[:len(b)/3], 0o644)
	files := []string{fixture("speech-voip.webm"), bad, fixture("speech-64k.mp3")}

	run := func(tty bool, force bool) (string, string, error) {
		f, s := cmdtest.Factory(t, tty)
		cmdtest.WithDB(f, pool)
		opts := &TranscribeOptions{IO: f.IOStreams, Config: f.Config, DB: f.DB, HTTPClient: f.HTTPClient, Logger: f.Logger, Now: f.Now,
			Files: files, UserID: cmdutil.UserID{ID: user, Given: true}, Provider: "deepgram", SmartFormat: true, StoreAudio: true, Force: force,
			Concurrency: 2, Process: processFlags{HighPass: true, Normalize: "none"}}
		err := transcribeRun(context.Background(), opts)
		return s.Out.String(), s.Err.String(), err
	}

	out, stderr, err := run(false, false)
	var pe *cmdutil.PartialError
	if !errors.As(err, &pe) || len(pe.Failed) != 1 || !strings.HasPrefix(pe.Failed[0], bad+": decode "+bad+": flac: ") {
		t.Fatalf("error %v, want a partial failure naming %s", err, bad)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], fixture("speech-voip.webm")+"\ttranscribed\t") ||
		!strings.Contains(lines[0], "\twebm-opus\t3.25s\t3\tcall the dentist") ||
		!strings.HasPrefix(lines[1], bad+"\tfailed\t-\t-\t-\t-\tdecode "+bad+": flac: ") ||
		!strings.Contains(lines[2], "\tmp3\t3.25s\t3\tcall the dentist") {
		t.Errorf("stdout:\n%s", out)
	}
	if !strings.Contains(stderr, "file failed") || !strings.Contains(stderr, "progress") {
		t.Errorf("stderr (non-TTY: log lines): %s", stderr)
	}
	if requests.Load() != 2 {
		t.Errorf("%d provider requests, want 2 (the damaged file is never sent)", requests.Load())
	}

	// the rows hold what the issue asks for
	var n int
	var format, transcript, provider, model, reqID string
	var dur, conf float64
	var rate, ch, audioLen int
	var words []map[string]any
	err = pool.QueryRow(context.Background(), `SELECT count(*) OVER (), format, duration_seconds, sample_rate, channels,
		octet_length(audio_data), transcript, confidence, words, provider, model, request_id
		FROM voice_recordings WHERE user_id = $1 AND source_name = 'speech-64k.mp3'`, user).
		Scan(&n, &format, &dur, &rate, &ch, &audioLen, &transcript, &conf, &words, &provider, &model, &reqID)
	if err != nil {
		t.Fatal(err)
	}
	if format != "mp3" || rate != 44100 || ch != 1 || dur < 3.24 || dur > 3.27 || audioLen != 44+2*52069 ||
		transcript != "call the dentist" || conf != 0.97 || len(words) != 3 || words[2]["punctuated_word"] != "dentist." ||
		provider != "deepgram" || model != "nova-3" || !strings.HasPrefix(reqID, "req-") {
		t.Errorf("row: %s %d Hz %d ch %.3f s audio %d %q %.2f %v %s %s %s", format, rate, ch, dur, audioLen, transcript, conf, words, provider, model, reqID)
	}
	var total int
	pool.QueryRow(context.Background(), `SELECT count(*) FROM voice_recordings`).Scan(&total)
	if total != 2 {
		t.Errorf("%d rows, want 2: nothing is stored for the damaged file", total)
	}
	var mems, links int
	pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM memories WHERE user_id = $1 AND content = 'call the dentist'),
		(SELECT count(*) FROM helix_voice_memories WHERE user_id = $1)`, user).Scan(&mems, &links)
	if mems != 2 || links != 2 {
		t.Errorf("%d memories, %d links, want 2: one per transcribed file, none for the damaged one", mems, links)
	}
	var status string
	var counts map[string]int
	pool.QueryRow(context.Background(), `SELECT status, counts FROM job_runs WHERE job = 'voice transcribe' ORDER BY id DESC LIMIT 1`).Scan(&status, &counts)
	if status != "partial" || counts["transcribed"] != 2 || counts["failed"] != 1 {
		t.Errorf("job_runs: %s %v", status, counts)
	}

	// again: the same audio is not sent twice
	out, _, _ = run(true, false)
	if requests.Load() != 2 || strings.Count(out, "duplicate") != 2 {
		t.Errorf("second run: %d requests, stdout:\n%s", requests.Load(), out)
	}
	if !strings.Contains(out, "FILE") || !strings.Contains(out, "TRANSCRIPT / ERROR") {
		t.Errorf("TTY table has no header:\n%s", out)
	}
	// --force transcribes again and replaces the rows
	run(false, true)
	pool.QueryRow(context.Background(), `SELECT count(*) FROM voice_recordings`).Scan(&total)
	pool.QueryRow(context.Background(), `SELECT count(*) FROM memories WHERE user_id = $1`, user).Scan(&mems)
	if requests.Load() != 4 || total != 2 || mems != 2 {
		t.Errorf("--force: %d requests, %d rows, %d memories", requests.Load(), total, mems)
	}
}

func TestTranscribeJSONAndAllBad(t *testing.T) {
	srv, requests := fakeDeepgram(t)
	t.Setenv("DEEPGRAM_API_KEY", "dg-key")
	t.Setenv("HELIX_VOICE_DEEPGRAM_BASE_URL", srv.URL)
	pool := pgtest.New(t)
	f, s := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	junk := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(junk, []byte("not audio"), 0o644)
	opts := &TranscribeOptions{IO: f.IOStreams, JSON: true, Config: f.Config, DB: f.DB, HTTPClient: f.HTTPClient, Logger: f.Logger, Now: f.Now,
		Files: []string{junk}, UserID: cmdutil.UserID{ID: uuid.New(), Given: true}, Provider: "deepgram", Concurrency: 1, Process: processFlags{Normalize: "none"}}
	err := transcribeRun(context.Background(), opts)
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage {
		t.Errorf("all files bad: %v, want exit 2", err)
	}
	var rep TranscribeReport
	if err := json.Unmarshal(s.Out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, s.Out)
	}
	if rep.Failed != 1 || rep.Files[0].Kind != voice.FailInput || !strings.Contains(rep.Files[0].Error, "not a recognised audio format") || requests.Load() != 0 {
		t.Errorf("report %+v", rep)
	}
	if !strings.Contains(s.Err.String(), `{"progress":`) {
		t.Errorf("stderr: %s", s.Err)
	}
}

// TestTranscribeAllRefused: when the provider refuses every file (a wrong
// key; the fake answers 400, which helix treats as it does a 401), retrying
// cannot help: the run is bad input, exit 2, not 1.
func TestTranscribeAllRefused(t *testing.T) {
	srv, requests := fakeDeepgram(t)
	t.Setenv("DEEPGRAM_API_KEY", "not-the-key")
	t.Setenv("HELIX_VOICE_DEEPGRAM_BASE_URL", srv.URL)
	pool := pgtest.New(t)
	f, _ := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	opts := &TranscribeOptions{IO: f.IOStreams, Config: f.Config, DB: f.DB, HTTPClient: f.HTTPClient, Logger: f.Logger, Now: f.Now,
		Files: []string{fixture("speech-s16-22k.wav"), fixture("speech.flac")}, UserID: cmdutil.UserID{ID: uuid.New(), Given: true}, Provider: "deepgram",
		Concurrency: 2, Process: processFlags{Normalize: "none"}}
	err := transcribeRun(context.Background(), opts)
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage || requests.Load() != 2 {
		t.Errorf("every file refused: %v after %d requests, want exit 2 after 2", err, requests.Load())
	}
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM memories) + (SELECT count(*) FROM voice_recordings)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d rows written for refused requests", n)
	}
}

// TestM4AWithoutFFmpeg: convert and transcribe take AAC-LC (M4A as iOS and
// Safari record it, and ADTS) with no ffmpeg on PATH: helix decodes it itself.
func TestM4AWithoutFFmpeg(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	f, s := cmdtest.Factory(t, false)
	in, out := fixture("speech-aac-48k-stereo.m4a"), filepath.Join(t.TempDir(), "out.wav")
	opts := &ConvertOptions{IO: f.IOStreams, In: in, Out: out, Process: processFlags{HighPass: true, Normalize: "none"}}
	if err := convertRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s: m4a, 48000 Hz, 2 ch, 3.25 s → %s: 16000 Hz mono 16-bit, 3.25 s\n", in, out)
	if s.Out.String() != want {
		t.Errorf("stdout %q, want %q", s.Out, want)
	}

	srv, requests := fakeDeepgram(t)
	t.Setenv("DEEPGRAM_API_KEY", "dg-key")
	t.Setenv("HELIX_VOICE_DEEPGRAM_BASE_URL", srv.URL)
	pool := pgtest.New(t)
	f, s = cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	topts := &TranscribeOptions{IO: f.IOStreams, Config: f.Config, DB: f.DB, HTTPClient: f.HTTPClient, Logger: f.Logger, Now: f.Now,
		Files: []string{fixture("speech.m4a"), fixture("speech-aac-22k.aac")}, UserID: cmdutil.UserID{ID: uuid.New(), Given: true}, Provider: "deepgram",
		SmartFormat: true, Concurrency: 1, Process: processFlags{HighPass: true, Normalize: "none"}}
	if err := transcribeRun(context.Background(), topts); err != nil {
		t.Fatalf("%v\n%s", err, s.Err)
	}
	lines := strings.Split(strings.TrimSpace(s.Out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "\tm4a\t3.25s\t3\tcall the dentist") ||
		!strings.Contains(lines[1], "\taac\t3.34s\t3\tcall the dentist") || requests.Load() != 2 {
		t.Errorf("%d requests, stdout:\n%s", requests.Load(), s.Out)
	}
}

// Issue 32, finding 8: a provider answering more than helix reads (64 MiB;
// the attack sent 400 MB) fails the file as "answer too large", exit 1 (the
// job failed), not 2 "unexpected end of JSON input" as if the input were bad.
func TestTranscribeAnswerTooLarge(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"metadata": {"request_id": "r-1"}, "padding": "`)
		chunk := strings.Repeat("x", 1<<20)
		for range 80 {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
		io.WriteString(w, `"}`)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("DEEPGRAM_API_KEY", "dg-key")
	t.Setenv("HELIX_VOICE_DEEPGRAM_BASE_URL", srv.URL)
	pool := pgtest.New(t)
	f, s := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	opts := &TranscribeOptions{IO: f.IOStreams, JSON: true, Config: f.Config, DB: f.DB, HTTPClient: f.HTTPClient, Logger: f.Logger, Now: f.Now,
		Files: []string{fixture("speech-s16-22k.wav")}, UserID: cmdutil.UserID{ID: uuid.New(), Given: true}, Provider: "deepgram",
		Concurrency: 1, Process: processFlags{Normalize: "none"}}
	err := transcribeRun(context.Background(), opts)
	var ee *cmdutil.ExitError
	if err == nil || errors.As(err, &ee) || !strings.Contains(err.Error(), "answer too large") {
		t.Errorf("error %v, want a plain failure (exit 1) saying the answer is too large", err)
	}
	var rep TranscribeReport
	if err := json.Unmarshal(s.Out.Bytes(), &rep); err != nil || rep.Failed != 1 || rep.Files[0].Kind != voice.FailAnswer {
		t.Errorf("report %+v (%v)", rep, err)
	}
	if requests.Load() != 1 {
		t.Errorf("%d requests: a too-large answer is not asked for again", requests.Load())
	}
}
