package migrate_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
)

// reach counts, per platform table helix uses, the rows anon reads and the
// rows of other users that signed-in user A reads: what a user of the
// project's public keys would check.
func reach(t *testing.T, pool *pgxpool.Pool) map[string][2]int {
	t.Helper()
	ctx := context.Background()
	out := map[string][2]int{}
	for _, tbl := range []string{"memories", "memory_synthesis", "memory_patterns", "psychology_layers", "voice_recordings"} {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var anon, others int
		q := func(role, sql string, dst *int) {
			sub := userA // the public anon key's requests carry no user
			if role == "anon" {
				sub = ""
			}
			if _, err := tx.Exec(ctx, `SELECT set_config('request.jwt.claim.sub', $1, true)`, sub); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+role); err != nil {
				t.Fatal(err)
			}
			// A column grant reaches only its columns: count through user_id.
			if err := tx.QueryRow(ctx, sql, userA).Scan(dst); err != nil {
				if strings.Contains(err.Error(), "permission denied") {
					*dst = 0
					return
				}
				t.Fatalf("%s as %s: %v", tbl, role, err)
			}
		}
		q("anon", `SELECT count(user_id) FROM `+tbl+` WHERE $1::uuid IS NOT NULL`, &anon)
		_ = tx.Rollback(ctx)
		tx, err = pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		q("authenticated", `SELECT count(*) FROM `+tbl+` WHERE user_id IS DISTINCT FROM $1`, &others)
		_ = tx.Rollback(ctx)
		out[tbl] = [2]int{anon, others}
	}
	return out
}

// TestSecurePlatformJudgesWhatRolesReach (issue 49, item 2) on the literal
// platform fixture: (a) a permissive USING (true) policy for anon and
// authenticated, with row-level security on (memory_patterns) or off
// (psychology_layers), and (b) column-level grants to anon
// (voice_recordings) are named by doctor and closed by secure-platform —
// before, doctor said nothing, secure-platform printed "secured" (or
// nothing) and anon still read every row; (c) a policy named helix_owner
// that helix did not create is never replaced: secure-platform stops,
// changing nothing, until it is renamed; (d) secure-platform waits for a
// table's lock at most --lock-timeout and names the session holding it.
// Through PgBouncer in transaction mode, as a serverless host would run it.
func TestSecurePlatformJudgesWhatRolesReach(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	direct := pgtest.Platform(t)
	url := pgtest.Bouncer(t, pgtest.TransactionMode, direct)
	pool := pgtest.Open(t, direct)
	if code, _, errOut := runHelix(t, url, "migrate", "up"); code != 0 {
		t.Fatalf("migrate up: exit %d: %s", code, errOut)
	}
	// Close what the literal fixture leaves open, the platform's way, then open it again in the ways above.
	for _, q := range []string{
		`ALTER TABLE memories ENABLE ROW LEVEL SECURITY`,
		`CREATE POLICY own ON memories FOR ALL TO authenticated USING (auth.uid() = user_id)`,
		`ALTER TABLE memory_synthesis ENABLE ROW LEVEL SECURITY`,
		`CREATE POLICY "own rows" ON memory_synthesis FOR ALL TO authenticated USING (user_id = (SELECT auth.uid()))`,
		`ALTER TABLE skills ENABLE ROW LEVEL SECURITY`,
		// (a)
		`ALTER TABLE memory_patterns ENABLE ROW LEVEL SECURITY`,
		`CREATE POLICY "read all" ON memory_patterns FOR SELECT TO anon, authenticated USING (true)`,
		`CREATE POLICY everyone ON psychology_layers FOR SELECT USING (true)`,
		`CREATE POLICY "signed in" ON memories FOR SELECT TO authenticated USING (auth.uid() IS NOT NULL)`,
		// (b)
		`REVOKE ALL ON voice_recordings FROM anon, authenticated`,
		`GRANT SELECT (id, user_id, transcript) ON voice_recordings TO anon`,
		// (c)
		`CREATE POLICY helix_owner ON psychology_layers FOR SELECT TO authenticated USING (true)`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	before := reach(t, pool)
	for _, tbl := range []string{"memory_patterns", "psychology_layers", "voice_recordings", "memories"} {
		if before[tbl] == [2]int{} {
			t.Fatalf("the fixture does not open %s: %v", tbl, before)
		}
	}
	doctor := func() map[string]string {
		t.Helper()
		code, out, errOut := runHelix(t, url, "doctor", "-o", "json")
		var rep struct {
			Checks []struct{ Name, Status, Detail string }
		}
		if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
			t.Fatalf("doctor: exit %d, %v\n%s\n%s", code, err, out, errOut)
		}
		m := map[string]string{}
		for _, c := range rep.Checks {
			if strings.HasPrefix(c.Name, "platform table ") {
				m[strings.TrimPrefix(c.Name, "platform table ")] = c.Status + " " + c.Detail
			}
		}
		return m
	}
	checks := doctor()
	for tbl, want := range map[string]string{
		"memory_patterns":   `anon: policy "read all" USING true`,
		"psychology_layers": `anon: policy everyone USING true`,
		"voice_recordings":  "anon: column grants",
		"memories":          `authenticated: policy "signed in" USING (auth.uid() IS NOT NULL)`,
	} {
		if c := checks[tbl]; !strings.HasPrefix(c, "warn reachable by") || !strings.Contains(c, want) {
			t.Errorf("doctor on %s: %q, want a warning with %q", tbl, c, want)
		}
	}
	if c, ok := checks["memory_synthesis"]; ok {
		t.Errorf("doctor named memory_synthesis, closed by a policy scoped to the user: %s", c)
	}

	// (d) An app's open transaction holds memories, the first table
	// secure-platform changes.
	app, err := pgx.Connect(ctx, direct+"&application_name=platform-app")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Exec(ctx, `BEGIN; SELECT count(*) FROM memories`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, out, errOut := runHelix(t, url, "migrate", "secure-platform", "--yes", "--lock-timeout", "1s")
	waited := time.Since(start)
	_ = app.Close(ctx)
	if code != 1 || out != "" || !strings.Contains(errOut, "memories is locked by pid") || !strings.Contains(errOut, "platform-app") ||
		!strings.Contains(errOut, "idle in transaction") || !strings.Contains(errOut, "nothing was changed") {
		t.Errorf("secure-platform behind an app's open transaction: exit %d after %s, stdout %q, want 1 naming the app\n%s", code, waited, out, errOut)
	}
	// (c) helix_owner on memory_patterns is not helix's.
	code, out, errOut = runHelix(t, url, "migrate", "secure-platform", "--yes")
	if code != 1 || out != "" || !strings.Contains(errOut, "psychology_layers already has a policy named helix_owner that helix did not create") {
		t.Errorf("secure-platform over a foreign helix_owner: exit %d, stdout %q, want 1 naming it\n%s", code, out, errOut)
	}
	if got := reach(t, pool); got["memories"] != before["memories"] || got["memory_patterns"] != before["memory_patterns"] {
		t.Errorf("a refused secure-platform changed something: %v, before %v", got, before)
	}
	var def string
	if err := pool.QueryRow(ctx, `SELECT pg_get_expr(polqual, polrelid) FROM pg_policy WHERE polname = 'helix_owner' AND polrelid = 'psychology_layers'::regclass`).Scan(&def); err != nil || def != "true" {
		t.Errorf("the platform's helix_owner policy: %q (%v)", def, err)
	}
	if _, err := pool.Exec(ctx, `ALTER POLICY helix_owner ON psychology_layers RENAME TO app_owner`); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runHelix(t, url, "migrate", "secure-platform", "--yes")
	if code != 0 || out != "secured memories\nsecured memory_patterns\nsecured psychology_layers\nsecured voice_recordings\n" {
		t.Errorf("secure-platform: exit %d, stdout %q\n%s", code, out, errOut)
	}
	for tbl, r := range reach(t, pool) {
		if r != [2]int{} {
			t.Errorf("after secure-platform anon reads %d rows of %s and user A %d of other users'", r[0], tbl, r[1])
		}
	}
	// The user's own rows are still theirs.
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var mine int
	if _, err := tx.Exec(ctx, `SELECT set_config('request.jwt.claim.sub', $1, true)`, userA); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SET LOCAL ROLE authenticated`); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM memory_patterns`).Scan(&mine); err != nil || mine != 1 {
		t.Errorf("user A reads %d of their memory_patterns (%v), want 1", mine, err)
	}
	_ = tx.Rollback(ctx)
	if c := doctor(); len(c) > 0 {
		t.Errorf("doctor after secure-platform: %v", c)
	}
	// Run again: helix's own policies are its to replace; nothing is open.
	if code, out, errOut := runHelix(t, url, "migrate", "secure-platform", "--yes"); code != 0 || out != "" {
		t.Errorf("secure-platform again: exit %d, stdout %q\n%s", code, out, errOut)
	}
}
