package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/helixhq/helix/internal/decay"
	"github.com/helixhq/helix/internal/embed"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/llmsynth"
	"github.com/helixhq/helix/internal/llmsynth/llmtest"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/notify"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/syncer"
	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/voice"
	"github.com/helixhq/helix/internal/voice/stt"
)

// autocommit is the "transaction" a rivertest.Worker works a job in for
// helix's workers: every statement of River's test executor commits at
// once. A helix worker runs its unit on connections of its own (the
// jobrun envelope's, the unit's transaction) and completes the job inside
// the unit's transaction (river.JobCompleteTx); a test transaction that
// held the job row (rivertest marks it running in its tx) would block that
// completion forever, and the job row must be visible to it. So these
// tests run on a database of their own rather than in a rolled-back
// transaction (the enqueue side is tested in one: TestEnqueueBatches).
type autocommit struct{ *pgxpool.Pool }

var _ pgx.Tx = autocommit{}

func (a autocommit) Begin(ctx context.Context) (pgx.Tx, error) { return a.Pool.Begin(ctx) }
func (autocommit) Commit(context.Context) error                { return nil }
func (autocommit) Rollback(context.Context) error              { return nil }
func (autocommit) LargeObjects() pgx.LargeObjects              { return pgx.LargeObjects{} }
func (autocommit) Conn() *pgx.Conn                             { return nil }
func (autocommit) Prepare(context.Context, string, string) (*pgconn.StatementDescription, error) {
	return nil, fmt.Errorf("autocommit: no prepared statements")
}

// workOne works args with w through rivertest.Worker and returns the event
// River recorded (completed, cancelled, failed or snoozed) and the job's
// run record: status, error and typed args.
func workOne[T river.JobArgs](t *testing.T, pool *pgxpool.Pool, w river.Worker[T], args T) (river.EventKind, runRecord) {
	t.Helper()
	ctx := context.Background()
	tw := rivertest.NewWorker(t, riverpgxv5.New(pool), &river.Config{}, w)
	res, err := tw.Work(ctx, t, autocommit{pool}, args, nil)
	if err != nil {
		t.Logf("%s: worker error: %v", args.Kind(), err)
	}
	var rec runRecord
	var params string
	err = pool.QueryRow(ctx, `SELECT status, coalesce(error, ''), counts::text, params::text FROM job_runs WHERE (params->>'river_job_id')::bigint = $1`,
		res.Job.ID).Scan(&rec.Status, &rec.Error, &rec.Counts, &params)
	if err != nil && err != pgx.ErrNoRows {
		t.Fatal(err)
	}
	var p struct {
		Args  json.RawMessage `json:"args"`
		Units int             `json:"units"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal([]byte(params), &p); err != nil {
			t.Fatal(err)
		}
		rec.Args, rec.Units = p.Args, p.Units
	}
	return res.EventKind, rec
}

type runRecord struct {
	Status, Error string
	Counts        string
	Args          json.RawMessage
	Units         int
}

// argsEqual: the run records the job's typed args as they are.
func argsEqual(t *testing.T, rec runRecord, args any) {
	t.Helper()
	want, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if json.Unmarshal(rec.Args, &a) != nil || json.Unmarshal(want, &b) != nil || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("run record's args %s, want the job's %s", rec.Args, want)
	}
}

// TestKindsRivertest works every kind helix's worker registers, in-process
// with rivertest.Worker on one database: a unit that works (completed, its
// run ok with the job's typed args) and, where it has one, a unit that
// fails for good (cancelled, its run failed with the error) or whose own
// items partly fail (completed, run partial), as `helix worker` would.
// Providers are local servers speaking their real wire format.
func TestKindsRivertest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	users, bad := failingUsers(t, pool, 4)
	good := users[0]
	if good == bad {
		good = users[1]
	}
	at := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	d := &Deps{Pool: pool, Now: func() time.Time { return at }, HTTP: netguard.Client,
		ManifestMaxima: func() (manifest.Maxima, error) { return manifest.Maxima{}, nil },
		Strategies:     func() (map[string]syncer.Strategy, error) { return nil, nil }}
	tested := map[string]bool{}
	run := func(kind string, f func(t *testing.T)) {
		tested[kind] = true
		t.Run(kind, f)
	}
	defer func() {
		for _, j := range jobs.Table {
			if j.Queue != QueueSchedule && j.Queue != QueueScheduleTick && !tested[j.Kind] {
				t.Errorf("kind %s is not worked here", j.Kind)
			}
		}
	}()
	params := synthesis.DefaultParams()
	params.MinClusterSize, params.MinConfidence = 2, 0

	run("synthesize", func(t *testing.T) {
		a := SynthesizeArgs{UserID: good, Params: params}
		if ev, rec := workOne(t, pool, &SynthesizeWorker{d: d}, a); ev != river.EventKindJobCompleted || rec.Status != "ok" {
			t.Errorf("good user: %s, run %+v", ev, rec)
		} else {
			argsEqual(t, rec, a)
		}
		a = SynthesizeArgs{UserID: bad, Params: params}
		if ev, rec := workOne(t, pool, &SynthesizeWorker{d: d}, a); ev != river.EventKindJobCancelled || rec.Status != "failed" || rec.Error == "" {
			t.Errorf("failing user: %s, run %+v; want cancelled, failed", ev, rec)
		}
	})
	run("synthesize_users", func(t *testing.T) {
		a := SynthesizeUsersArgs{UserIDs: users, Params: params}
		ev, rec := workOne(t, pool, &SynthesizeUsersWorker{d: d}, a)
		if ev != river.EventKindJobCompleted || rec.Status != "partial" || rec.Units != len(users) {
			t.Errorf("a batch with a failing user: %s, run %+v; want completed, partial", ev, rec)
		}
		argsEqual(t, rec, a)
	})

	run("decay", func(t *testing.T) {
		o := decay.Options{At: at, ForgetBelow: 0.5, ChunkSize: 10}
		rs, err := decay.Ranges(ctx, pool, o)
		if err != nil || len(rs) < 2 {
			t.Fatalf("ranges %v, %v", rs, err)
		}
		for _, r := range rs {
			a := DecayArgs{Range: r, At: at, ForgetBelow: o.ForgetBelow, Memory: decay.DefaultFSRS(), Layers: decay.DefaultLayers()}
			if ev, rec := workOne(t, pool, &DecayWorker{d: d}, a); ev != river.EventKindJobCompleted || rec.Status != "ok" {
				t.Errorf("range %v: %s, run %+v", r, ev, rec)
			}
		}
		var left int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE decayed_at IS NULL`).Scan(&left); err != nil || left != 0 {
			t.Errorf("%d memories not decayed (%v)", left, err)
		}
	})

	run("sync_reconcile", func(t *testing.T) {
		if _, err := pool.Exec(ctx, `INSERT INTO sync_changes (entity_type, entity_id, user_id, device_id, clock, ts, op, doc)
			SELECT 'memory', 'e' || (g % 5), $1, 'd1', CASE WHEN g = 3 THEN '{"d1": "x"}' ELSE jsonb_build_object('d1', g + 1) END,
			       timestamptz '2026-11-01' + g * interval '1 second', 'put', jsonb_build_object('f', g)
			FROM generate_series(0, 9) g`, good); err != nil {
			t.Fatal(err)
		}
		bs, err := syncer.PendingBuckets(ctx, pool, syncer.Filter{})
		if err != nil || len(bs) == 0 {
			t.Fatalf("buckets %v, %v", bs, err)
		}
		partial := 0
		for _, b := range bs {
			ev, rec := workOne(t, pool, &ReconcileWorker{d: d}, ReconcileArgs{Bucket: b, Batch: 4})
			if ev != river.EventKindJobCompleted {
				t.Errorf("bucket %d: %s, run %+v", b, ev, rec)
			}
			if rec.Status == "partial" {
				partial++
				if !bytes.Contains([]byte(rec.Error), []byte("invalid change: clock")) {
					t.Errorf("partial run without the invalid change's error: %+v", rec)
				}
			}
		}
		if partial != 1 {
			t.Errorf("%d partial runs, want the invalid change's bucket's", partial)
		}
	})

	serve := func(body []byte) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(body) }))
		t.Cleanup(srv.Close)
		return srv.URL + "/doc"
	}
	file := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", rel))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	net := Net{AllowPrivate: true, Timeout: 10 * time.Second, MaxBytes: 10 << 20}
	run("catalog_fetch", func(t *testing.T) {
		a := CatalogFetchArgs{Source: serve(file("testdata/catalog/api-2026-06-14.json")), Providers: []string{"openai"}, Net: net}
		if ev, rec := workOne(t, pool, &CatalogFetchWorker{d: d}, a); ev != river.EventKindJobCompleted || rec.Status != "ok" {
			t.Errorf("catalog: %s, run %+v", ev, rec)
		} else {
			argsEqual(t, rec, a)
		}
		a.Source = serve([]byte(`{"openai": {"models": [`))
		if ev, rec := workOne(t, pool, &CatalogFetchWorker{d: d}, a); ev != river.EventKindJobCancelled || rec.Status != "failed" {
			t.Errorf("malformed catalog: %s, run %+v; want cancelled, failed", ev, rec)
		}
	})
	run("manifest_import", func(t *testing.T) {
		a := ManifestImportArgs{URL: serve(file("testdata/manifest/oai-v3.0-petstore.yaml")), Deadline: time.Minute, By: "test", Net: net}
		if ev, rec := workOne(t, pool, &ManifestImportWorker{d: d}, a); ev != river.EventKindJobCompleted || rec.Status != "ok" {
			t.Errorf("petstore: %s, run %+v", ev, rec)
		} else {
			argsEqual(t, rec, a)
		}
		a.URL = serve(file("testdata/catalog/api-2026-06-14.json"))
		if ev, rec := workOne(t, pool, &ManifestImportWorker{d: d}, a); ev != river.EventKindJobCancelled || rec.Status != "" {
			t.Errorf("not a manifest: %s, run %+v; want cancelled before a run", ev, rec)
		}
	})

	run("notify_deliver", func(t *testing.T) {
		var posts atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if posts.Add(1) == 1 {
				w.WriteHeader(http.StatusServiceUnavailable) // the first answer: retried
			}
		}))
		defer srv.Close()
		settings := func(allow string) func() (notify.Settings, error) {
			return func() (notify.Settings, error) {
				return notify.ParseSettings([]string{"discord+" + srv.URL + "/api/webhooks/1/x"}, allow, "")
			}
		}
		s, _ := settings("true")()
		a := notify.DeliverArgs{Target: s.Targets[0].ID(), Format: notify.FormatDiscord, Event: notify.New(notify.KindTest, "t", "m", at)}
		w := &notify.DeliverWorker{Settings: settings("true")}
		if ev, _ := workOne(t, pool, w, a); ev != river.EventKindJobFailed {
			t.Errorf("a 503: %s, want failed (retried)", ev)
		}
		if ev, _ := workOne(t, pool, w, a); ev != river.EventKindJobCompleted || posts.Load() != 2 {
			t.Errorf("a 200: %s after %d POSTs, want completed", ev, posts.Load())
		}
		if ev, _ := workOne(t, pool, &notify.DeliverWorker{Settings: settings("")}, a); ev != river.EventKindJobCancelled || posts.Load() != 2 {
			t.Errorf("loopback without notify.allow-private: %s, %d POSTs; want cancelled, none sent", ev, posts.Load())
		}
		a.Target = "gone"
		if ev, _ := workOne(t, pool, w, a); ev != river.EventKindJobCancelled {
			t.Errorf("a webhook no longer configured: %s, want cancelled", ev)
		}
	})

	run("embed", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Input []string `json:"input"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			data := []map[string]any{}
			for i, in := range req.Input {
				if bytes.Contains([]byte(in), []byte("broken")) {
					w.WriteHeader(http.StatusBadRequest)
					_, _ = w.Write([]byte(`{"error":{"message":"input refused","type":"invalid_request_error"}}`))
					return
				}
				data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float32{float32(len(in)), 1, 0.5}})
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "mini", "usage": map[string]int{"prompt_tokens": 3, "total_tokens": 3}})
		}))
		defer srv.Close()
		d := *d
		d.Embedder = func(model string) (embed.Embedder, error) {
			return &embed.Client{BaseURL: srv.URL, Model: model, HTTP: srv.Client(), MaxRetries: 1}, nil
		}
		a := EmbedArgs{UserID: good, Model: "mini", BatchSize: 8, BatchTokens: 1000, MaxInputTokens: 500, Concurrency: 1}
		if ev, rec := workOne(t, pool, &EmbedWorker{d: &d}, a); ev != river.EventKindJobCompleted || rec.Status != "ok" {
			t.Errorf("good user: %s, run %+v", ev, rec)
		} else {
			argsEqual(t, rec, a)
		}
		refused := uuid.New()
		if _, err := pool.Exec(ctx, `INSERT INTO memories (id, user_id, type, content, created_at) VALUES ($1, $2, 'semantic', 'broken', now())`, uuid.New(), refused); err != nil {
			t.Fatal(err)
		}
		a.UserID = refused
		if ev, rec := workOne(t, pool, &EmbedWorker{d: &d}, a); ev != river.EventKindJobCancelled || rec.Status != "failed" {
			t.Errorf("refused user: %s, run %+v; want cancelled, failed", ev, rec)
		}
	})

	run("synthesize_llm", func(t *testing.T) {
		const key = "sk-ant-api03-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"
		srv := llmtest.NewAnthropic(t, key, func(c llmtest.Call) llmtest.Reply {
			if bytes.Contains(c.Body, []byte("POISON")) {
				return llmtest.Reply{Status: 400, Body: llmtest.AnthropicError("invalid_request_error", "content refused")}
			}
			ids := llmtest.ShortIDs(c.Body)
			return llmtest.Reply{Body: llmtest.AnthropicToolUse("record_patterns", llmtest.Answer(llmtest.RequestedTypes(c), ids[0], ids[1]),
				llmtest.Usage{Input: 1000, Output: 200})}
		})
		var ms []memories.Memory
		u1, u2 := uuid.New(), uuid.New()
		ms = append(ms, synthesis.Synthetic(u1, 20, 8, 1)...)
		ms = append(ms, synthesis.Synthetic(u2, 20, 8, 2)...)
		if _, err := memories.Insert(ctx, pool, ms); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `UPDATE memories SET content = content || ' POISON' WHERE user_id = $1`, u2); err != nil {
			t.Fatal(err)
		}
		d := *d
		d.LLM = func(ctx context.Context, a SynthesizeLLMArgs) (*llmsynth.Synthesizer, error) {
			s := &llmsynth.Synthesizer{Provider: &llmsynth.Anthropic{HTTP: llmsynth.HTTP{Client: srv.Client()}, BaseURL: srv.URL, APIKey: key},
				Model: a.Model, ModelKey: "anthropic/" + a.Model, MaxTokens: 1000, MaxOutput: 4000, Types: a.Types, Params: a.Params,
				Limits: llmsynth.Limits{MaxMemories: 40, MaxChars: 100000, MaxMemoryChars: 600}}
			return s, s.Init()
		}
		a := SynthesizeLLMArgs{UserID: u1, Model: "claude-haiku-4-5", Types: llmsynth.Types, Params: params}
		if ev, rec := workOne(t, pool, &SynthesizeLLMWorker{d: &d}, a); ev != river.EventKindJobCompleted || rec.Status != "ok" {
			t.Errorf("good user: %s, run %+v", ev, rec)
		} else {
			argsEqual(t, rec, a)
		}
		a.UserID = u2
		if ev, rec := workOne(t, pool, &SynthesizeLLMWorker{d: &d}, a); ev != river.EventKindJobCancelled || rec.Status != "failed" {
			t.Errorf("refused user: %s, run %+v; want cancelled, failed", ev, rec)
		}

		// profile_update: the good user's profile is built (its four types
		// above gave it lineages and recommendations); again, unchanged, it
		// completes without a call; the refused user's job is cancelled.
		tested[jobs.KindProfileUpdate] = true
		p := ProfileUpdateArgs{UserID: u1, Model: "claude-haiku-4-5"}
		calls := len(srv.Calls())
		if ev, rec := workOne(t, pool, &ProfileUpdateWorker{d: &d}, p); ev != river.EventKindJobCompleted || rec.Status != "ok" {
			t.Errorf("profile of the good user: %s, run %+v", ev, rec)
		} else {
			argsEqual(t, rec, p)
		}
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM helix_profiles WHERE user_id = $1 AND profile->'summary' IS NOT NULL`, u1).Scan(&n); err != nil || n != 1 {
			t.Errorf("profile rows %d (%v), want 1 with a summary", n, err)
		}
		if ev, rec := workOne(t, pool, &ProfileUpdateWorker{d: &d}, p); ev != river.EventKindJobCompleted || rec.Status != "ok" || len(srv.Calls()) != calls+1 {
			t.Errorf("unchanged profile: %s, run %+v, %d calls; want completed, ok, no new call", ev, rec, len(srv.Calls())-calls-1)
		}
		p.UserID = u2
		if ev, rec := workOne(t, pool, &ProfileUpdateWorker{d: &d}, p); ev != river.EventKindJobCancelled || rec.Status != "failed" {
			t.Errorf("refused user's profile: %s, run %+v; want cancelled, failed", ev, rec)
		}
	})

	run("voice_transcribe", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"metadata":{"request_id":"req-1","duration":1.0,"channels":1,"models":["m-1"]},
"results":{"channels":[{"alternatives":[{"transcript":"speech","confidence":0.97,"words":[{"word":"speech","start":0.1,"end":0.3,"confidence":0.99}]}]}]}}`)
		}))
		defer srv.Close()
		d := *d
		d.STT = func(string) (stt.Provider, error) {
			return &stt.Deepgram{HTTP: stt.HTTP{Client: srv.Client()}, BaseURL: srv.URL, APIKey: "dg", ModelName: stt.DeepgramDefaultModel}, nil
		}
		wav, err := filepath.Abs(filepath.Join("..", "..", "testdata", "voice", "speech-s16-22k.wav"))
		if err != nil {
			t.Fatal(err)
		}
		a := TranscribeArgs{UserID: good, Path: wav, Provider: "deepgram", Process: voice.ProcessOptions{VAD: true}, MemoryType: "semantic"}
		if ev, rec := workOne(t, pool, &TranscribeWorker{d: &d}, a); ev != river.EventKindJobCompleted || rec.Status != "ok" {
			t.Errorf("recording: %s, run %+v", ev, rec)
		} else {
			argsEqual(t, rec, a)
		}
		// as the command: the transcript is a memory of the user, committed with the recording
		var mems int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM memories m JOIN helix_voice_memories l ON l.memory_id = m.id
			WHERE m.user_id = $1 AND m.content = 'speech' AND m.type = 'semantic'`, good).Scan(&mems); err != nil || mems != 1 {
			t.Errorf("the worker wrote %d memories of the transcript (%v), want 1", mems, err)
		}
		damaged := filepath.Join(t.TempDir(), "damaged.wav")
		if err := os.WriteFile(damaged, file("testdata/voice/speech-s16-22k.wav")[:30], 0o644); err != nil {
			t.Fatal(err)
		}
		a.Path = damaged
		if ev, rec := workOne(t, pool, &TranscribeWorker{d: &d}, a); ev != river.EventKindJobCancelled || rec.Status != "failed" {
			t.Errorf("damaged file: %s, run %+v; want cancelled, failed", ev, rec)
		}
	})
}
