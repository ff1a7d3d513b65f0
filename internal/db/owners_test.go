package db_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

// ownedTables are the registries every user owns items of (issue 42), and a
// row each: $1 is the owner (NULL: shared), $2 a name.
var ownedTables = map[string]string{
	"helix_skills": `INSERT INTO helix_skills (user_id, name, version, engine, code, sha256)
		VALUES ($1, $2, '1', 'js', '\x00', 'abc')`,
	"helix_composite_skills": `INSERT INTO helix_composite_skills (user_id, name, version, definition, sha256)
		VALUES ($1, $2, '1', '{}', 'abc')`,
	"tool_manifests": `INSERT INTO tool_manifests (user_id, name, version, source, sha256, manifest, state)
		VALUES ($1, $2, '1', 'x.json', 'abc', '{}', 'proposed')`,
	"helix_schedules": `INSERT INTO helix_schedules (user_id, name, spec, argv, next_tick)
		VALUES ($1, $2, '@daily', '{skill,exec,x}', now())`,
}

// userWritable are the registries a user may write their own rows of
// through the API; tools and schedules go through helix.
var userWritable = map[string]bool{"helix_skills": true, "helix_composite_skills": true}

func migrateTo(t *testing.T, pool *pgxpool.Pool, version int64) {
	t.Helper()
	m, err := db.NewMigrator(pool)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Up(context.Background()); err != nil {
		t.Fatalf("migrate up: %v", err)
	}
	if version > 0 {
		if _, err := m.Down(context.Background(), version); err != nil {
			t.Fatalf("migrate down to %d: %v", version, err)
		}
	}
}

// TestOwnersMigrationKeepsSharedItems: a database holding skills, composites,
// tools (with their permissions and audit) and schedules before owners
// existed keeps every one of them, shared; down again keeps them too, and is
// refused while a user owns something.
func TestOwnersMigrationKeepsSharedItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := open(t, pgtest.Platform(t))
	migrateTo(t, pool, 195)
	for _, q := range []string{
		`INSERT INTO helix_skills (name, version, engine, code, sha256) VALUES ('summary', '1', 'js', '\x00', 'a1'), ('summary', '2', 'js', '\x01', 'a2'), ('rank', '1', 'wasm', '\x02', 'a3')`,
		`INSERT INTO helix_composite_skills (name, version, definition, sha256) VALUES ('brief', '1', '{"steps": []}', 'c1')`,
		`WITH t AS (INSERT INTO tool_manifests (name, version, source, sha256, manifest, state) VALUES ('weather', '1', 'w.json', 't1', '{"name": "weather"}', 'approved') RETURNING id),
			p AS (INSERT INTO tool_permissions (tool_id, kind, value) SELECT id, 'host', 'api.example.com' FROM t)
			INSERT INTO tool_audit (tool_id, actor, at, from_state, to_state) SELECT id, 'operator', now(), 'proposed', 'approved' FROM t`,
		`INSERT INTO helix_schedules (name, spec, argv, next_tick) VALUES ('nightly-decay', '0 3 * * *', '{decay,run,--all-users}', now()), ('weekly', '@weekly', '{synthesize,--all-users}', now())`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	snapshot := func() string {
		var s string
		if err := pool.QueryRow(ctx, `SELECT concat_ws(' | ',
			(SELECT string_agg(name || '@' || version || ':' || sha256 || ':' || encode(code, 'hex'), ',' ORDER BY id) FROM helix_skills),
			(SELECT string_agg(name || '@' || version || ':' || definition::text, ',' ORDER BY id) FROM helix_composite_skills),
			(SELECT string_agg(name || '@' || version || ':' || state || ':' || manifest::text, ',' ORDER BY id) FROM tool_manifests),
			(SELECT string_agg(kind || '=' || value, ',') FROM tool_permissions),
			(SELECT string_agg(from_state || '>' || to_state, ',') FROM tool_audit),
			(SELECT string_agg(name || ':' || spec || ':' || array_to_string(argv, ' '), ',' ORDER BY id) FROM helix_schedules))`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := snapshot()
	migrateTo(t, pool, 0)
	if after := snapshot(); after != before {
		t.Fatalf("items changed by the owners migration:\nbefore %s\nafter  %s", before, after)
	}
	for tbl := range ownedTables {
		var shared, all int
		if err := pool.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FILTER (WHERE user_id IS NULL), count(*) FROM %s", tbl)).Scan(&shared, &all); err != nil {
			t.Fatal(err)
		}
		if shared != all || all == 0 {
			t.Errorf("%s: %d of %d rows shared after the upgrade, want all", tbl, shared, all)
		}
	}
	// names are unique per owner: a user's summary@1 beside the shared one,
	// but not two shared ones nor two of one user's
	const a = "a0000000-0000-4000-8000-000000000001"
	if _, err := pool.Exec(ctx, ownedTables["helix_skills"], a, "summary"); err != nil {
		t.Fatalf("a user's summary@1 beside the shared one: %v", err)
	}
	for _, owner := range []any{nil, a} {
		_, err := pool.Exec(ctx, ownedTables["helix_skills"], owner, "summary")
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "23505" {
			t.Errorf("second summary@1 of owner %v: want a unique violation, got %v", owner, err)
		}
	}
	for tbl, q := range ownedTables {
		if tbl == "helix_skills" {
			continue
		}
		if _, err := pool.Exec(ctx, q, a, "mine"); err != nil {
			t.Fatalf("%s: %v", tbl, err)
		}
	}
	m, err := db.NewMigrator(pool)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Down(ctx, 195); err == nil || !strings.Contains(err.Error(), "users own") {
		t.Fatalf("migrate down while users own items: %v, want refused", err)
	}
	for tbl := range ownedTables {
		if _, err := pool.Exec(ctx, "DELETE FROM "+tbl+" WHERE user_id IS NOT NULL"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Down(ctx, 195); err != nil {
		t.Fatalf("migrate down to 195: %v", err)
	}
	if after := snapshot(); after != before {
		t.Fatalf("items changed by migrating down:\nbefore %s\nafter  %s", before, after)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("migrate up again: %v", err)
	}
}

// TestOwnedRowLevelSecurity: as authenticated with A's JWT claims, each
// registry shows A's rows and the shared ones, never B's; updating a shared
// row or B's changes nothing; A may add, change and delete its own rows and
// cannot insert one owned by B or shared; anon gets nothing.
func TestOwnedRowLevelSecurity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := open(t, pgtest.Platform(t))
	migrateUp(t, pool)
	const a, b = "a0000000-0000-4000-8000-000000000001", "b0000000-0000-4000-8000-000000000002"
	denied := func(err error) bool {
		var pe *pgconn.PgError
		return errors.As(err, &pe) && pe.Code == "42501"
	}
	for tbl, insert := range ownedTables {
		for _, o := range []any{nil, a, b} {
			if _, err := pool.Exec(ctx, insert, o, "summary"); err != nil {
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
			var owners []string
			if err := tx.QueryRow(ctx, "SELECT array_agg(coalesce(user_id::text, 'shared') ORDER BY user_id NULLS FIRST) FROM "+ident).Scan(&owners); err != nil {
				t.Fatalf("A reading %s: %v", tbl, err)
			}
			if strings.Join(owners, ",") != "shared,"+a {
				t.Errorf("A sees %s rows of %v, want shared and A's", tbl, owners)
			}
			for who, where := range map[string]string{"shared": "user_id IS NULL", "B's": "user_id = '" + b + "'"} {
				tag, err := tx.Exec(ctx, "UPDATE "+ident+" SET name = 'taken' WHERE "+where)
				if err != nil || tag.RowsAffected() != 0 {
					t.Errorf("A updating the %s row of %s: %d rows, %v; want none", who, tbl, tag.RowsAffected(), err)
				}
				tag, err = tx.Exec(ctx, "DELETE FROM "+ident+" WHERE "+where)
				if err != nil || tag.RowsAffected() != 0 {
					t.Errorf("A deleting the %s row of %s: %d rows, %v; want none", who, tbl, tag.RowsAffected(), err)
				}
			}
			// tools and schedules are executed by helix: users write them through helix only
			if !userWritable[tbl] {
				for _, q := range []string{"UPDATE " + ident + " SET name = 'renamed' WHERE user_id = '" + a + "'", "DELETE FROM " + ident + " WHERE user_id = '" + a + "'"} {
					if tag, err := tx.Exec(ctx, q); err != nil || tag.RowsAffected() != 0 {
						t.Errorf("A writing its own %s row through the API: %d rows, %v; want none (%s)", tbl, tag.RowsAffected(), err, q)
					}
				}
				if _, err := tx.Exec(ctx, insert, a, "made-in-app"); !denied(err) {
					t.Errorf("A inserting its own %s row through the API: want refused, got %v", tbl, err)
				}
				return
			}
			// A's own: changed, and handed to nobody else
			if tag, err := tx.Exec(ctx, "UPDATE "+ident+" SET name = 'renamed' WHERE user_id = $1", a); err != nil || tag.RowsAffected() != 1 {
				t.Errorf("A updating its own row of %s: %d rows, %v", tbl, tag.RowsAffected(), err)
			}
			if _, err := tx.Exec(ctx, "SAVEPOINT s"); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, "UPDATE "+ident+" SET user_id = NULL WHERE user_id = $1", a); !denied(err) {
				t.Errorf("A making its own %s row shared: want a row-level security violation, got %v", tbl, err)
			}
			if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT s"); err != nil {
				t.Fatal(err)
			}
			// a tool made in the app: A's own row may be inserted
			if _, err := tx.Exec(ctx, insert, a, "made-in-app"); err != nil {
				t.Errorf("A inserting its own %s row: %v", tbl, err)
			}
			for _, o := range []any{b, nil} {
				if _, err := tx.Exec(ctx, "SAVEPOINT s"); err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Exec(ctx, insert, o, "forged"); !denied(err) {
					t.Errorf("A inserting a %s row owned by %v: want a row-level security violation, got %v", tbl, o, err)
				}
				if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT s"); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	// a skill made in the app cannot grant itself the server's files
	pgtest.AsUser(t, pool, a, func(tx pgx.Tx) {
		_, err := tx.Exec(ctx, `INSERT INTO helix_skills (user_id, name, version, engine, code, sha256, capabilities)
			VALUES ($1, 'reader', '1', 'wasm', '\x00', 'abc', '{fs:read=/etc}')`, a)
		if !denied(err) {
			t.Errorf("A inserting a skill with fs:read: want a row-level security violation, got %v", err)
		}
	})
	// the child tables of tools and schedules stay helix's own
	for _, tbl := range []string{"tool_permissions", "tool_audit", "helix_schedule_fires"} {
		pgtest.AsUser(t, pool, a, func(tx pgx.Tx) {
			var n int
			if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+tbl).Scan(&n); !denied(err) {
				t.Errorf("A reading %s: want permission denied, got %d rows, %v", tbl, n, err)
			}
		})
	}
}
