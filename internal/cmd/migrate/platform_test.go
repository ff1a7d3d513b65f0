package migrate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/embed/embedtest"
	"github.com/helixhq/helix/internal/llmsynth/llmtest"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

const userA, userB = "a0000000-0000-4000-8000-000000000001", "b0000000-0000-4000-8000-000000000002"

// platformRows are the platform columns (shared/platform/README.md) of the
// rows a platform fixture wrote, by table: the rows helix must not change.
// psychology_layers.decay_rate is left out: the platform's documents give it
// to the decay job to update.
var platformRows = map[string]string{
	"memories":          "id, user_id, type, content, embedding, emotional_valence, created_at, last_accessed",
	"memory_synthesis":  "id, user_id, pattern_type, memory_ids, synthesis_content, confidence_score, created_at",
	"psychology_layers": "id, user_id, layer_number, layer_name, data, last_updated",
	"skills":            "id, name, description, wasm_bytecode, created_at",
	"voice_recordings":  "id, user_id, transcript, audio_data, created_at",
	"custom_tools":      "id, user_id, name, code, parameters, capabilities, sandbox_profile, version, usage_count, enabled",
	"composite_skills":  "id, user_id, name, steps, version, enabled",
	"memory_patterns":   "id, user_id, pattern_type, content, confidence, evidence, created_at",
}

// fixtureRows snapshots the ids of every platform row, and the memories
// without an embedding (helix embed fills those: that is its job).
type fixtureRows struct {
	ids        map[string][]string
	unembedded []string
}

func snapshotIDs(t *testing.T, pool *pgxpool.Pool) fixtureRows {
	t.Helper()
	ctx := context.Background()
	f := fixtureRows{ids: map[string][]string{}}
	for tbl := range platformRows {
		var ids []string
		if err := pool.QueryRow(ctx, fmt.Sprintf(`SELECT coalesce(array_agg(id::text), '{}') FROM %s`, tbl)).Scan(&ids); err != nil {
			t.Fatalf("%s: %v", tbl, err)
		}
		if len(ids) == 0 {
			t.Fatalf("the fixture has no rows in %s", tbl)
		}
		f.ids[tbl] = ids
	}
	if err := pool.QueryRow(ctx, `SELECT array_agg(id::text) FROM memories WHERE embedding IS NULL`).Scan(&f.unembedded); err != nil {
		t.Fatal(err)
	}
	return f
}

// checksums is an md5, per platform table, of the platform columns of the
// fixture's rows.
func (f fixtureRows) checksums(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	sums := map[string]string{}
	for tbl, cols := range platformRows {
		if tbl == "memories" {
			cols = strings.Replace(cols, "embedding", "CASE WHEN id::text = ANY($2) THEN NULL ELSE embedding END", 1)
		}
		q := fmt.Sprintf(`SELECT count(*) || ' rows, md5 ' || md5(coalesce(string_agg(r::text, '|' ORDER BY r::text), ''))
			FROM (SELECT %s FROM %s WHERE id::text = ANY($1)) r`, cols, tbl)
		args := []any{f.ids[tbl]}
		if tbl == "memories" {
			args = append(args, f.unembedded)
		}
		var sum string
		if err := pool.QueryRow(context.Background(), q, args...).Scan(&sum); err != nil {
			t.Fatalf("%s: %v", tbl, err)
		}
		sums[tbl] = sum
	}
	return sums
}

// embeddings answers POST /v1/embeddings as OpenAI does: a bag-of-words
// vector of 1,536 dimensions per input, for the key sk-embed and the model
// test-embed only.
func embeddings(t *testing.T) *embedtest.Server {
	return embedtest.Start(t, &embedtest.Server{Key: "sk-embed", Model: "test-embed", Dim: 1536})
}

// TestJobsOnPlatformDatabase installs helix on the platform's Supabase-shaped
// database with rows in it and runs its jobs there, as an operator would: on
// the platform's tables exactly as its documents give them (no defaults, no
// foreign keys) and on the shape Supabase projects usually have. No row of
// the platform's changes.
func TestJobsOnPlatformDatabase(t *testing.T) {
	t.Parallel()
	for _, fixture := range pgtest.PlatformFixtures {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			jobsOnPlatform(t, fixture)
		})
	}
}

func jobsOnPlatform(t *testing.T, fixture string) {
	ctx := context.Background()
	url := pgtest.PlatformAs(t, fixture)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rows := snapshotIDs(t, pool)
	before := rows.checksums(t, pool)
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
	const anthKey = "sk-ant-api03-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"
	anthropic := llmtest.NewAnthropic(t, anthKey, func(c llmtest.Call) llmtest.Reply {
		ids := llmtest.ShortIDs(c.Body)
		return llmtest.Reply{Body: llmtest.AnthropicToolUse("record_patterns", llmtest.Answer(llmtest.RequestedTypes(c), ids[0], ids[1]),
			llmtest.Usage{Input: 1000, Output: 200})}
	})
	embedder := embeddings(t)

	helix := func(want int, args ...string) string {
		t.Helper()
		defer func(start time.Time) { t.Logf("helix %s: %v", args[0], time.Since(start)) }(time.Now())
		cmd := exec.Command(testbin.Helix(t), args...)
		cmd.Env = append(os.Environ(), "HELIX_DATABASE_URL="+url, "HELIX_CONFIG=", "XDG_CONFIG_HOME="+t.TempDir(),
			"DEEPGRAM_API_KEY=dg-key", "HELIX_VOICE_DEEPGRAM_BASE_URL="+deepgram.URL,
			"HELIX_LLM_ANTHROPIC_BASE_URL="+anthropic.URL, "ANTHROPIC_API_KEY="+anthKey,
			"HELIX_EMBED_BASE_URL="+embedder.URL, "HELIX_EMBED_API_KEY=sk-embed", "HELIX_EMBED_MODEL=test-embed")
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

	// synthesize one user, then every user
	helix(0, "synthesize", "--user-id", userA)
	if n := count(`SELECT count(*) FROM memory_synthesis WHERE user_id = $1 AND generator = 'helix' AND id IS NOT NULL`, userA); n == 0 {
		t.Errorf("synthesize --user-id wrote no pattern with an id")
	}

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
	if err := pool.QueryRow(ctx, `INSERT INTO skills (id, name, wasm_bytecode, created_at) VALUES (gen_random_uuid(), 'echo', $1, now()) RETURNING id::text`, wasm).Scan(&skillID); err != nil {
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

	// synthesize --llm: the four pattern types per user into memory_patterns,
	// beside the platform's own row.
	helix(0, "synthesize", "--llm", "--all-users", "--concurrency", "1")
	if n := count(`SELECT count(*) FROM memory_patterns WHERE generator = 'helix'`); n != 8 {
		t.Errorf("%d helix rows in memory_patterns, want 4 per user", n)
	}
	if n := len(anthropic.Calls()); n != 2 {
		t.Errorf("%d calls to the model, want one per user", n)
	}

	// embed fills the missing embeddings; search finds them.
	out = helix(0, "embed", "--all-users", "--model", "test-embed", "-o", "json")
	if n := count(`SELECT count(*) FROM memories WHERE embedding IS NULL AND content IS NOT NULL`); n != 0 {
		t.Errorf("%d memories with text left without an embedding: %s", n, out)
	}
	out = helix(0, "memory", "search", "walked the dog in the park", "--user-id", userA, "--limit", "3", "-o", "json")
	var found struct {
		Results []struct {
			Content *string `json:"content"`
			Vector  any     `json:"vector"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &found); err != nil || len(found.Results) != 3 || found.Results[0].Content == nil ||
		!strings.Contains(*found.Results[0].Content, "walked the dog") || found.Results[0].Vector == nil {
		t.Errorf("memory search: %v %s", err, out)
	}

	// Every row helix wrote into a platform table carries its own id: the
	// literal tables have no default and (but for two) no primary key.
	for _, tbl := range []string{"memory_synthesis", "memory_patterns", "voice_recordings"} {
		if n := count(fmt.Sprintf(`SELECT count(*) FROM %s WHERE id IS NULL`, tbl)); n != 0 {
			t.Errorf("%d rows without an id in %s", n, tbl)
		}
		if n := count(fmt.Sprintf(`SELECT count(*) - count(DISTINCT id) FROM %s`, tbl)); n != 0 {
			t.Errorf("%d duplicated ids in %s", n, tbl)
		}
	}
	if after := rows.checksums(t, pool); !reflect.DeepEqual(before, after) {
		for tbl := range before {
			if before[tbl] != after[tbl] {
				t.Errorf("platform rows of %s changed: before %s, after %s", tbl, before[tbl], after[tbl])
			}
		}
	}

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
