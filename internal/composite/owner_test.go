package composite

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/pgtest"
)

// TestStorePerUser: A and B each store their own brief@1.0.0 beside the
// shared one; each loads their own, C the shared one; B never loads A's
// private workflow (not found, like a missing one).
func TestStorePerUser(t *testing.T) {
	ctx := context.Background()
	tx := pgtest.Tx(t)
	a := owner.User(uuid.MustParse("a0000000-0000-4000-8000-0000000000a1"))
	b := owner.User(uuid.MustParse("b0000000-0000-4000-8000-0000000000b2"))
	c := owner.User(uuid.MustParse("c0000000-0000-4000-8000-0000000000c3"))
	for _, x := range []struct {
		o    owner.Owner
		step string
	}{{owner.Shared, "shared"}, {a, "alice"}, {b, "bob"}} {
		d := mustParse(t, "name: brief\nversion: 1.0.0\nsteps: [{id: "+x.step+", skill: upper}]\n")
		if s, err := SaveFor(ctx, tx, d, x.o); err != nil || !s.Created {
			t.Fatalf("save brief@1.0.0 for %s: %+v %v", x.o, s, err)
		}
	}
	if _, err := SaveFor(ctx, tx, mustParse(t, "name: private\nversion: 1.0.0\nsteps: [{id: p, skill: upper}]\n"), a); err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		o    owner.Owner
		want string
	}{{a, "alice"}, {b, "bob"}, {c, "shared"}, {owner.Shared, "shared"}} {
		d, _, err := LoadFor(ctx, tx, "brief", x.o)
		if err != nil || d.Steps[0].ID != x.want {
			t.Errorf("brief for %s: %v %v, want %s's", x.o, d, err, x.want)
		}
	}
	_, _, missing := LoadFor(ctx, tx, "nosuch", b)
	_, _, theirs := LoadFor(ctx, tx, "private", b)
	if !errors.Is(theirs, ErrNotFound) || !errors.Is(missing, ErrNotFound) {
		t.Errorf("B loading A's private: %v (a missing one: %v)", theirs, missing)
	}
	if _, _, err := LoadFor(ctx, tx, "private", a); err != nil {
		t.Errorf("A loading its own private: %v", err)
	}
}
