package doctor_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
)

// TestOwnedItems: doctor counts each owner's items and names the shared
// items users shadow, warning when a shared one reaches none of the users
// who have their own of that kind.
func TestOwnedItems(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const a, b = "a0000000-0000-4000-8000-0000000000a1", "b0000000-0000-4000-8000-0000000000b2"
	for _, q := range []string{
		`INSERT INTO helix_skills (user_id, name, version, engine, code, sha256) VALUES
			(NULL, 'summary', '1', 'js', '\x00', 's'), (NULL, 'rank', '1', 'js', '\x00', 's'),
			('` + a + `', 'summary', '1', 'js', '\x00', 'a'), ('` + a + `', 'summary', '2', 'js', '\x00', 'a'), ('` + b + `', 'summary', '1', 'js', '\x00', 'b')`,
		`INSERT INTO helix_schedules (user_id, name, spec, argv, next_tick) VALUES ('` + a + `', 'mine', '@daily', '{sync,reconcile,--user-id,` + a + `}', now())`,
	} {
		if _, err := pool.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := doctor(t, "database-url: "+url+"\n")
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	all := strings.Join(lines, "\n") + "\n"
	for _, want := range []string{
		"OK owned items shared: 2 skills\n",
		"OK owned items " + a + ": 1 skill, 1 schedule\n",
		"OK owned items " + b + ": 1 skill\n",
		"WARN shadowed items shared skill summary reaches none of the 2 users who have their own skills: each has their own summary\n",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}
