package owner_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/pgtest"
)

// TestResolver: the one resolver over a real table: the user's own row of a
// name, else the shared one, never another user's.
func TestResolver(t *testing.T) {
	ctx := context.Background()
	tx := pgtest.Tx(t)
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE items (user_id uuid, name text, who text)`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO items VALUES (NULL, 'summary', 'shared'), ($1, 'summary', 'a'), ($2, 'summary', 'b'), ($1, 'private', 'a')`, a, b); err != nil {
		t.Fatal(err)
	}
	resolve := func(o owner.Owner, name string) string {
		var who string
		err := tx.QueryRow(ctx, `SELECT who FROM items WHERE name = $1 AND `+owner.Visible("user_id", 2)+`
			ORDER BY `+owner.OwnFirst("user_id")+` LIMIT 1`, name, o.Arg()).Scan(&who)
		if err != nil {
			return "not found"
		}
		return who
	}
	for _, c := range []struct {
		o          owner.Owner
		name, want string
	}{
		{owner.User(a), "summary", "a"}, {owner.User(b), "summary", "b"}, {owner.User(c), "summary", "shared"},
		{owner.Shared, "summary", "shared"}, {owner.User(b), "private", "not found"}, {owner.Shared, "private", "not found"},
		{owner.User(a), "private", "a"},
	} {
		if got := resolve(c.o, c.name); got != c.want {
			t.Errorf("%s resolving %s: %s, want %s", c.o, c.name, got, c.want)
		}
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM items WHERE `+owner.Owned("user_id", 1), owner.Shared.Arg()).Scan(&n); err != nil || n != 1 {
		t.Errorf("the operator owns %d rows (%v), want the shared one", n, err)
	}
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM items WHERE `+owner.Owned("user_id", 1), owner.User(a).Arg()).Scan(&n); err != nil || n != 2 {
		t.Errorf("A owns %d rows (%v), want 2", n, err)
	}
}

// TestCheck: on the platform's database a user not in auth.users is
// refused; on a database without auth.users any UUID passes.
func TestCheck(t *testing.T) {
	ctx := context.Background()
	platform, err := pgxpool.New(ctx, pgtest.Platform(t))
	if err != nil {
		t.Fatal(err)
	}
	defer platform.Close()
	var known uuid.UUID
	if err := platform.QueryRow(ctx, `SELECT id FROM auth.users LIMIT 1`).Scan(&known); err != nil {
		t.Fatal(err)
	}
	if err := owner.Check(ctx, platform, owner.User(known)); err != nil {
		t.Errorf("a known user: %v", err)
	}
	if err := owner.Check(ctx, platform, owner.Shared); err != nil {
		t.Errorf("the operator: %v", err)
	}
	if err := owner.Check(ctx, platform, owner.User(uuid.New())); !errors.Is(err, owner.ErrUnknownUser) {
		t.Errorf("an unknown user: %v", err)
	}
	if err := owner.Check(ctx, pgtest.Tx(t), owner.User(uuid.New())); err != nil {
		t.Errorf("no auth.users: %v", err)
	}
}
