package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/llmsynth/llmtest"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/testbin"
)

// failCase is one job kind of the differential test with a failing unit.
type failCase struct {
	kind string // the River kind (the job table's)
	env  []string
	seed func(t *testing.T, pool *pgxpool.Pool)
	args []string // the in-process command line; the enqueue adds --enqueue
	exit exitcode.Code
	rows string // a digest of the rows the job writes
	// run is the in-process run's job_runs status ("": the failing unit
	// stops before a run is recorded, both ways); the failing unit's own
	// run on the worker records failed, or the same status when its job
	// completes (a unit whose failures are its items').
	run string
	// state is the failing unit's River state ("": every job completes).
	state string
	// counts are the count keys whose sum over the worker's runs is the
	// in-process run's.
	counts []string
}

// TestFailingUnitEveryKind is the differential test of issue 34 for every
// job kind but synthesize_users (TestSynthesizeFailingUser): the same data
// with one unit that fails (a provider refusing one user's request, a
// damaged recording, a malformed change, document or row), run in-process
// and through `helix worker`, writes the same rows, records the same
// outcome (the in-process run's status and error name the failing unit
// and carry the worker's error for it; the counts add up) and leaves the
// failing unit's job cancelled (retrying cannot help), never retried.
func TestFailingUnitEveryKind(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helix processes: skipped with -short")
	}
	t.Parallel()
	bad := uuid.NewSHA1(uuid.NameSpaceOID, []byte("bad"))
	const user = "6f1c2a4e-0b7d-4d8e-9a51-3c2f1e0d9b8a"
	const llmKey = "sk-ant-api03-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"
	llm := llmtest.NewAnthropic(t, llmKey, func(c llmtest.Call) llmtest.Reply {
		if bytes.Contains(c.Body, []byte("POISON")) {
			return llmtest.Reply{Status: 400, Body: llmtest.AnthropicError("invalid_request_error", "messages: content refused")}
		}
		ids := llmtest.ShortIDs(c.Body)
		return llmtest.Reply{Body: llmtest.AnthropicToolUse("record_patterns", llmtest.Answer(llmtest.RequestedTypes(c), ids[0], ids[1]),
			llmtest.Usage{Input: 1000, Output: 200})}
	})
	wav, err := os.ReadFile(repoFile(t, "testdata/voice/speech-s16-22k.wav"))
	if err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(t.TempDir(), "damaged.wav")
	if err := os.WriteFile(damaged, wav[:30], 0o644); err != nil {
		t.Fatal(err)
	}
	badCatalog := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(badCatalog, []byte(`{"openai": {"models": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	badManifest := serveFile(t, repoFile(t, "testdata/catalog/api-2026-06-14.json")) // JSON, but no manifest

	cases := []failCase{{
		kind: jobs.KindSynthesize,
		seed: func(t *testing.T, pool *pgxpool.Pool) {
			seed(t, pool, 6, 6)
			mustExec(t, pool, `INSERT INTO memories (id, user_id, type, content, embedding, created_at)
				VALUES (md5('bad')::uuid, $1, 'episodic', 'broken', ARRAY[1, NULL]::real[], timestamptz '2026-02-01')`, bad)
		},
		args: []string{"synthesize", "--all-users", "--users-per-job", "1", "--min-cluster-size", "2", "--min-confidence", "0"},
		exit: exitcode.Partial, run: "partial", state: "cancelled", counts: []string{"done", "memories", "patterns"},
		rows: synthesisDigest,
	}, {
		kind: jobs.KindEmbed,
		env:  []string{"HELIX_EMBED_BASE_URL=" + fakeEmbeddings(t, "POISON"), "HELIX_EMBED_API_KEY=", "OPENAI_API_KEY="},
		seed: func(t *testing.T, pool *pgxpool.Pool) {
			seed(t, pool, 5, 3)
			mustExec(t, pool, `UPDATE memories SET content = content || ' POISON' WHERE user_id = md5('u3')::uuid`)
		},
		args: []string{"embed", "--all-users", "--model", "mini"},
		exit: exitcode.Partial, run: "partial", state: "cancelled", counts: []string{"embedded"},
		rows: `SELECT count(embedding) || ':' || md5(string_agg(id::text || coalesce(embedding::text, '-') || coalesce(embedding_model, '-'), ',' ORDER BY id)) FROM memories`,
	}, {
		kind: jobs.KindSynthesizeLLM,
		env:  []string{"HELIX_LLM_ANTHROPIC_BASE_URL=" + llm.URL, "ANTHROPIC_API_KEY=" + llmKey, "HELIX_LLM_MAX_TOKENS=1000"},
		seed: func(t *testing.T, pool *pgxpool.Pool) {
			var ms []memories.Memory
			for i := range 3 {
				ms = append(ms, synthesis.Synthetic(uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i)}), 20, 8, uint64(i+1))...)
			}
			if _, err := memories.Insert(context.Background(), pool, ms); err != nil {
				t.Fatal(err)
			}
			mustExec(t, pool, `UPDATE memories SET content = content || ' POISON' WHERE user_id = $1`, uuid.NewSHA1(uuid.NameSpaceOID, []byte{1}))
		},
		args: []string{"synthesize", "--llm", "--all-users", "--concurrency", "1"},
		exit: exitcode.Partial, run: "partial", state: "cancelled", counts: []string{"patterns"},
		rows: `SELECT count(*) || ':' || coalesce(md5(string_agg(user_id || pattern_type || content::text || array_to_string(evidence, ','), E'\n'
			ORDER BY user_id, pattern_type, content::text)), '') FROM memory_patterns`,
	}, {
		kind: jobs.KindProfileUpdate,
		env:  []string{"HELIX_LLM_ANTHROPIC_BASE_URL=" + llm.URL, "ANTHROPIC_API_KEY=" + llmKey, "HELIX_LLM_MAX_TOKENS=1000"},
		seed: func(t *testing.T, pool *pgxpool.Pool) {
			var ms []memories.Memory
			for i := range 3 {
				ms = append(ms, synthesis.Synthetic(uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i)}), 20, 8, uint64(i+1))...)
			}
			if _, err := memories.Insert(context.Background(), pool, ms); err != nil {
				t.Fatal(err)
			}
			// a live statistical lineage each, as synthesize leaves them
			mustExec(t, pool, `INSERT INTO helix_pattern_lineages (id, user_id, source, kind, status, first_seen_at, last_seen_at, runs_seen, size, content, confidence, updated_at)
				SELECT md5('lineage' || user_id)::uuid, user_id, 'statistical', 'semantic_cluster', 'persisting',
				       timestamptz '2026-10-01', timestamptz '2026-11-01', 4, count(*), 'a theme', 0.9, timestamptz '2026-11-01'
				FROM memories GROUP BY user_id`)
			mustExec(t, pool, `UPDATE memories SET content = content || ' POISON' WHERE user_id = $1`, uuid.NewSHA1(uuid.NameSpaceOID, []byte{1}))
		},
		args: []string{"profile", "update", "--all-users"},
		exit: exitcode.Partial, run: "partial", state: "cancelled", counts: []string{"updated", "calls"},
		rows: `SELECT count(*) || ':' || coalesce(md5(string_agg(user_id::text || coalesce(profile->'summary'->>'text', '-')
			|| (SELECT coalesce(string_agg((f->>'layer') || (f->>'title'), ','), '') FROM jsonb_array_elements(profile->'findings') f)
			|| jsonb_array_length(profile->'lineages') || jsonb_array_length(profile->'recommendations'), E'\n' ORDER BY user_id)), '') FROM helix_profiles`,
	}, {
		kind: jobs.KindTranscribe,
		env:  []string{"DEEPGRAM_API_KEY=dg-key", "HELIX_VOICE_DEEPGRAM_BASE_URL=" + fakeDeepgram(t)},
		args: []string{"voice", "transcribe", "--user-id", user, repoFile(t, "testdata/voice/speech-64k.mp3"), damaged},
		exit: exitcode.Partial, run: "partial", state: "cancelled", counts: []string{"transcribed", "duplicate"},
		rows: `SELECT count(*) || ':' || md5(string_agg(source_name || format || round(duration_seconds::numeric, 3) || encode(sha256, 'hex') || transcript, ',' ORDER BY source_name)) FROM voice_recordings`,
	}, {
		kind: jobs.KindReconcile,
		seed: func(t *testing.T, pool *pgxpool.Pool) {
			mustExec(t, pool, `INSERT INTO sync_changes (entity_type, entity_id, user_id, device_id, clock, ts, op, doc)
				SELECT 'memory', 'e' || (g % 40), md5('u' || (g % 3))::uuid, 'd' || (g % 2),
				       CASE WHEN g = 17 THEN jsonb_build_object('d1', 'x') ELSE jsonb_build_object('d' || (g % 2), g + 1) END,
				       timestamptz '2026-11-01' + g * interval '1 second', CASE WHEN g < 40 THEN 'put' ELSE 'patch' END,
				       jsonb_build_object('f' || (g % 5), g)
				FROM generate_series(0, 199) g`)
		},
		args: []string{"sync", "reconcile", "--batch", "50"},
		exit: exitcode.Partial, run: "partial", counts: []string{"applied", "discarded", "merged", "conflicted", "invalid"},
		rows: `SELECT count(*) || ':' || md5(string_agg(entity_type || '|' || user_id || '|' || entity_id || '|' || doc::text, E'\n'
			ORDER BY entity_type, user_id, entity_id)) || ' ' || (SELECT count(*) || ' ' || string_agg(coalesce(outcome, '-') || coalesce(error, ''), ',' ORDER BY id) FROM sync_changes)
			FROM sync_state`,
	}, {
		kind: jobs.KindDecay,
		seed: func(t *testing.T, pool *pgxpool.Pool) {
			seed(t, pool, 20, 4)
			// a row an old app wrote: no UPDATE can touch it
			mustExec(t, pool, `ALTER TABLE memories DROP CONSTRAINT memories_type_check;
				UPDATE memories SET type = 'legacy' WHERE id = md5('m7-2')::uuid;
				ALTER TABLE memories ADD CONSTRAINT memories_type_check CHECK (type = ANY (ARRAY['episodic', 'semantic', 'procedural'])) NOT VALID`)
		},
		args: []string{"decay", "run", "--full", "--at", "2026-11-20T00:00:00Z", "--forget-below", "0.6", "--chunk-size", "30"},
		exit: exitcode.OK, run: "ok", counts: []string{"skipped"},
		rows: `SELECT coalesce(md5(array_to_string(d, E'\n')), '') FROM (` + decayDigest + `) x(d)`,
	}, {
		kind: jobs.KindCatalogFetch,
		args: []string{"catalog", "fetch", "--source", serveFile(t, badCatalog), "--allow-private"},
		exit: exitcode.Usage, run: "failed", state: "cancelled",
		rows: `SELECT count(*) FROM model_catalog_snapshots`,
	}, {
		kind: jobs.KindManifestImport,
		args: []string{"manifest", "import", badManifest, "--allow-private", "--by", "test"},
		exit: exitcode.Usage, state: "cancelled",
		rows: `SELECT count(*) FROM tool_manifests`,
	}}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			t.Parallel()
			c.check(t)
		})
	}
	// Every kind a command enqueues has its case here (the schedule's kinds
	// run command lines, whose jobs are these; synthesize_users is
	// TestSynthesizeFailingUser's).
	for _, j := range jobs.Table {
		if j.Run == "" || j.Kind == jobs.KindSynthesizeUsers {
			continue
		}
		if !slices.ContainsFunc(cases, func(c failCase) bool { return c.kind == j.Kind }) {
			t.Errorf("job kind %s has no failing-unit case", j.Kind)
		}
	}
}

func (c failCase) check(t *testing.T) {
	job := jobs.MustLookup(c.kind)
	queued, ref := twoDatabases(t, func(pool *pgxpool.Pool) {
		if c.seed != nil {
			c.seed(t, pool)
		}
	})
	p := testbin.Start(t, append(os.Environ(), append([]string{"DATABASE_URL=" + ref, "HELIX_DB_MAX_CONNS=12"}, c.env...)...),
		append(slices.Clone(c.args), "-o", "json")...)
	if code := p.Wait(t, 3*time.Minute); code != int(c.exit) {
		t.Fatalf("in-process %s: exit %d, want %d\n%s", strings.Join(c.args, " "), code, c.exit, p.Stderr.String())
	}
	helix(t, queued, nil, append(slices.Clone(c.args), "--enqueue")...)
	helix(t, queued, c.env, "worker", "--once", "--queues", job.Queue, "--concurrency", "3", "--poll-interval", "200ms")

	if got, want := scalarURL[string](t, queued, c.rows), scalarURL[string](t, ref, c.rows); got != want {
		t.Errorf("rows after the worker differ from the in-process run's:\n worker     %s\n in-process %s", got, want)
	}
	// River: the failing unit's job alone is not completed.
	const notDone = `SELECT coalesce(string_agg(state::text, ','), '') FROM river_job WHERE state <> 'completed'`
	if got := scalarURL[string](t, queued, notDone); got != c.state {
		t.Errorf("jobs not completed: %q, want %q", got, c.state)
	}
	if n := scalarURL[int](t, queued, `SELECT count(*) FROM river_job WHERE kind = $1`, c.kind); n < 2 && c.kind != jobs.KindCatalogFetch && c.kind != jobs.KindManifestImport {
		t.Errorf("%d %s jobs: the failing unit is not one of several", n, c.kind)
	}

	// The run records: the in-process run's outcome, and the failing
	// unit's run on the worker, with the same error.
	type rec struct{ Status, Error string }
	runs := func(url, where string) []rec {
		var out []rec
		js := scalarURL[string](t, url, `SELECT coalesce(json_agg(json_build_object('Status', status, 'Error', coalesce(error, '')) ORDER BY id), '[]')
			FROM job_runs WHERE job = $1 AND `+where, job.Run)
		if err := json.Unmarshal([]byte(js), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	in, failed := runs(ref, "true"), runs(queued, "status <> 'ok'")
	switch {
	case c.run == "":
		if len(in) != 0 || len(failed) != 0 {
			t.Errorf("runs recorded: in-process %v, worker %v; want none (the unit fails before its run)", in, failed)
		}
	case len(in) != 1 || in[0].Status != c.run:
		t.Errorf("in-process runs %v, want one %s", in, c.run)
	case c.state == "" && c.run == "ok":
		if len(failed) != 0 {
			t.Errorf("worker runs not ok: %v", failed)
		}
	case len(failed) != 1:
		t.Errorf("the worker's runs not ok: %v, want the failing unit's", failed)
	default:
		want := "failed"
		if c.state == "" {
			want = c.run // the job completes: its run has the in-process run's status
		}
		f := failed[0]
		if f.Status != want || f.Error == "" || !strings.Contains(in[0].Error, unitError(f.Error)) {
			t.Errorf("failing unit's run on the worker %+v (want status %s), in-process %+v: not the same failure", f, want, in[0])
		}
		t.Logf("in-process: %s: %s\n worker:    %s: %s", in[0].Status, in[0].Error, f.Status, f.Error)
	}
	for _, k := range c.counts {
		const sum = `SELECT coalesce(sum((counts->>$2)::numeric), 0)::text FROM job_runs WHERE job = $1`
		if got, want := scalarURL[string](t, queued, sum, job.Run, k), scalarURL[string](t, ref, sum, job.Run, k); got != want {
			t.Errorf("counts[%s]: the worker's runs add up to %s, the in-process run's is %s", k, got, want)
		}
	}
}

// unitError is the part of a unit's error an in-process run over many
// units quotes: a partial run's own error ("1 of 1 failed: ") is not.
func unitError(s string) string {
	if _, rest, ok := strings.Cut(s, " failed: "); ok && strings.HasPrefix(s, "1 of ") {
		return rest
	}
	return s
}
