package migrate_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

const userA, userB = "a0000000-0000-4000-8000-000000000001", "b0000000-0000-4000-8000-000000000002"

// TestJobsOnPlatformDatabase installs helix on the platform's Supabase-shaped
// database with rows in it and runs its jobs there, as an operator would.
func TestJobsOnPlatformDatabase(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Platform(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	deepgram := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/listen" || r.Header.Get("Authorization") != "Token dg-key" || string(body[:4]) != "RIFF" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"err_code":"Bad Request","err_msg":"unexpected request","request_id":"r-bad"}`)
			return
		}
		io.WriteString(w, `{"metadata":{"request_id":"req-1","duration":3.25,"channels":1,"models":["m-1"]},
"results":{"channels":[{"alternatives":[{"transcript":"call the dentist","confidence":0.97,
"words":[{"word":"call","start":0.1,"end":0.3,"confidence":0.99,"punctuated_word":"Call"}]}]}]}}`)
	}))
	defer deepgram.Close()

	helix := func(want int, args ...string) string {
		t.Helper()
		cmd := exec.Command(testbin.Helix(t), args...)
		cmd.Env = append(os.Environ(), "HELIX_DATABASE_URL="+url, "HELIX_CONFIG=", "XDG_CONFIG_HOME="+t.TempDir(),
			"DEEPGRAM_API_KEY=dg-key", "HELIX_VOICE_DEEPGRAM_BASE_URL="+deepgram.URL)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != want {
			t.Fatalf("helix %s: exit %d, want %d (%v)\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, want, err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}

	helix(0, "migrate", "up")

	// synthesize: every user, beside the platform's own synthesis rows, twice.
	for run := 1; run <= 2; run++ {
		var rep struct {
			Users []struct {
				UserID   string `json:"user_id"`
				Patterns []any  `json:"patterns"`
			} `json:"users"`
		}
		out := helix(0, "synthesize", "--all-users", "-o", "json")
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("synthesize output: %v\n%s", err, out)
		}
		for _, u := range []string{userA, userB} {
			if n := count(`SELECT count(*) FROM memory_synthesis WHERE user_id = $1 AND generator IS NULL
				AND synthesis_content = 'platform LLM: weekend dinners lift your mood'`, u); n != 1 {
				t.Errorf("run %d: user %s has %d of the platform's own synthesis rows, want 1 (helix replaced another writer's rows)", run, u, n)
			}
			if n := count(`SELECT count(*) FROM memory_synthesis WHERE user_id = $1 AND generator = 'helix'`, u); n == 0 {
				t.Errorf("run %d: no helix patterns for %s: %s", run, u, out)
			}
		}
	}
	if n := count(`SELECT count(*) FROM (SELECT user_id, fingerprint FROM memory_synthesis WHERE generator = 'helix'
		GROUP BY 1, 2 HAVING count(*) > 1) d`); n != 0 {
		t.Errorf("%d duplicated helix patterns after a re-run", n)
	}

	// decay: every memory and layer gets a retention; the platform's columns keep their values.
	// The memory an old app wrote with a type the platform's CHECK no longer
	// allows cannot be updated: skipped and counted, not a failed run.
	out := helix(0, "decay", "run", "--at", "2026-11-20T00:00:00Z", "-o", "json")
	var dec struct{ Memories, Skipped int }
	if err := json.Unmarshal([]byte(out), &dec); err != nil || dec.Skipped != 2 || dec.Memories != 118 {
		t.Errorf("decay run: %v %s, want 118 memories decayed and 2 skipped", err, out)
	}
	if n := count(`SELECT count(*) FROM memories WHERE retention IS NULL AND type <> 'reflective'`); n != 0 {
		t.Errorf("%d memories without retention after decay run", n)
	}
	if n := count(`SELECT count(*) FROM psychology_layers WHERE retention IS NULL`); n != 0 {
		t.Errorf("%d psychology layers without retention after decay run", n)
	}

	// voice transcribe: into the platform's voice_recordings, beside the app's own rows.
	wav := filepath.Join("..", "..", "..", "testdata", "voice", "speech-s16-22k.wav")
	helix(0, "voice", "transcribe", wav, "--user-id", userA, "--provider", "deepgram")
	var id, transcript string
	if err := pool.QueryRow(ctx, `SELECT id::text, transcript FROM voice_recordings WHERE user_id = $1 AND provider = 'deepgram'`, userA).Scan(&id, &transcript); err != nil {
		t.Fatalf("transcribed row: %v", err)
	}
	if transcript != "call the dentist" || len(id) != 36 {
		t.Errorf("voice_recordings row: id %q transcript %q", id, transcript)
	}
	if n := count(`SELECT count(*) FROM voice_recordings WHERE transcript = 'a transcript the app wrote itself'`); n != 2 {
		t.Errorf("%d of the apps' 2 voice_recordings rows left", n)
	}

	// skill exec: a platform skills row, by id, runs its wasm_bytecode.
	wasm, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "skills", "echo.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	var skillID string
	if err := pool.QueryRow(ctx, `INSERT INTO skills (name, wasm_bytecode) VALUES ('echo', $1) RETURNING id::text`, wasm).Scan(&skillID); err != nil {
		t.Fatal(err)
	}
	out = helix(0, "skill", "exec", skillID, "--input", `{"hello":"platform"}`, "--user-id", userB)
	if !strings.Contains(out, `"hello"`) || !strings.Contains(out, `"platform"`) {
		t.Errorf("skill exec %s printed %q, want the echoed input", skillID, out)
	}
	if n := count(`SELECT count(*) FROM skill_executions WHERE skill_name = $1 AND user_id = $2 AND status = 'ok'`, "skills/"+skillID, userB); n != 1 {
		t.Errorf("%d audit rows for the platform skill, want 1", n)
	}
	helix(2, "skill", "exec", "d0000000-0000-4000-8000-000000000009")

	// doctor: every helix table secured on this Supabase-shaped database; one
	// exposed table is reported.
	helix(0, "doctor")
	if _, err := pool.Exec(ctx, `ALTER TABLE job_runs DISABLE ROW LEVEL SECURITY`); err != nil {
		t.Fatal(err)
	}
	out = helix(1, "doctor", "-o", "json")
	if !strings.Contains(out, `job_runs: row-level security disabled`) {
		t.Errorf("doctor did not report job_runs without row-level security:\n%s", out)
	}
}
