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

	"github.com/helixhq/helix/internal/embed/embedtest"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
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
