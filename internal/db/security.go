package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ErrNoHelixTables: the database has none of helix's tables (not migrated),
// so there is no row-level security of helix's to check.
var ErrNoHelixTables = errors.New("no helix tables: run helix migrate up")

// RLSProblems lists each helix table (recorded in helix_tables by migrations)
// that is exposed beyond what helix_secure_table grants: row-level security
// disabled, anything granted to anon, or a helix-internal table granted to
// authenticated. supabase reports whether the database has Supabase's API
// roles, where such a table is reachable with the project's public keys.
func RLSProblems(ctx context.Context, q Querier) (problems []string, supabase bool, err error) {
	var migrated bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon'), to_regclass('helix_tables') IS NOT NULL`).Scan(&supabase, &migrated); err != nil {
		return nil, supabase, err
	}
	if !migrated {
		return nil, supabase, ErrNoHelixTables
	}
	rows, err := q.Query(ctx, `
		SELECT h.name, c.relrowsecurity,
		       $1 AND has_table_privilege('anon', c.oid, 'SELECT, INSERT, UPDATE, DELETE'),
		       $1 AND h.owner_column IS NULL AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated')
		          AND has_table_privilege('authenticated', c.oid, 'SELECT, INSERT, UPDATE, DELETE')
		FROM helix_tables h JOIN pg_class c ON c.oid = to_regclass(quote_ident(h.name))
		ORDER BY h.name`, supabase)
	if err != nil {
		return nil, supabase, err
	}
	type row struct {
		name               string
		rls, anon, authAll bool
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.name, &x.rls, &x.anon, &x.authAll)
		return x, err
	})
	if err != nil {
		return nil, supabase, err
	}
	for _, x := range all {
		switch {
		case !x.rls:
			problems = append(problems, x.name+": row-level security disabled")
		case x.anon:
			problems = append(problems, x.name+": granted to anon")
		case x.authAll:
			problems = append(problems, x.name+": helix-internal but granted to authenticated")
		}
	}
	return problems, supabase, nil
}

// PlatformTables are the platform's tables helix reads or writes (the
// platform owns them: helix never changes their security on its own), with
// the column naming each row's user ("" when the rows are nobody's).
var PlatformTables = []struct{ Name, OwnerColumn string }{
	{"memories", "user_id"},
	{"memory_synthesis", "user_id"},
	{"memory_patterns", "user_id"},
	{"psychology_layers", "user_id"},
	{"voice_recordings", "user_id"},
	{"skills", ""},
}

// OpenTable is a platform table that Supabase's API roles can reach without
// row-level security: anyone with the project's public anon key reads it.
type OpenTable struct {
	Name  string   `json:"table"`
	Roles []string `json:"roles"` // of anon and authenticated, those with any privilege on it
	// Close are the statements that would close it: row-level security on,
	// and a policy that gives each signed-in user their own rows.
	Close []string `json:"close"`
}

// OpenPlatformTables lists the platform tables helix reads or writes that
// anon or authenticated can reach without row-level security. Tables helix
// created itself (helix_tables) are helix's and secured by its migrations.
func OpenPlatformTables(ctx context.Context, q Querier) ([]OpenTable, error) {
	names := make([]string, len(PlatformTables))
	for i, t := range PlatformTables {
		names[i] = t.Name
	}
	rows, err := q.Query(ctx, `
		SELECT t.name, array_remove(ARRAY[
		           CASE WHEN NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN NULL
		                WHEN has_table_privilege('anon', c.oid, 'SELECT, INSERT, UPDATE, DELETE') THEN 'anon' END,
		           CASE WHEN NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN NULL
		                WHEN has_table_privilege('authenticated', c.oid, 'SELECT, INSERT, UPDATE, DELETE') THEN 'authenticated' END
		       ], NULL)
		FROM unnest($1::text[]) WITH ORDINALITY t(name, i)
		JOIN pg_class c ON c.oid = to_regclass('public.' || quote_ident(t.name))
		WHERE NOT c.relrowsecurity
		ORDER BY t.i`, names)
	if err != nil {
		return nil, err
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (OpenTable, error) {
		var o OpenTable
		err := r.Scan(&o.Name, &o.Roles)
		return o, err
	})
	if err != nil {
		return nil, err
	}
	owned, err := helixOwned(ctx, q)
	if err != nil {
		return nil, err
	}
	var open []OpenTable
	for _, o := range all {
		if len(o.Roles) == 0 || owned[o.Name] {
			continue
		}
		for _, t := range PlatformTables {
			if t.Name == o.Name {
				o.Close = CloseStatements(t.Name, t.OwnerColumn)
			}
		}
		open = append(open, o)
	}
	return open, nil
}

// helixOwned are the tables helix created (recorded in helix_tables).
func helixOwned(ctx context.Context, q Querier) (map[string]bool, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('public.helix_tables') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return nil, err
	}
	rows, err := q.Query(ctx, `SELECT name FROM helix_tables`)
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	owned := map[string]bool{}
	for _, n := range names {
		owned[n] = true
	}
	return owned, err
}

// CloseStatements are the statements that close a platform table to the API
// roles: row-level security on and, where rows have an owner, one policy that
// lets a signed-in user reach only their own rows (roles that bypass row-level
// security, postgres and service_role, are unaffected). Without an owner
// column nobody but those roles reaches the rows; the platform adds a policy
// for what its apps must read.
func CloseStatements(table, ownerColumn string) []string {
	t := "public." + ident(table)
	out := []string{fmt.Sprintf("ALTER TABLE %s ENABLE ROW LEVEL SECURITY;", t)}
	if ownerColumn != "" {
		c := ident(ownerColumn)
		out = append(out, fmt.Sprintf("DROP POLICY IF EXISTS helix_owner ON %s;", t),
			fmt.Sprintf("CREATE POLICY helix_owner ON %s FOR ALL TO authenticated USING (%s = auth.uid()) WITH CHECK (%s = auth.uid());", t, c, c))
	}
	return out
}

// SecurePlatformTables runs the Close statements of tables in one
// transaction. Only `helix migrate secure-platform --yes` calls it: helix
// never changes a platform table's security on its own.
func SecurePlatformTables(ctx context.Context, q Querier, tables []OpenTable) error {
	return InTx(ctx, q, func(tx pgx.Tx) error {
		for _, t := range tables {
			for _, stmt := range t.Close {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("%s: %w", t.Name, err)
				}
			}
		}
		return nil
	})
}

// ident quotes a name only where SQL needs it, so that the statements helix
// prints read as a person would write them.
func ident(name string) string {
	for i, r := range name {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			return pgx.Identifier{name}.Sanitize()
		}
	}
	return name
}

// HelixRows counts, per platform table, the rows helix wrote and that
// uninstalling (migrate down to 0) removes: its patterns in memory_synthesis
// and memory_patterns (generator = 'helix'). Tables or columns not there
// count nothing.
func HelixRows(ctx context.Context, q Querier) (map[string]int64, error) {
	out := map[string]int64{}
	for _, tbl := range []string{"memory_synthesis", "memory_patterns"} {
		var marked bool
		if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'generator')`, tbl).Scan(&marked); err != nil {
			return nil, err
		}
		if !marked {
			continue
		}
		var n int64
		if err := q.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s WHERE generator = 'helix'`, tbl)).Scan(&n); err != nil {
			return nil, err
		}
		out[tbl] = n
	}
	return out, nil
}
