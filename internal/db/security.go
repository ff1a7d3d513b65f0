package db

import (
	"context"
	"errors"

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
