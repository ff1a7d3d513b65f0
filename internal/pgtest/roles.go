package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// AsUser runs fn in a transaction as Supabase's authenticated role with the
// JWT claims PostgREST sets for user (the psql way: set role authenticated;
// set request.jwt.claims = '{"sub": …}'), or as anon when user is "", and
// rolls it back: what a signed-in user reaches through the API.
func AsUser(t testing.TB, pool *pgxpool.Pool, user string, fn func(tx pgx.Tx)) {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	role := "anon"
	if user != "" {
		role = "authenticated"
		if _, err := tx.Exec(ctx, `SELECT set_config('request.jwt.claims', json_build_object('sub', $1::text, 'role', 'authenticated')::text, true)`, user); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+role); err != nil {
		t.Fatal(err)
	}
	fn(tx)
}
