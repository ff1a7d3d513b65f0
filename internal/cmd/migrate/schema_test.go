package migrate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

// runHelix runs the helix binary against url and returns its exit code, stdout and stderr.
func runHelix(t *testing.T, url string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(testbin.Helix(t), args...)
	cmd.Env = append(os.Environ(), "HELIX_DATABASE_URL="+url, "HELIX_CONFIG=", "XDG_CONFIG_HOME="+t.TempDir())
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestSchemaCheck: a command that needs helix's schema refuses, before doing
// anything, a database without it (exit 2, the number pending named) and one
// migrated by a newer helix (both versions named); migrate and doctor still run.
func TestSchemaCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.Platform(t)
	pool := pgtest.Open(t, url)
	tables := func() int {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	platformTables := tables()

	var refused []string
	for _, args := range [][]string{
		{"synthesize", "--user-id", userA},
		{"synthesize", "--all-users"},
		{"decay", "run"},
		{"jobs", "list"},
		{"schedule", "list"},
	} {
		code, out, errOut := runHelix(t, url, args...)
		if code != 2 || out != "" || strings.Contains(errOut, "SQLSTATE") {
			t.Errorf("helix %s on an unmigrated database: exit %d, stdout %q, stderr %q; want exit 2", strings.Join(args, " "), code, out, errOut)
		}
		refused = append(refused, strings.Join(args, " ")+": "+errOut)
	}
	if n := tables(); n != platformTables {
		t.Errorf("the refused commands created %d tables", n-platformTables)
	}
	code, out, _ := runHelix(t, url, "migrate", "status", "-o", "json")
	var st struct{ Pending int }
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || st.Pending < 20 {
		t.Fatalf("migrate status: exit %d, %v: %s", code, err, out)
	}
	want := fmt.Sprintf("database is not migrated (%d pending): run helix migrate up", st.Pending)
	for _, r := range refused {
		if !strings.Contains(r, want) {
			t.Errorf("%s\nwant %q", r, want)
		}
	}

	// doctor: migrations pending, row-level security of no helix table skipped
	code, out, _ = runHelix(t, url, "doctor", "-o", "json")
	var rep struct {
		Checks []struct{ Name, Status, Detail string }
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 1 || err != nil {
		t.Fatalf("doctor: exit %d, %v: %s", code, err, out)
	}
	got := map[string]string{}
	for _, c := range rep.Checks {
		got[c.Name] = c.Status
	}
	if got["migrations"] != "fail" || got["row-level security"] != "skip" {
		t.Errorf("doctor on an unmigrated database: %s", out)
	}

	if code, _, errOut := runHelix(t, url, "migrate", "up"); code != 0 {
		t.Fatalf("migrate up: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runHelix(t, url, "jobs", "list"); code != 0 {
		t.Fatalf("jobs list after migrate up: exit %d: %s", code, errOut)
	}

	// A newer helix's migration: refused with both versions named.
	var known int64
	if err := pool.QueryRow(ctx, `SELECT max(version_id) FROM goose_db_version`).Scan(&known); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, true)`); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runHelix(t, url, "decay", "run")
	want = fmt.Sprintf("database was migrated by a newer helix (schema version 99999; this helix knows up to %d): upgrade helix", known)
	if code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("decay run on a newer schema: exit %d, stderr %q; want exit 2 and %q", code, errOut, want)
	}
	if code, _, errOut := runHelix(t, url, "migrate", "status"); code != 0 {
		t.Errorf("migrate status on a newer schema: exit %d: %s", code, errOut)
	}
}
