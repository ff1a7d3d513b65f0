package skill_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	helixdb "github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/skill/skilltest"
)

const (
	userA = "a0000000-0000-4000-8000-0000000000a1"
	userB = "b0000000-0000-4000-8000-0000000000b2"
	userC = "c0000000-0000-4000-8000-0000000000c3"
)

// writeSkill writes a JavaScript skill that answers with who it is.
func writeSkill(t *testing.T, dir, who string) string {
	t.Helper()
	p := filepath.Join(dir, who+".js")
	if err := os.WriteFile(p, []byte(`function main(input) { return {who: "`+who+`"}; }`), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTwoUsersOwnSummary: A and B each add their own `summary`; each runs
// their own, C runs the shared one once there is one (not found before), and
// B can neither exec, show, disable nor remove A's (the same "not found" as
// a skill that does not exist).
func TestTwoUsersOwnSummary(t *testing.T) {
	t.Setenv("HELIX_SKILL_CACHE_DIR", skilltest.CacheDir())
	db := pgtest.New(t)
	factory := func(s *cmdtest.Streams) *cmdutil.Factory {
		f, streams := cmdtest.Factory(t, false)
		*s = streams
		return cmdtest.WithDB(f, db)
	}
	dir := t.TempDir()
	for _, u := range []struct{ id, who string }{{userA, "alice"}, {userB, "bob"}} {
		out, errOut, code := run(t, false, factory, "add "+writeSkill(t, dir, u.who)+" --name summary --user-id "+u.id, "")
		if code != 0 || !strings.HasPrefix(out, "added summary@1 (js, ") {
			t.Fatalf("add for %s: %d %q %q", u.who, code, out, errOut)
		}
	}
	exec := func(user string) (string, string, cmdutil.ExitCode) {
		return run(t, false, factory, "exec summary --user-id "+user, "")
	}
	if out, errOut, code := exec(userA); code != 0 || strings.TrimSpace(out) != `{"who":"alice"}` {
		t.Fatalf("exec as A: %d %q %q", code, out, errOut)
	}
	if out, errOut, code := exec(userB); code != 0 || strings.TrimSpace(out) != `{"who":"bob"}` {
		t.Fatalf("exec as B: %d %q %q", code, out, errOut)
	}
	_, missing, code := run(t, false, factory, "exec nosuchskill --user-id "+userC, "")
	if code != cmdutil.ExitUsage {
		t.Fatalf("exec of a missing skill: exit %d, want 2", code)
	}
	_, errC, code := exec(userC)
	if code != cmdutil.ExitUsage || !strings.Contains(errC, "skill not found: summary") {
		t.Fatalf("exec as C with no shared summary: %d %q", code, errC)
	}
	if strings.Replace(errC, "summary", "nosuchskill", -1) != missing {
		t.Errorf("another user's skill must read like a missing one:\n%q\n%q", errC, missing)
	}
	// the operator's shared summary: C runs it, A and B still their own
	if _, errOut, code := run(t, false, factory, "add "+writeSkill(t, dir, "operator")+" --name summary", ""); code != 0 {
		t.Fatalf("add shared: %d %q", code, errOut)
	}
	if out, errOut, code := exec(userC); code != 0 || strings.TrimSpace(out) != `{"who":"operator"}` {
		t.Fatalf("exec as C with a shared summary: %d %q %q", code, out, errOut)
	}
	if out, _, _ := exec(userA); strings.TrimSpace(out) != `{"who":"alice"}` {
		t.Fatalf("exec as A after a shared summary exists: %q", out)
	}
	// B acting on A's second skill, which B does not have: not found, like a missing one
	if _, errOut, code := run(t, false, factory, "add "+writeSkill(t, dir, "alice2")+" --name private --user-id "+userA, ""); code != 0 {
		t.Fatalf("add private: %q", errOut)
	}
	for _, verb := range []string{"exec private", "show private", "disable private", "enable private", "remove private --yes"} {
		_, errOut, code := run(t, false, factory, verb+" --user-id "+userB, "")
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, "skill not found: private") {
			t.Errorf("%s as B: exit %d %q, want not found (2)", verb, code, errOut)
		}
	}
	// and B does not see it listed; A sees own and shared
	out, _, _ := run(t, false, factory, "list --user-id "+userB, "")
	if strings.Contains(out, "private") || !strings.Contains(out, "summary\t1\tjs") || strings.Count(out, "\n") != 2 {
		t.Errorf("list as B:\n%s", out)
	}
	out, _, _ = run(t, false, factory, "list --user-id "+userA, "")
	if !strings.Contains(out, "private\t1\tjs") || !strings.Contains(out, userA) || !strings.Contains(out, "\tshared\t") {
		t.Errorf("list as A:\n%s", out)
	}
	// the operator sees the shared ones only
	out, _, _ = run(t, false, factory, "list", "")
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "\tshared\t") {
		t.Errorf("list as the operator:\n%s", out)
	}

	// lifecycle: A disables its summary, exec is refused and says so; B unaffected
	if out, errOut, code := run(t, false, factory, "disable summary --user-id "+userA, ""); code != 0 || !strings.HasPrefix(out, "disabled summary") {
		t.Fatalf("disable: %d %q %q", code, out, errOut)
	}
	if _, errOut, code := exec(userA); code != cmdutil.ExitUsage || !strings.Contains(errOut, "disabled") {
		t.Fatalf("exec of a disabled skill: %d %q", code, errOut)
	}
	if out, _, code := exec(userB); code != 0 || strings.TrimSpace(out) != `{"who":"bob"}` {
		t.Fatalf("B's summary after A disabled its own: %d %q", code, out)
	}
	// a user cannot switch the shared skill off for everyone
	if _, errOut, code := run(t, false, factory, "disable summary --user-id "+userC, ""); code != cmdutil.ExitUsage || !strings.Contains(errOut, "shared") {
		t.Fatalf("C disabling the shared summary: %d %q", code, errOut)
	}
	if _, _, code := run(t, false, factory, "enable summary --user-id "+userA, ""); code != 0 {
		t.Fatal("enable")
	}
	var uses, usesB int
	var last *string
	if err := db.QueryRow(context.Background(), `SELECT usage_count, last_used_at::text FROM helix_skills WHERE name = 'summary' AND user_id = $1`, userA).Scan(&uses, &last); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(context.Background(), `SELECT usage_count FROM helix_skills WHERE name = 'summary' AND user_id = $1`, userB).Scan(&usesB); err != nil {
		t.Fatal(err)
	}
	if uses != 2 || last == nil || usesB != 2 {
		t.Errorf("usage of A's summary = %d (last %v), B's %d; want 2, set, 2", uses, last, usesB)
	}
	// remove needs --yes, then A's summary is gone and A falls back to the shared one
	if _, _, code := run(t, false, factory, "remove summary --user-id "+userA, ""); code != cmdutil.ExitUsage {
		t.Fatalf("remove without --yes: exit %d", code)
	}
	if out, errOut, code := run(t, false, factory, "remove summary --user-id "+userA+" --yes", ""); code != 0 || !strings.HasPrefix(out, "removed summary") {
		t.Fatalf("remove: %d %q %q", code, out, errOut)
	}
	if out, _, code := exec(userA); code != 0 || strings.TrimSpace(out) != `{"who":"operator"}` {
		t.Fatalf("A after removing its own summary: %d %q", code, out)
	}
}

// TestOwnerBadInput: a malformed --user-id, an unknown user (on a database
// with auth.users) and --user-id on a command that owns nothing are exit 2,
// and nothing is written.
func TestOwnerBadInput(t *testing.T) {
	t.Setenv("HELIX_SKILL_CACHE_DIR", skilltest.CacheDir())
	url := pgtest.Platform(t)
	pool := pgtest.Open(t, url)
	if err := migrateUp(pool); err != nil {
		t.Fatal(err)
	}
	factory := func(s *cmdtest.Streams) *cmdutil.Factory {
		f, streams := cmdtest.Factory(t, false)
		*s = streams
		return cmdtest.WithDB(f, pool)
	}
	p := writeSkill(t, t.TempDir(), "x")
	for _, c := range []struct{ argv, want string }{
		{"add " + p + " --name x --user-id bob", "not a UUID"},
		{"add " + p + " --name x --user-id " + userC, "unknown user " + userC},
		{"list --user-id " + userC, "unknown user"},
		{"exec x --user-id " + userC, "unknown user"},
		{"validate " + p + " --user-id " + userA, "unknown flag: --user-id"},
	} {
		_, errOut, code := run(t, false, factory, c.argv, "")
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d %q, want 2 saying %q", c.argv, code, errOut, c.want)
		}
	}
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM helix_skills`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d skills written (%v), want none", n, err)
	}
}

func migrateUp(pool *pgxpool.Pool) error {
	m, err := helixdb.NewMigrator(pool)
	if err != nil {
		return err
	}
	defer m.Close()
	_, err = m.Up(context.Background())
	return err
}
