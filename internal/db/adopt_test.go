package db_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

// platformColumns are the columns the platform's tables have before helix
// (shared/platform/README.md). Everything else on those tables is helix's.
var platformColumns = map[string][]string{
	"memories":          {"id", "user_id", "type", "content", "embedding", "emotional_valence", "created_at", "last_accessed"},
	"memory_synthesis":  {"id", "user_id", "pattern_type", "memory_ids", "synthesis_content", "confidence_score", "created_at"},
	"psychology_layers": {"id", "user_id", "layer_number", "layer_name", "data", "decay_rate", "last_updated"},
	"skills":            {"id", "name", "description", "wasm_bytecode", "created_at"},
	"voice_recordings":  {"id", "user_id", "transcript", "audio_data", "created_at"},
	"custom_tools":      {"id", "user_id", "name", "code", "parameters", "capabilities", "sandbox_profile", "version", "usage_count", "enabled"},
	"composite_skills":  {"id", "user_id", "name", "steps", "version", "enabled"},
	"memory_patterns":   {"id", "user_id", "pattern_type", "content", "confidence", "evidence", "created_at"},
}

func isPlatformColumn(table, col string) bool {
	for _, c := range platformColumns[table] {
		if c == col {
			return true
		}
	}
	return false
}

func open(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func migrateUp(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	m, err := db.NewMigrator(pool)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Up(context.Background()); err != nil {
		t.Fatalf("migrate up: %v", err)
	}
}

// schema is what helix owns in a database: its tables' columns, the columns
// it added to platform tables, indexes (names left out) and row-level
// security (policies need Supabase's auth schema: TestRowLevelSecurity). Platform columns of tables helix created are left out too:
// their types follow whichever created them.
func schema(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	rows, err := pool.Query(ctx, `
		SELECT c.table_name, c.column_name, c.udt_name, c.is_nullable, coalesce(c.column_default, '')
		FROM information_schema.columns c JOIN helix_tables h ON h.name = c.table_name
		WHERE c.table_schema = 'public'
		UNION
		SELECT c.table_name, c.column_name, c.udt_name, c.is_nullable, coalesce(c.column_default, '')
		FROM information_schema.columns c
		WHERE c.table_schema = 'public' AND c.table_name = ANY($1)`, keys(platformColumns))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tbl, col, typ, null, def string
		if err := rows.Scan(&tbl, &col, &typ, &null, &def); err != nil {
			t.Fatal(err)
		}
		if isPlatformColumn(tbl, col) {
			continue
		}
		out = append(out, fmt.Sprintf("column %s.%s %s null=%s default=%s", tbl, col, typ, null, def))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows, err = pool.Query(ctx, `
		SELECT i.tablename, regexp_replace(i.indexdef, 'INDEX \S+ ON', 'INDEX ON')
		FROM pg_indexes i
		WHERE i.schemaname = 'public' AND i.indexname NOT LIKE '%\_pkey'
		  AND (i.tablename IN (SELECT name FROM helix_tables) OR i.tablename = ANY($1))`, keys(platformColumns))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tbl, def string
		if err := rows.Scan(&tbl, &def); err != nil {
			t.Fatal(err)
		}
		// the unique key psychology_layers gets when helix creates it is the platform's shape, not helix's
		if strings.Contains(def, "(user_id, layer_number)") {
			continue
		}
		out = append(out, "index "+def)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows, err = pool.Query(ctx, `
		SELECT h.name, c.relrowsecurity, coalesce(h.owner_column, '-')
		FROM helix_tables h JOIN pg_class c ON c.oid = to_regclass('public.' || h.name)
		WHERE h.name <> ALL($1)`, keys(platformColumns))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tbl, owner string
		var rls bool
		if err := rows.Scan(&tbl, &rls, &owner); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("table %s rls=%v owner=%s", tbl, rls, owner))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func keys(m map[string][]string) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// platformState is a checksum of every platform table's rows (over the
// platform's columns only) and the definitions of those columns.
func platformState(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	ctx := context.Background()
	st := map[string]string{}
	for tbl, cols := range platformColumns {
		var defs string
		if err := pool.QueryRow(ctx, `
			SELECT string_agg(column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, ''), ', ' ORDER BY column_name)
			FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 AND column_name = ANY($2)`,
			tbl, cols).Scan(&defs); err != nil {
			t.Fatal(err)
		}
		var sum string
		list := pgx.Identifier{tbl}.Sanitize()
		q := fmt.Sprintf(`SELECT count(*) || ':' || coalesce(md5(string_agg(r::text, '|' ORDER BY r::text)), '') FROM (SELECT %s FROM %s) r`,
			strings.Join(cols, ", "), list)
		if err := pool.QueryRow(ctx, q).Scan(&sum); err != nil {
			t.Fatal(err)
		}
		st[tbl] = defs + " rows=" + sum
	}
	return st
}

// TestMigrateAdopts: migrate up on an empty database, on the platform's
// Supabase-shaped database with rows, and on a database migrated by helix
// 0.10 (before adoption) reaches one helix schema, and changes no platform
// row or column.
func TestMigrateAdopts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	empty := open(t, pgtest.Empty(t))
	migrateUp(t, empty)
	want := schema(t, empty)
	if len(want) < 50 {
		t.Fatalf("helix schema looks too small (%d entries): %v", len(want), want)
	}

	for _, fixture := range pgtest.PlatformFixtures {
		t.Run(fixture, func(t *testing.T) { t.Parallel(); adoptPlatform(t, fixture, want) })
	}

	old := open(t, pgtest.Empty(t))
	m, err := db.NewMigratorFS(old, os.DirFS(filepath.Join("..", "..", "testdata", "platform", "helix-0.10")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("helix 0.10 migrations: %v", err)
	}
	m.Close()
	user := "c0000000-0000-4000-8000-000000000003"
	for _, q := range []string{
		`INSERT INTO memories (user_id, type, content) VALUES ('` + user + `', 'episodic', 'kept across the upgrade')`,
		`INSERT INTO memory_synthesis (user_id, pattern_type, memory_ids, synthesis_content, confidence_score, fingerprint)
		 VALUES ('` + user + `', 'semantic_cluster', '{}', 'found by helix 0.10', 0.5, 'fp')`,
		`INSERT INTO voice_recordings (user_id, source_name, format, duration_seconds, sample_rate, channels, audio, sha256, transcript, provider, model)
		 VALUES ('` + user + `', 'a.wav', 'wav', 1, 16000, 1, '\x00', sha256('a'), 'hello', 'deepgram', 'nova-3')`,
		`INSERT INTO skills (name, version, engine, code, sha256) VALUES ('echo', '1', 'wasm', '\x00', 'abc')`,
	} {
		if _, err := old.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	migrateUp(t, old)
	if got := schema(t, old); !reflect.DeepEqual(got, want) {
		t.Errorf("database migrated by helix 0.10: helix schema differs from an empty database's:\n%s", diff(want, got))
	}
	var content, gen, transcript, audio, skill string
	if err := old.QueryRow(ctx, `SELECT
		(SELECT content FROM memories), (SELECT generator FROM memory_synthesis),
		(SELECT transcript || ' ' || id::text FROM voice_recordings), (SELECT encode(audio_data, 'hex') FROM voice_recordings),
		(SELECT name || '@' || version FROM helix_skills)`).Scan(&content, &gen, &transcript, &audio, &skill); err != nil {
		t.Fatal(err)
	}
	if content != "kept across the upgrade" || gen != "helix" || !strings.HasPrefix(transcript, "hello ") || len(transcript) != 6+36 || audio != "00" || skill != "echo@1" {
		t.Errorf("rows after the upgrade: content=%q generator=%q voice=%q audio=%q skill=%q", content, gen, transcript, audio, skill)
	}
}

// adoptPlatform migrates the platform's database (in the shape fixture
// names) twice and checks that it reaches want and no platform row changed.
func adoptPlatform(t *testing.T, fixture string, want []string) {
	ctx := context.Background()
	platform := open(t, pgtest.PlatformAs(t, fixture))
	before := platformState(t, platform)
	migrateUp(t, platform)
	migrateUp(t, platform) // a second run finds nothing to do
	if after := platformState(t, platform); !reflect.DeepEqual(before, after) {
		for tbl := range before {
			if before[tbl] != after[tbl] {
				t.Errorf("platform table %s changed:\nbefore %s\nafter  %s", tbl, before[tbl], after[tbl])
			}
		}
	}
	if got := schema(t, platform); !reflect.DeepEqual(got, want) {
		t.Errorf("platform database: helix schema differs from an empty database's:\n%s", diff(want, got))
	}
	// The platform's tables stay the platform's: not recorded as helix's, RLS untouched.
	var owned []string
	if err := platform.QueryRow(ctx, `SELECT coalesce(array_agg(name ORDER BY name), '{}') FROM helix_tables WHERE name = ANY($1)`,
		keys(platformColumns)).Scan(&owned); err != nil {
		t.Fatal(err)
	}
	if len(owned) > 0 {
		t.Errorf("helix recorded platform tables as its own: %v", owned)
	}
	var rls bool
	if err := platform.QueryRow(ctx, `SELECT relrowsecurity FROM pg_class WHERE oid = 'memory_synthesis'::regclass`).Scan(&rls); err != nil || rls {
		t.Errorf("helix changed row-level security of the platform's memory_synthesis (rls=%v, %v)", rls, err)
	}

}

// TestMigrateDownKeepsPlatformTables: migrate down --all on the platform's
// database removes what helix added and nothing of the platform's.
func TestMigrateDownKeepsPlatformTables(t *testing.T) {
	t.Parallel()
	for _, fixture := range pgtest.PlatformFixtures {
		t.Run(fixture, func(t *testing.T) { t.Parallel(); downKeepsPlatform(t, fixture) })
	}
}

func downKeepsPlatform(t *testing.T, fixture string) {
	ctx := context.Background()
	pool := open(t, pgtest.PlatformAs(t, fixture))
	before := platformState(t, pool)
	migrateUp(t, pool)
	m, err := db.NewMigrator(pool)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Down(ctx, 0); err != nil {
		t.Fatalf("migrate down to 0: %v", err)
	}
	if after := platformState(t, pool); !reflect.DeepEqual(before, after) {
		t.Errorf("platform tables differ after up and down:\nbefore %v\nafter  %v", before, after)
	}
	var left []string
	if err := pool.QueryRow(ctx, `SELECT coalesce(array_agg(table_name::text ORDER BY table_name), '{}') FROM information_schema.tables
		WHERE table_schema = 'public' AND table_name <> ALL($1) AND table_name <> 'goose_db_version'`, keys(platformColumns)).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("helix tables left after migrate down to 0: %v", left)
	}
}

// TestRowLevelSecurity: on the Supabase-shaped database, authenticated user A
// sees only A's rows of every per-user helix table and cannot write B's;
// helix-internal tables and anon get nothing.
func TestRowLevelSecurity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := open(t, pgtest.Platform(t))
	migrateUp(t, pool)
	const a, b = "a0000000-0000-4000-8000-000000000001", "b0000000-0000-4000-8000-000000000002"
	for _, u := range []string{a, b} {
		if _, err := pool.Exec(ctx, `
			INSERT INTO sync_changes (entity_type, entity_id, user_id, device_id, clock, ts, doc)
			VALUES ('note', 'n1', $1, 'laptop', '{"laptop":1}', now(), '{"x":1}')`, u); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `
			INSERT INTO skill_executions (skill_name, skill_sha256, engine, user_id, input_sha256, status, started_at, duration_ms)
			VALUES ('echo', 'abc', 'wasm', $1, 'def', 'ok', now(), 1)`, u); err != nil {
			t.Fatal(err)
		}
	}
	var tables []struct{ name, owner string }
	rows, err := pool.Query(ctx, `SELECT name, coalesce(owner_column, '') FROM helix_tables WHERE NOT append_only ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n, o string
		if err := rows.Scan(&n, &o); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, struct{ name, owner string }{n, o})
	}
	if len(tables) < 15 {
		t.Fatalf("only %d helix tables recorded", len(tables))
	}
	denied := func(err error) bool {
		var pe *pgconn.PgError
		return errors.As(err, &pe) && pe.Code == "42501"
	}
	for _, tb := range tables {
		ident := pgx.Identifier{tb.name}.Sanitize()
		pgtest.AsUser(t, pool, "", func(tx pgx.Tx) {
			var n int
			if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+ident).Scan(&n); !denied(err) {
				t.Errorf("anon reading %s: want permission denied, got %d rows, err %v", tb.name, n, err)
			}
		})
		if tb.owner == "" {
			pgtest.AsUser(t, pool, a, func(tx pgx.Tx) {
				var n int
				if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+ident).Scan(&n); !denied(err) {
					t.Errorf("authenticated reading helix-internal %s: want permission denied, got %d rows, err %v", tb.name, n, err)
				}
			})
			continue
		}
		var total, mine int
		if err := pool.QueryRow(ctx, fmt.Sprintf("SELECT count(*), count(*) FILTER (WHERE %s = $1) FROM %s", pgx.Identifier{tb.owner}.Sanitize(), ident), a).Scan(&total, &mine); err != nil {
			t.Fatal(err)
		}
		pgtest.AsUser(t, pool, a, func(tx pgx.Tx) {
			var seen, others int
			if err := tx.QueryRow(ctx, fmt.Sprintf("SELECT count(*), count(*) FILTER (WHERE %s <> $1) FROM %s", pgx.Identifier{tb.owner}.Sanitize(), ident), a).Scan(&seen, &others); err != nil {
				t.Errorf("user A reading %s: %v", tb.name, err)
				return
			}
			if seen != mine || others != 0 {
				t.Errorf("user A sees %d rows of %s (%d of others); A owns %d of %d", seen, tb.name, others, mine, total)
			}
			tag, err := tx.Exec(ctx, fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s = $1", ident, pgx.Identifier{tb.owner}.Sanitize(), pgx.Identifier{tb.owner}.Sanitize(), pgx.Identifier{tb.owner}.Sanitize()), b)
			if err != nil || tag.RowsAffected() != 0 {
				t.Errorf("user A updating B's rows of %s: %d rows, %v", tb.name, tag.RowsAffected(), err)
			}
		})
	}
	// A's share of the rows seeded above, and a write into B's name refused.
	pgtest.AsUser(t, pool, a, func(tx pgx.Tx) {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM sync_changes`).Scan(&n); err != nil || n != 1 {
			t.Errorf("user A sees %d sync_changes, want 1 (%v)", n, err)
		}
		_, err := tx.Exec(ctx, `INSERT INTO sync_changes (entity_type, entity_id, user_id, device_id, clock, ts, doc)
			VALUES ('note', 'n2', $1, 'phone', '{"phone":1}', now(), '{}')`, b)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("user A inserting a row for B: want a row-level security violation, got %v", err)
		}
	})
}

// TestAuditAppendOnly: as authenticated user A, A's own rows of every audit
// table can be read, and neither changed, deleted nor added to; B's are not
// seen. helix itself (the owner) still writes and deletes them.
func TestAuditAppendOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := open(t, pgtest.Platform(t))
	migrateUp(t, pool)
	const a, b = "a0000000-0000-4000-8000-000000000001", "b0000000-0000-4000-8000-000000000002"
	var audit []string
	if err := pool.QueryRow(ctx, `SELECT array_agg(name ORDER BY name) FROM helix_tables WHERE append_only`).Scan(&audit); err != nil {
		t.Fatal(err)
	}
	want := []string{"composite_skill_executions", "helix_llm_usage", "helix_memory_search_calls", "helix_pattern_lineages",
		"helix_profiles", "helix_recommendations", "skill_executions", "tool_executions"}
	if !reflect.DeepEqual(audit, want) {
		t.Fatalf("append-only tables %v, want %v", audit, want)
	}
	insert := map[string]string{
		"tool_executions": `INSERT INTO tool_executions (tool_name, tool_version, kind, user_id, input_sha256, status, started_at, duration_ms)
			VALUES ('weather', '1', 'http', $1, 'abc', 'ok', now(), 1)`,
		"skill_executions": `INSERT INTO skill_executions (skill_name, skill_sha256, engine, user_id, input_sha256, status, started_at, duration_ms)
			VALUES ('echo', 'abc', 'wasm', $1, 'def', 'ok', now(), 1)`,
		"composite_skill_executions": `INSERT INTO composite_skill_executions (name, version, sha256, user_id, status, input, started_at)
			VALUES ('morning', '1', 'abc', $1, 'ok', '{}', now())`,
		"helix_llm_usage": `INSERT INTO helix_llm_usage (user_id, model, brief_sha256, pattern_types, status)
			VALUES ($1, 'anthropic/claude-haiku-4-5', 'abc', '{narrative_themes}', 'ok')`,
		"helix_memory_search_calls": `INSERT INTO helix_memory_search_calls (user_id, client, query_sha256, mode, result_limit, status, started_at, duration_ms)
			VALUES ($1, 'mcp:t', 'abc', 'text', 10, 'ok', now(), 1)`,
		"helix_pattern_lineages": `INSERT INTO helix_pattern_lineages (id, user_id, source, kind, status, first_seen_at, last_seen_at, runs_seen, size, updated_at)
			VALUES (gen_random_uuid(), $1, 'statistical', 'semantic_cluster', 'new', now(), now(), 1, 5, now())`,
		"helix_profiles": `INSERT INTO helix_profiles (user_id, profile, basis, updated_at) VALUES ($1, '{}', 'x', now())`,
		// (a user may set one column of it, status: TestRecommendationStatusRLS in internal/llmsynth)
		"helix_recommendations": `INSERT INTO helix_recommendations (user_id, pattern_type, lineage_id, text, created_at)
			VALUES ($1, 'narrative_themes', gen_random_uuid(), 'notice it', now())`,
	}
	denied := func(err error) bool {
		var pe *pgconn.PgError
		return errors.As(err, &pe) && pe.Code == "42501"
	}
	for _, tbl := range audit {
		for _, u := range []string{a, b} {
			if _, err := pool.Exec(ctx, insert[tbl], u); err != nil {
				t.Fatalf("%s: %v", tbl, err)
			}
		}
		ident := pgx.Identifier{tbl}.Sanitize()
		pgtest.AsUser(t, pool, "", func(tx pgx.Tx) {
			var n int
			if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+ident).Scan(&n); !denied(err) {
				t.Errorf("anon reading %s: want permission denied, got %d rows, err %v", tbl, n, err)
			}
		})
		pgtest.AsUser(t, pool, a, func(tx pgx.Tx) {
			var mine, others int
			if err := tx.QueryRow(ctx, "SELECT count(*) FILTER (WHERE user_id = $1), count(*) FILTER (WHERE user_id <> $1) FROM "+ident, a).Scan(&mine, &others); err != nil || mine != 1 || others != 0 {
				t.Errorf("user A reading %s: %d own rows, %d of others (%v); want 1 and 0", tbl, mine, others, err)
			}
		})
		for verb, q := range map[string]string{
			"UPDATE": "UPDATE " + ident + " SET user_id = user_id WHERE user_id = $1",
			"DELETE": "DELETE FROM " + ident + " WHERE user_id = $1",
			"INSERT": insert[tbl],
		} {
			pgtest.AsUser(t, pool, a, func(tx pgx.Tx) {
				if tag, err := tx.Exec(ctx, q, a); !denied(err) {
					t.Errorf("user A: %s of own %s rows: want permission denied, got %d rows, err %v", verb, tbl, tag.RowsAffected(), err)
				}
			})
		}
		// helix, the owner, still deletes them (its retention)
		if tag, err := pool.Exec(ctx, "DELETE FROM "+ident+" WHERE user_id = $1", a); err != nil || tag.RowsAffected() != 1 {
			t.Errorf("helix deleting A's %s rows: %d rows, %v", tbl, tag.RowsAffected(), err)
		}
	}
}

func diff(want, got []string) string {
	w, g := map[string]bool{}, map[string]bool{}
	for _, s := range want {
		w[s] = true
	}
	for _, s := range got {
		g[s] = true
	}
	var b strings.Builder
	for _, s := range want {
		if !g[s] {
			fmt.Fprintf(&b, "  missing: %s\n", s)
		}
	}
	for _, s := range got {
		if !w[s] {
			fmt.Fprintf(&b, "  extra:   %s\n", s)
		}
	}
	return b.String()
}
