package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/llmsynth/llmtest"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/testbin"
)

// helix runs the binary to the end against url and returns its stdout; a
// non-zero exit fails the test.
func helix(t *testing.T, url string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(testbin.Helix(t), args...)
	cmd.Env = append(append(os.Environ(), "DATABASE_URL="+url, "HELIX_DB_MAX_CONNS=12"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("helix %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out.String(), errb.String())
		}
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("helix %s: still running after 3m\n%s", strings.Join(args, " "), errb.String())
	}
	return out.String()
}

type enqueued struct {
	Kind       string `json:"kind"`
	Queue      string `json:"queue"`
	Units      int    `json:"units"`
	Enqueued   int    `json:"enqueued"`
	Duplicates int    `json:"duplicates"`
}

// enqueueTwice enqueues with args (plus -o json), checks that something was
// queued, then enqueues again while the jobs are pending: nothing new.
func enqueueTwice(t *testing.T, url string, env []string, kind string, args ...string) int {
	t.Helper()
	args = append(args, "--enqueue", "-o", "json")
	var first, again enqueued
	if err := json.Unmarshal([]byte(helix(t, url, env, args...)), &first); err != nil {
		t.Fatal(err)
	}
	if first.Kind != kind || first.Enqueued == 0 || first.Enqueued != first.Units || first.Duplicates != 0 {
		t.Fatalf("first enqueue: %+v", first)
	}
	if err := json.Unmarshal([]byte(helix(t, url, env, args...)), &again); err != nil {
		t.Fatal(err)
	}
	if again.Enqueued != 0 || again.Duplicates != first.Enqueued {
		t.Fatalf("re-enqueue while pending: %+v, want 0 enqueued and %d duplicates", again, first.Enqueued)
	}
	if n := scalarURL[int](t, url, `SELECT count(*) FROM river_job WHERE kind = $1`, kind); n != first.Enqueued {
		t.Fatalf("%d %s jobs in river_job, want %d", n, kind, first.Enqueued)
	}
	return first.Enqueued
}

// drain runs `helix worker --once` on queue and checks every job of kind
// completed and no job_runs row was left running or failed.
func drainQueue(t *testing.T, url string, env []string, queue, kind string, jobs int) {
	t.Helper()
	helix(t, url, env, "worker", "--once", "--queues", queue, "--concurrency", "3", "--poll-interval", "200ms")
	if n := scalarURL[int](t, url, `SELECT count(*) FROM river_job WHERE kind = $1 AND state = 'completed'`, kind); n != jobs {
		t.Errorf("%d of %d %s jobs completed: %v", n, jobs, kind,
			scalarURL[string](t, url, `SELECT coalesce(string_agg(state || ' ' || errors::text, E'\n'), '') FROM river_job WHERE state <> 'completed'`))
	}
	if n := scalarURL[int](t, url, `SELECT count(*) FROM job_runs WHERE status IN ('running', 'failed')`); n != 0 {
		t.Errorf("%d job_runs rows running or failed", n)
	}
}

// sameArgs checks that the in-process run (on ref) and the worker's runs
// (on queued) of job recorded the same typed args in job_runs.params, but
// for the unit keys (a user, a bucket, a file) the in-process run covers
// all of (issue 34: one shape both ways).
func sameArgs(t *testing.T, queued, ref, job string, unitKeys ...string) {
	t.Helper()
	q := `SELECT coalesce(string_agg(DISTINCT ((params::jsonb->'args') - $2::text[])::text, E'\n'), '') FROM job_runs WHERE job = $1`
	keys := append([]string{}, unitKeys...) // never NULL: jsonb - NULL is NULL
	got, want := scalarURL[string](t, queued, q, job, keys), scalarURL[string](t, ref, q, job, keys)
	if got != want || got == "" || strings.Contains(got, "\n") {
		t.Errorf("%s run records' args differ:\n worker     %s\n in-process %s", job, got, want)
	}
}

func scalarURL[T any](t *testing.T, url, sql string, args ...any) T {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	return scalar[T](t, pool, sql, args...)
}

// twoDatabases seeds two fresh databases alike: one for the in-process run,
// one for the queue.
func twoDatabases(t *testing.T, seed func(*pgxpool.Pool)) (queued, ref string) {
	t.Helper()
	queued, ref = pgtest.URL(t), pgtest.URL(t)
	for _, u := range []string{queued, ref} {
		pool, err := pgxpool.New(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		seed(pool)
		pool.Close()
	}
	return queued, ref
}

func mustExec(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

const decayDigest = `SELECT array_agg(row ORDER BY row) FROM (
	SELECT id::text || '|' || round(retention::numeric, 9) || '|' || round(stability::numeric, 9) || '|' || forgotten || '|' ||
	       coalesce(forget_at::text, '-') || '|' || decayed_at AS row FROM memories
	UNION ALL
	SELECT id::text || '|' || round(retention::numeric, 9) || '|' || forgotten || '|' || coalesce(forget_at::text, '-') || '|' ||
	       decayed_at || '|' || round(decay_rate::numeric, 9) FROM psychology_layers) s`

// TestDecayJobs: a decay run enqueued as id-range jobs and worked by a
// `helix worker` leaves the same retention, stability, forgotten flags and
// forget_at as an in-process full run at the same instant.
func TestDecayJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helix processes: skipped with -short")
	}
	t.Parallel()
	queued, ref := twoDatabases(t, func(pool *pgxpool.Pool) {
		seed(t, pool, 300, 8)
		mustExec(t, pool, `UPDATE memories SET created_at = timestamptz '2026-08-01' + (hashtext(id::text) & 63) * interval '1 day'`)
		mustExec(t, pool, `UPDATE memories SET last_accessed = created_at + interval '3 days' WHERE (hashtext(id::text) & 3) = 0`)
		mustExec(t, pool, `INSERT INTO psychology_layers (id, user_id, layer_number, layer_name, last_updated)
			SELECT md5('l' || u || '-' || n)::uuid, md5('u' || u)::uuid, n, 'layer ' || n, timestamptz '2026-10-01' + u * interval '1 hour'
			FROM generate_series(1, 300) u, generate_series(1, 7) n`)
	})
	flags := []string{"--at", "2026-11-20T00:00:00Z", "--forget-below", "0.6", "--chunk-size", "500"}
	helix(t, ref, nil, append([]string{"decay", "run", "--full"}, flags...)...)
	jobs := enqueueTwice(t, queued, nil, "decay", append([]string{"decay", "run"}, flags...)...)
	if want := (2400+499)/500 + (2100+499)/500; jobs != want {
		t.Errorf("%d range jobs, want %d", jobs, want)
	}
	drainQueue(t, queued, nil, "decay", "decay", jobs)
	got, want := scalarURL[[]string](t, queued, decayDigest), scalarURL[[]string](t, ref, decayDigest)
	if len(got) != len(want) || len(got) != 4500 {
		t.Fatalf("%d rows after the worker, %d in-process, want 4500", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("retention after the worker differs from an in-process full run:\n worker     %s\n in-process %s", got[i], want[i])
		}
	}
	if n := scalarURL[int](t, queued, `SELECT count(*) FROM memories WHERE decayed_at IS NULL`); n != 0 {
		t.Errorf("%d memories not decayed", n)
	}
	if n := scalarURL[int](t, queued, `SELECT count(*) FROM memories WHERE forgotten`); n == 0 || n == 2400 {
		t.Errorf("%d of 2400 memories forgotten: the threshold does not discriminate", n)
	}
}

// TestSyncJobs: pending changes reconciled by partition jobs on a worker
// converge to the same state as one in-process `sync reconcile`.
func TestSyncJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helix processes: skipped with -short")
	}
	t.Parallel()
	queued, ref := twoDatabases(t, func(pool *pgxpool.Pool) {
		// 3 devices edit 300 entities of 7 users concurrently: every entity
		// has conflicting changes that field-lww must merge.
		mustExec(t, pool, `INSERT INTO sync_changes (entity_type, entity_id, user_id, device_id, clock, ts, op, doc)
			SELECT (ARRAY['memory', 'skill'])[1 + g % 2], 'e' || (g % 300), md5('u' || (g % 7))::uuid, 'd' || (g % 3),
			       jsonb_build_object('d' || (g % 3), g + 1, 'd' || ((g + 1) % 3), g / 2), timestamptz '2026-11-01' + g * interval '1 second',
			       CASE WHEN g < 300 THEN 'put' ELSE 'patch' END,
			       jsonb_build_object('f' || (g % 5), g, 'title', 't' || g)
			FROM generate_series(0, 2999) g`)
	})
	helix(t, ref, nil, "sync", "reconcile", "--batch", "100")
	jobs := enqueueTwice(t, queued, nil, "sync_reconcile", "sync", "reconcile", "--batch", "100")
	drainQueue(t, queued, nil, "sync", "sync_reconcile", jobs)
	sameArgs(t, queued, ref, "sync reconcile", "bucket")
	const digest = `SELECT count(*) || ':' || md5(string_agg(entity_type || '|' || user_id || '|' || entity_id || '|' || doc::text, E'\n'
		ORDER BY entity_type, user_id, entity_id)) FROM sync_state`
	if got, want := scalarURL[string](t, queued, digest), scalarURL[string](t, ref, digest); got != want {
		t.Errorf("state after partition jobs %s, in-process %s", got, want)
	}
	if n := scalarURL[int](t, queued, `SELECT count(*) FROM sync_changes WHERE processed_at IS NULL`); n != 0 {
		t.Errorf("%d changes left pending", n)
	}
}

// fakeEmbeddings answers POST /v1/embeddings as OpenAI does, with a vector
// drawn from each input's text; a request with an input containing refuse
// (if not "") is refused as OpenAI refuses a bad request.
func fakeEmbeddings(t *testing.T, refuse string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "mini" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"message":"bad request","type":"invalid_request_error"}}`))
			return
		}
		data := []map[string]any{}
		for _, in := range req.Input {
			if refuse != "" && strings.Contains(in, refuse) {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":{"message":"input refused","type":"invalid_request_error"}}`))
				return
			}
		}
		for i, in := range req.Input {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float32{float32(len(in)), float32(in[len(in)-1]), 0.5}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model, "usage": map[string]int{"prompt_tokens": 3, "total_tokens": 3}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestEmbedJobs: per-user embed jobs write the same embeddings as
// `embed --all-users`; the worker reaches the provider with its own settings.
func TestEmbedJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helix processes: skipped with -short")
	}
	t.Parallel()
	env := []string{"HELIX_EMBED_BASE_URL=" + fakeEmbeddings(t, ""), "HELIX_EMBED_API_KEY=", "OPENAI_API_KEY="}
	queued, ref := twoDatabases(t, func(pool *pgxpool.Pool) { seed(t, pool, 40, 5) })
	helix(t, ref, env, "embed", "--all-users", "--model", "mini")
	// The enqueuing host needs no provider settings.
	jobs := enqueueTwice(t, queued, nil, "embed", "embed", "--all-users", "--model", "mini")
	if jobs != 40 {
		t.Errorf("%d embed jobs for 40 users", jobs)
	}
	drainQueue(t, queued, env, "embed", "embed", jobs)
	sameArgs(t, queued, ref, "embed", "user_id")
	const digest = `SELECT count(embedding) || ':' || md5(string_agg(id::text || embedding::text || embedding_model, ',' ORDER BY id)) FROM memories`
	if got, want := scalarURL[string](t, queued, digest), scalarURL[string](t, ref, digest); got != want || !strings.HasPrefix(got, "200:") {
		t.Errorf("embeddings after the worker %s, in-process %s", got, want)
	}
}

func repoFile(t *testing.T, rel string) string {
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "..", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func serveFile(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/" + filepath.Base(path)
}

// TestCatalogFetchJob: a queued catalog fetch stores and pins the same
// snapshot as an in-process fetch.
func TestCatalogFetchJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helix processes: skipped with -short")
	}
	t.Parallel()
	src := serveFile(t, repoFile(t, "testdata/catalog/api-2026-06-14.json"))
	queued, ref := twoDatabases(t, func(*pgxpool.Pool) {})
	args := []string{"catalog", "fetch", "--source", src, "--allow-private", "--provider", "openai,anthropic"}
	helix(t, ref, nil, args...)
	jobs := enqueueTwice(t, queued, nil, "catalog_fetch", args...)
	drainQueue(t, queued, nil, "catalog", "catalog_fetch", jobs)
	sameArgs(t, queued, ref, "catalog fetch")
	const pinned = `SELECT sha256 || ' ' || source || ' ' || array_to_string(provider_filter, ',') || ' ' || model_count FROM model_catalog_snapshots WHERE pinned`
	if got, want := scalarURL[string](t, queued, pinned), scalarURL[string](t, ref, pinned); got != want {
		t.Errorf("pinned after the worker %q, in-process %q", got, want)
	}
}

// TestManifestImportJob: a queued manifest import of a URL records the
// same tools as an in-process import; a malformed document cancels its job
// (retrying cannot help) instead of failing it again and again.
func TestManifestImportJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helix processes: skipped with -short")
	}
	t.Parallel()
	doc := serveFile(t, repoFile(t, "testdata/manifest/oai-v3.0-petstore.yaml"))
	queued, ref := twoDatabases(t, func(*pgxpool.Pool) {})
	args := []string{"manifest", "import", doc, "--allow-private", "--by", "test"}
	helix(t, ref, nil, args...)
	jobs := enqueueTwice(t, queued, nil, "manifest_import", args...)
	drainQueue(t, queued, nil, "manifest", "manifest_import", jobs)
	sameArgs(t, queued, ref, "manifest-import", "url")
	const tools = `SELECT count(*) || ':' || md5(string_agg(name || '@' || version || ' ' || state || ' ' || sha256, ',' ORDER BY name, version)) FROM tool_manifests`
	if got, want := scalarURL[string](t, queued, tools), scalarURL[string](t, ref, tools); got != want || strings.HasPrefix(got, "0:") {
		t.Errorf("tools after the worker %s, in-process %s", got, want)
	}

	bad := serveFile(t, repoFile(t, "testdata/catalog/api-2026-06-14.json")) // JSON, but no manifest
	helix(t, queued, nil, "manifest", "import", bad, "--allow-private", "--enqueue")
	helix(t, queued, nil, "worker", "--once", "--queues", "manifest", "--poll-interval", "200ms")
	if st := scalarURL[string](t, queued, `SELECT state::text FROM river_job WHERE args->>'url' = $1`, bad); st != "cancelled" {
		t.Errorf("malformed document's job is %s, want cancelled", st)
	}
}

// TestRiverTablesSecured: on a Supabase-shaped database, River's tables get
// row-level security like every helix-internal table: doctor's RLS check
// reports nothing about them.
func TestRiverTablesSecured(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helix processes: skipped with -short")
	}
	t.Parallel()
	url := pgtest.Platform(t)
	helix(t, url, nil, "migrate", "up")
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	problems, supabase, err := db.RLSProblems(context.Background(), pool)
	if err != nil || !supabase {
		t.Fatalf("RLSProblems: supabase %v, %v", supabase, err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p, "river") {
			t.Errorf("RLS problem: %s", p)
		}
	}
	tables := scalar[[]string](t, pool, `SELECT array_agg(c.relname::text ORDER BY c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname LIKE 'river\_%'`)
	if len(tables) < 3 {
		t.Fatalf("river tables: %v", tables)
	}
	for _, tbl := range tables {
		secured := scalar[bool](t, pool, `SELECT c.relrowsecurity AND EXISTS (SELECT 1 FROM helix_tables h WHERE h.name = c.relname)
			AND NOT has_table_privilege('anon', c.oid, 'SELECT') AND NOT has_table_privilege('authenticated', c.oid, 'SELECT')
			FROM pg_class c WHERE c.oid = to_regclass($1)`, tbl)
		if !secured {
			t.Errorf("%s: not secured (RLS off, not in helix_tables, or readable by anon/authenticated)", tbl)
		}
	}
}

// fakeDeepgram answers /v1/listen as Deepgram does, after checking the key
// the worker's settings carry.
func fakeDeepgram(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/listen" || r.Header.Get("Authorization") != "Token dg-key" || string(body[:4]) != "RIFF" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"err_code":"Bad Request","err_msg":"unexpected request","request_id":"r-bad"}`)
			return
		}
		fmt.Fprintf(w, `{"metadata":{"request_id":"req-1","duration":%.4f,"channels":1,"models":["m-1"]},
"results":{"channels":[{"alternatives":[{"transcript":"%d bytes of speech","confidence":0.97,"words":[{"word":"speech","start":0.1,"end":0.3,"confidence":0.99}]}]}]}}`,
			float64(len(body)-44)/32000, len(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestTranscribeJobs: one job per recording stores the same rows as an
// in-process `voice transcribe`; a damaged file cancels its job.
func TestTranscribeJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helix processes: skipped with -short")
	}
	t.Parallel()
	env := []string{"DEEPGRAM_API_KEY=dg-key", "HELIX_VOICE_DEEPGRAM_BASE_URL=" + fakeDeepgram(t)}
	files := []string{repoFile(t, "testdata/voice/speech-s16-22k.wav"), repoFile(t, "testdata/voice/speech-64k.mp3")}
	const user = "6f1c2a4e-0b7d-4d8e-9a51-3c2f1e0d9b8a"
	queued, ref := twoDatabases(t, func(*pgxpool.Pool) {})
	helix(t, ref, env, append([]string{"voice", "transcribe", "--user-id", user}, files...)...)
	// The enqueuing host has no key: the worker's is used.
	jobs := enqueueTwice(t, queued, nil, "voice_transcribe", append([]string{"voice", "transcribe", "--user-id", user}, files...)...)
	drainQueue(t, queued, env, "voice", "voice_transcribe", jobs)
	sameArgs(t, queued, ref, "voice transcribe", "path")
	const rows = `SELECT count(*) || ':' || md5(string_agg(source_name || format || round(duration_seconds::numeric, 3) || encode(sha256, 'hex') || transcript || words::text, ',' ORDER BY source_name)) FROM voice_recordings`
	if got, want := scalarURL[string](t, queued, rows), scalarURL[string](t, ref, rows); got != want || !strings.HasPrefix(got, "2:") {
		t.Errorf("recordings after the worker %s, in-process %s", got, want)
	}

	b, err := os.ReadFile(repoFile(t, "testdata/voice/speech-s16-22k.wav"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.wav")
	if err := os.WriteFile(bad, b[:30], 0o644); err != nil {
		t.Fatal(err)
	}
	helix(t, queued, nil, "voice", "transcribe", "--user-id", user, bad, "--enqueue")
	helix(t, queued, env, "worker", "--once", "--queues", "voice", "--poll-interval", "200ms")
	if st := scalarURL[string](t, queued, `SELECT state::text FROM river_job WHERE args->>'path' = $1`, bad); st != "cancelled" {
		t.Errorf("damaged file's job is %s, want cancelled", st)
	}
}

// TestSynthesizeLLMJobs: per-user language-model jobs write the same
// memory_patterns as `synthesize --llm --all-users`, with the worker's key.
func TestSynthesizeLLMJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helix processes: skipped with -short")
	}
	t.Parallel()
	const key = "sk-ant-api03-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"
	srv := llmtest.NewAnthropic(t, key, func(c llmtest.Call) llmtest.Reply {
		ids := llmtest.ShortIDs(c.Body)
		return llmtest.Reply{Body: llmtest.AnthropicToolUse("record_patterns", llmtest.Answer(llmtest.RequestedTypes(c), ids[0], ids[1]),
			llmtest.Usage{Input: 1000, Output: 200})}
	})
	env := []string{"HELIX_LLM_ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=" + key, "HELIX_LLM_MAX_TOKENS=1000"}
	queued, ref := twoDatabases(t, func(pool *pgxpool.Pool) {
		var ms []memories.Memory
		for i := range 4 {
			ms = append(ms, synthesis.Synthetic(uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i)}), 30, 8, uint64(i+1))...)
		}
		if _, err := memories.Insert(context.Background(), pool, ms); err != nil {
			t.Fatal(err)
		}
	})
	helix(t, ref, env, "synthesize", "--llm", "--all-users", "--concurrency", "1")
	jobs := enqueueTwice(t, queued, nil, "synthesize_llm", "synthesize", "--llm", "--all-users")
	if jobs != 4 {
		t.Errorf("%d jobs for 4 users", jobs)
	}
	drainQueue(t, queued, env, "llm", "synthesize_llm", jobs)
	sameArgs(t, queued, ref, "synthesize-llm", "user_id")
	const rows = `SELECT count(*) || ':' || md5(string_agg(user_id || pattern_type || content::text || array_to_string(evidence, ','), E'\n'
		ORDER BY user_id, pattern_type, content::text)) FROM memory_patterns`
	if got, want := scalarURL[string](t, queued, rows), scalarURL[string](t, ref, rows); got != want || strings.HasPrefix(got, "0:") {
		t.Errorf("patterns after the worker %s, in-process %s", got, want)
	}
}
