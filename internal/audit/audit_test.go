package audit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/audit"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

const userA = "6f1c2d4e-8a9b-4c3d-9e8f-7a6b5c4d3e2f"

// seed writes n rows into every audit table as helix's writers do (plain
// INSERTs; the composite run first as running, then finished).
func seed(t testing.TB, q db.Querier, n int) {
	t.Helper()
	ctx := context.Background()
	var tool int64
	if err := q.QueryRow(ctx, `INSERT INTO tool_manifests (name, version, source, sha256, manifest, state)
		VALUES ($1, '1', 'test', 'x', '{}', 'approved') RETURNING id`, fmt.Sprintf("t%d", time.Now().UnixNano())).Scan(&tool); err != nil {
		t.Fatalf("tool manifest: %v", err)
	}
	for i := 0; i < n; i++ {
		at := time.Date(2026, 11, 1, 12, i, 0, 123456000, time.UTC)
		for _, s := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO skill_executions (skill_name, skill_sha256, engine, user_id, input_sha256, status, started_at, duration_ms, output, limits)
			  VALUES ($1, 'abc', 'js', $2, 'def', 'ok', $3, 1.25, '{"n":1}', '{"timeout_ms": 1000}')`, []any{fmt.Sprintf("s%d", i), userA, at}},
			{`INSERT INTO tool_executions (tool_id, tool_name, tool_version, kind, user_id, input_sha256, status, started_at, duration_ms, bytes_sent)
			  VALUES ($1, 't', '1', 'http', $2, 'x', 'ok', $3, 0.1, 10)`, []any{tool, userA, at}},
			{`INSERT INTO tool_audit (tool_id, actor, at, from_state, to_state, reason) VALUES ($1, 'op', $2, 'proposed', 'approved', 'ok')`, []any{tool, at}},
			{`INSERT INTO helix_llm_usage (user_id, model, brief_sha256, pattern_types, status, cost_usd, created_at)
			  VALUES ($1, 'anthropic/x', 'b', '{a,b}', 'ok', 0.1234567890123, $2)`, []any{userA, at}},
			{`INSERT INTO helix_memory_search_calls (user_id, client, query_sha256, mode, result_limit, status, started_at, duration_ms)
			  VALUES ($1, 'mcp:test', 'q', 'text', 10, 'ok', $2, 3.5)`, []any{userA, at}},
		} {
			if _, err := q.Exec(ctx, s.sql, s.args...); err != nil {
				t.Fatalf("seed: %v", err)
			}
		}
		var run int64
		if err := q.QueryRow(ctx, `INSERT INTO composite_skill_executions (name, version, sha256, user_id, status, input, started_at)
			VALUES ('c', '1', 'h', $1, 'running', '{"x": [1, 2.50]}', $2) RETURNING id`, userA, at).Scan(&run); err != nil {
			t.Fatalf("seed composite: %v", err)
		}
		if _, err := q.Exec(ctx, `UPDATE composite_skill_executions SET status = 'ok', output = '{"y": "é"}', finished_at = $2, duration_ms = 5 WHERE id = $1`,
			run, at.Add(time.Second)); err != nil {
			t.Fatalf("finish composite: %v", err)
		}
	}
}

func verify(t *testing.T, q db.Querier, o audit.Options) map[string]audit.Result {
	t.Helper()
	res, err := audit.Verify(context.Background(), q, o)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	m := map[string]audit.Result{}
	for _, r := range res {
		m[r.Table] = r
	}
	return m
}

func exec(t *testing.T, q db.Querier, sql string, args ...any) {
	t.Helper()
	if _, err := q.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func TestChainsIntact(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	seed(t, pool, 5)
	res := verify(t, pool, audit.Options{})
	if len(res) != 6 {
		t.Fatalf("verified %d tables, want the 6 audit tables: %v", len(res), res)
	}
	for name, r := range res {
		if !r.Intact || r.Rows != 5 || r.Seq != 5 {
			t.Errorf("%s: %+v, want intact with 5 rows", name, r)
		}
	}
	// a running composite run is not in the chain yet, and not a problem
	exec(t, pool, `INSERT INTO composite_skill_executions (name, version, sha256, status, input, started_at) VALUES ('c', '1', 'h', 'running', '{}', now())`)
	if r := verify(t, pool, audit.Options{Table: "composite_skill_executions"})["composite_skill_executions"]; !r.Intact || r.Seq != 5 {
		t.Errorf("with a running composite: %+v", r)
	}
}

// The chain does not depend on the session's settings: a row written from
// Tokyo with few float digits verifies from UTC, and the other way round.
func TestChainIndependentOfSessionSettings(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	tokyo := pgtest.Open(t, url+"&timezone=Asia/Tokyo&options=-c%20extra_float_digits%3D-3")
	seed(t, tokyo, 3)
	for _, q := range []*pgxpool.Pool{pgtest.Open(t, url), tokyo} {
		for name, r := range verify(t, q, audit.Options{}) {
			if !r.Intact {
				t.Errorf("%s: %+v", name, r.Problem)
			}
		}
	}
}

func TestTamperingFound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, table, kind string
		id                int64 // the row named, 0 for none
		anchor            bool  // verify with an anchor taken before the tampering
		tamper            []string
	}{
		{"update", "tool_executions", "changed", 3, false,
			[]string{`UPDATE tool_executions SET status = 'ok', http_status = 200 WHERE id = 3`}},
		{"update jsonb", "composite_skill_executions", "changed", 2, false,
			[]string{`UPDATE composite_skill_executions SET output = '{"y": "e"}' WHERE id = 2`}},
		{"update the hash too", "skill_executions", "changed", 2, false,
			[]string{`UPDATE skill_executions SET status = 'error', chain_hash = sha256('x') WHERE id = 2`}},
		{"delete", "skill_executions", "deleted", 4, false,
			[]string{`DELETE FROM skill_executions WHERE id = 3`}},
		{"delete newest, anchored", "helix_llm_usage", "truncated", 0, true,
			[]string{`DELETE FROM helix_llm_usage WHERE id >= 4`}},
		{"forged insert past the trigger", "tool_audit", "unchained", 6, false, []string{
			`ALTER TABLE tool_audit DISABLE TRIGGER helix_audit_chain`,
			`INSERT INTO tool_audit (tool_id, actor, at, from_state, to_state) SELECT tool_id, 'op', now(), 'revoked', 'approved' FROM tool_audit LIMIT 1`,
			`ALTER TABLE tool_audit ENABLE TRIGGER helix_audit_chain`}},
		{"forged insert in the middle", "helix_memory_search_calls", "changed", 6, false, []string{
			`ALTER TABLE helix_memory_search_calls DISABLE TRIGGER helix_audit_chain`,
			`UPDATE helix_memory_search_calls SET chain_seq = -chain_seq - 1 WHERE chain_seq >= 3`,
			`UPDATE helix_memory_search_calls SET chain_seq = -chain_seq WHERE chain_seq < 0`,
			`INSERT INTO helix_memory_search_calls (user_id, client, query_sha256, mode, result_limit, status, started_at, duration_ms, chain_seq, chain_hash)
			 SELECT user_id, client, query_sha256, mode, result_limit, status, started_at, duration_ms, 3, chain_hash FROM helix_memory_search_calls WHERE chain_seq = 2`,
			`ALTER TABLE helix_memory_search_calls ENABLE TRIGGER helix_audit_chain`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pool := pgtest.New(t)
			seed(t, pool, 5)
			var o audit.Options
			if c.anchor {
				a, err := audit.TakeAnchor(context.Background(), pool, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				o.Anchor = &a
			}
			for _, s := range c.tamper {
				exec(t, pool, s)
			}
			res := verify(t, pool, o)
			for name, r := range res {
				if name == c.table {
					continue
				}
				if !r.Intact {
					t.Errorf("%s, untouched: %+v", name, r.Problem)
				}
			}
			r := res[c.table]
			if r.Intact || r.Problem.Kind != c.kind || !strings.Contains(r.Problem.Message, c.table) {
				t.Fatalf("%s after %s: %+v %+v, want %s", c.table, c.name, r, r.Problem, c.kind)
			}
			if c.id != 0 && (r.Problem.ID == nil || *r.Problem.ID != c.id || !strings.Contains(r.Problem.Message, fmt.Sprintf("row id %d", c.id))) {
				t.Errorf("problem %+v names the wrong row, want id %d", r.Problem, c.id)
			}
		})
	}
}

// An anchor taken before the newest rows were deleted finds the truncation;
// without the anchor the shorter chain looks whole (the newest row is the
// head: nothing else in the database records how long the chain was).
func TestAnchorFindsRewrittenEnd(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	seed(t, pool, 5)
	ctx := context.Background()
	a, err := audit.TakeAnchor(ctx, pool, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(a)
	anchor, err := audit.ParseAnchor(b)
	if err != nil {
		t.Fatalf("parse what anchor printed: %v\n%s", err, b)
	}
	if r := verify(t, pool, audit.Options{Anchor: anchor}); !r["tool_executions"].Intact {
		t.Fatalf("intact chain with its own anchor: %+v", r["tool_executions"].Problem)
	}
	exec(t, pool, `DELETE FROM tool_executions WHERE chain_seq >= 4`)
	if r := verify(t, pool, audit.Options{})["tool_executions"]; !r.Intact {
		t.Fatalf("without the anchor a consistent shorter chain verifies; got %+v", r.Problem)
	}
	r := verify(t, pool, audit.Options{Anchor: anchor})["tool_executions"]
	if r.Intact || r.Problem.Kind != "truncated" || !strings.Contains(r.Problem.Message, "chain seq 5") {
		t.Errorf("with the anchor: %+v", r.Problem)
	}
}

// --since walks from the first row at or after the time, trusting the link
// before it: a change before it is not looked at, one after it is found.
func TestSince(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	seed(t, pool, 6) // rows at 12:00 … 12:05
	exec(t, pool, `UPDATE skill_executions SET output = 'x' WHERE id = 2`)
	since := time.Date(2026, 11, 1, 12, 3, 0, 0, time.UTC)
	r := verify(t, pool, audit.Options{Table: "skill_executions", Since: since})["skill_executions"]
	if !r.Intact || r.From != 4 || r.Rows != 3 {
		t.Errorf("since 12:03: %+v %+v, want rows 4-6 checked and intact", r, r.Problem)
	}
	exec(t, pool, `UPDATE skill_executions SET output = 'x' WHERE id = 5`)
	r = verify(t, pool, audit.Options{Table: "skill_executions", Since: since})["skill_executions"]
	if r.Intact || *r.Problem.ID != 5 {
		t.Errorf("since 12:03 after changing row 5: %+v", r.Problem)
	}
	if _, err := audit.Verify(context.Background(), pool, audit.Options{Table: "memories"}); err == nil || !strings.Contains(err.Error(), "not an audit table") {
		t.Errorf("--table memories: %v", err)
	}
}

// Writers on many connections at once: every row gets one place in the
// chain, in commit order, and the chain verifies.
func TestConcurrentAppends(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				// two rows a statement, two statements a transaction
				if _, err := pool.Exec(context.Background(), `BEGIN;
					INSERT INTO skill_executions (skill_name, skill_sha256, engine, input_sha256, status, started_at, duration_ms)
					SELECT 'w', 'a', 'js', 'b', 'ok', clock_timestamp(), g FROM generate_series(1, 2) g;
					INSERT INTO skill_executions (skill_name, skill_sha256, engine, input_sha256, status, started_at, duration_ms)
					SELECT 'w', 'a', 'js', 'b', 'ok', clock_timestamp(), g FROM generate_series(1, 2) g;
					COMMIT`); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if r := verify(t, pool, audit.Options{Table: "skill_executions"})["skill_executions"]; !r.Intact || r.Seq != 800 || r.Rows != 800 {
		t.Errorf("%+v %+v", r, r.Problem)
	}
}

// A rolled-back write leaves no link; a transaction that cannot see the
// newest link (REPEATABLE READ, its snapshot taken before another append
// committed) fails on chain_seq's unique index instead of forking the chain.
func TestRollbackAndStaleSnapshot(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	ctx := context.Background()
	const insert = `INSERT INTO skill_executions (skill_name, skill_sha256, engine, input_sha256, status, started_at, duration_ms)
		VALUES ($1, 'a', 'js', 'b', 'ok', now(), 1)`
	exec(t, pool, insert, "first")
	exec(t, pool, `BEGIN; INSERT INTO skill_executions (skill_name, skill_sha256, engine, input_sha256, status, started_at, duration_ms)
		VALUES ('rolled back', 'a', 'js', 'b', 'ok', now(), 1); ROLLBACK`)
	exec(t, pool, insert, "second")

	stale, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stale.Rollback(ctx)
	if _, err := stale.Exec(ctx, `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`); err != nil {
		t.Fatal(err)
	}
	if _, err := stale.Exec(ctx, `SELECT count(*) FROM skill_executions`); err != nil { // takes the snapshot
		t.Fatal(err)
	}
	exec(t, pool, insert, "third")
	_, err = stale.Exec(ctx, insert, "stale")
	if err == nil || !strings.Contains(err.Error(), "skill_executions_chain_idx") {
		t.Fatalf("append from a stale snapshot: %v, want a unique violation on skill_executions_chain_idx", err)
	}
	stale.Rollback(ctx)

	var names []string
	rows, _ := pool.Query(ctx, `SELECT skill_name FROM skill_executions ORDER BY chain_seq`)
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	if rows.Err() != nil || strings.Join(names, ",") != "first,second,third" {
		t.Errorf("chain order %v %v, want first,second,third", names, rows.Err())
	}
	if r := verify(t, pool, audit.Options{Table: "skill_executions"})["skill_executions"]; !r.Intact || r.Seq != 3 {
		t.Errorf("%+v %+v", r, r.Problem)
	}
}

// Upgrading a database that already holds audit rows chains them, and
// migrating down takes the chains away again without touching the rows.
func TestMigrationChainsExistingRows(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	ctx := context.Background()
	m, err := db.NewMigrator(pool)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Down(ctx, 239); err != nil {
		t.Fatalf("migrate down: %v", err)
	}
	seed(t, pool, 4)
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("migrate up over existing rows: %v", err)
	}
	for name, r := range verify(t, pool, audit.Options{}) {
		if !r.Intact || r.Rows != 4 {
			t.Errorf("%s after the upgrade: %+v %+v", name, r, r.Problem)
		}
	}
	seed(t, pool, 1)
	if r := verify(t, pool, audit.Options{})["tool_audit"]; !r.Intact || r.Rows != 5 {
		t.Errorf("appending after the upgrade: %+v %+v", r, r.Problem)
	}
	if _, err := m.Down(ctx, 239); err != nil {
		t.Fatalf("migrate down again: %v", err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM skill_executions`).Scan(&n); err != nil || n != 5 {
		t.Errorf("rows after down: %d %v", n, err)
	}
}

func TestParseAnchor(t *testing.T) {
	h := strings.Repeat("ab", 32)
	for in, want := range map[string]string{
		`{"at":"2026-11-01T00:00:00Z","heads":[{"table":"t","seq":3,"hash":"` + h + `"}]}`:              "",
		`{"at":"2026-11-01T00:00:00Z","heads":[]}`:                                                      "no heads",
		`{"heads":[{"table":"t","seq":-1,"hash":"` + h + `"}]}`:                                         "negative seq",
		`{"heads":[{"table":"t","seq":1,"hash":"abc"}]}`:                                                "64 hex",
		`{"heads":[{"table":"t","seq":1,"hash":"` + h + `"},{"table":"t","seq":1,"hash":"` + h + `"}]}`: "twice",
		`{"heads":[{"table":"t","seq":1,"hash":"` + h + `"}]} {}`:                                       "more than one",
		`{"heads":[{"table":"t","seq":1,"hash":"` + h + `","extra":1}]}`:                                "unknown field",
		`[`: "not an audit anchor",
	} {
		_, err := audit.ParseAnchor([]byte(in))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

func FuzzParseAnchor(f *testing.F) {
	f.Add([]byte(`{"at":"2026-11-01T00:00:00Z","heads":[{"table":"t","seq":3,"hash":"` + strings.Repeat("0", 64) + `"}]}`))
	f.Add([]byte(`{"heads":[{"table":"","seq":0,"hash":""}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := audit.ParseAnchor(b)
		if err != nil {
			return
		}
		// what parses is a valid anchor, and prints back to one that parses the same
		out, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		again, err := audit.ParseAnchor(out)
		if err != nil || len(again.Heads) != len(a.Heads) {
			t.Fatalf("round trip: %v %s", err, out)
		}
	})
}
