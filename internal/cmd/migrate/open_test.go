package migrate_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/pgtest"
)

// TestOpenPlatformTables: migrate up and doctor name every platform table
// helix uses that anon or authenticated reach without row-level security,
// with the statements that close it, and change nothing; secure-platform
// --yes runs them; then both are silent.
func TestOpenPlatformTables(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.Platform(t)
	pool := pgtest.Open(t, url)
	rls := func() map[string]bool {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT relname::text, relrowsecurity FROM pg_class
			WHERE relname IN ('memories', 'memory_synthesis', 'memory_patterns', 'psychology_layers', 'voice_recordings', 'skills', 'custom_tools')
			  AND relnamespace = 'public'::regnamespace`)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for rows.Next() {
			var n string
			var on bool
			if err := rows.Scan(&n, &on); err != nil {
				t.Fatal(err)
			}
			m[n] = on
		}
		return m
	}
	before := rls()
	// The literal fixture: row-level security only on custom_tools (and composite_skills).
	open := []string{"memories", "memory_synthesis", "memory_patterns", "psychology_layers", "voice_recordings", "skills"}

	code, _, errOut := runHelix(t, url, "migrate", "up")
	if code != 0 {
		t.Fatalf("migrate up: exit %d: %s", code, errOut)
	}
	for _, tbl := range open {
		if !strings.Contains(errOut, "warning: platform table "+tbl+" is reachable by anon and authenticated without row-level security") ||
			!strings.Contains(errOut, "ALTER TABLE public."+tbl+" ENABLE ROW LEVEL SECURITY;") {
			t.Errorf("migrate up did not name open table %s:\n%s", tbl, errOut)
		}
	}
	if !strings.Contains(errOut, "CREATE POLICY helix_owner ON public.memory_synthesis FOR ALL TO authenticated USING (user_id = auth.uid()) WITH CHECK (user_id = auth.uid());") {
		t.Errorf("migrate up: no owner policy statement for memory_synthesis:\n%s", errOut)
	}
	if strings.Contains(errOut, "custom_tools") {
		t.Errorf("migrate up named custom_tools, which has row-level security:\n%s", errOut)
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
			m[c.Name] = c.Status + " " + c.Detail
		}
		return m
	}
	checks := doctor()
	for _, tbl := range open {
		if c := checks["platform table "+tbl]; !strings.HasPrefix(c, "warn reachable by anon and authenticated") || !strings.Contains(c, "ALTER TABLE public."+tbl+" ENABLE ROW LEVEL SECURITY;") {
			t.Errorf("doctor on open %s: %q", tbl, c)
		}
	}
	// Named, not changed: the platform's security is the platform's.
	if after := rls(); len(after) != len(before) || after["memory_synthesis"] || after["memories"] || !after["custom_tools"] {
		t.Errorf("row-level security changed by migrate up or doctor: %v → %v", before, after)
	}

	// secure-platform: refused without --yes off a terminal, applied with it.
	if code, _, errOut := runHelix(t, url, "migrate", "secure-platform"); code != 2 || !strings.Contains(errOut, "add --yes") {
		t.Errorf("secure-platform without --yes: exit %d: %s", code, errOut)
	}
	code, out, errOut := runHelix(t, url, "migrate", "secure-platform", "--yes")
	if code != 0 || out != "secured "+strings.Join(open, "\nsecured ")+"\n" {
		t.Errorf("secure-platform --yes: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	for _, tbl := range open {
		if !rls()[tbl] {
			t.Errorf("%s still without row-level security", tbl)
		}
	}
	// A signed-in user reaches only their own rows; anon none.
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var mine, others, anon int
	if _, err := tx.Exec(ctx, `SELECT set_config('request.jwt.claim.sub', $1, true)`, userA); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SET LOCAL ROLE authenticated`); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE user_id = $1), count(*) FILTER (WHERE user_id <> $1) FROM memory_synthesis`, userA).Scan(&mine, &others); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SET LOCAL ROLE anon`); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM memory_synthesis`).Scan(&anon); err != nil {
		t.Fatal(err)
	}
	_ = tx.Rollback(ctx)
	if mine != 1 || others != 0 || anon != 0 {
		t.Errorf("after secure-platform: user A sees %d own and %d others' synthesis rows, anon %d; want 1, 0, 0", mine, others, anon)
	}

	// Closed: silent.
	code, _, errOut = runHelix(t, url, "migrate", "up")
	if code != 0 || strings.Contains(errOut, "platform table") {
		t.Errorf("migrate up on closed tables: exit %d: %s", code, errOut)
	}
	checks = doctor()
	for name, c := range checks {
		if strings.HasPrefix(name, "platform table ") {
			t.Errorf("doctor named %s although closed: %s", name, c)
		}
	}
	if c := checks["platform tables"]; !strings.HasPrefix(c, "ok ") {
		t.Errorf("doctor platform tables: %q", c)
	}
	if code, out, _ := runHelix(t, url, "migrate", "secure-platform", "--yes"); code != 0 || out != "" {
		t.Errorf("secure-platform with nothing open: exit %d, stdout %q", code, out)
	}
}
