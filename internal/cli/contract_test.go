package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/pgtest"
)

// jsonLines fails unless every line of stderr is one JSON object.
func jsonLines(t *testing.T, what, stderr string) {
	t.Helper()
	if strings.TrimSpace(stderr) == "" {
		t.Errorf("%s: nothing on stderr", what)
	}
	for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Errorf("%s: stderr line is not a JSON object: %q", what, l)
		}
	}
}

// TestJSONErrorsHoweverOutputIsSet: with -o json given first, late, as
// --output=json, or as HELIX_OUTPUT, every stderr line is a JSON object, for
// usage errors cobra finds before any command runs as for helix's own.
func TestJSONErrorsHoweverOutputIsSet(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		env  []string
		args []string
		code int
	}{
		{"flag first", nil, []string{"-o", "json", "synthesize", "--bogus"}, 2},
		{"flag late", nil, []string{"synthesize", "--bogus", "-o", "json"}, 2},
		{"flag =", nil, []string{"synthesize", "--output=json", "--bogus"}, 2},
		{"env", []string{"HELIX_OUTPUT=json"}, []string{"synthesize", "--bogus"}, 2},
		{"unknown command", []string{"HELIX_OUTPUT=json"}, []string{"migrate", "sideways"}, 2},
		{"exclusive flags", nil, []string{"migrate", "down", "--to", "1", "--all", "-o", "json"}, 2},
		{"missing argument", nil, []string{"import", "memories", "-o", "json"}, 2},
		{"no database", nil, []string{"migrate", "status", "-o", "json"}, 2},
		{"bad setting", []string{"HELIX_DB_STATEMENT_TIMEOUT=banana", "DATABASE_URL=postgres://x@127.0.0.1/x"}, []string{"migrate", "status", "-o", "json"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := helix(t, c.env, "", c.args...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d; stderr %s", r.code, c.code, r.stderr)
			}
			jsonLines(t, strings.Join(c.args, " "), r.stderr)
		})
	}
}

// TestUsageHintNamesTheSubcommand: a usage error points to the help of the
// command that was run, not helix --help.
func TestUsageHintNamesTheSubcommand(t *testing.T) {
	t.Parallel()
	r := helix(t, nil, "", "decay", "run", "--no-such-flag")
	if r.code != 2 || !strings.Contains(r.stderr, "Run 'helix decay run --help' for usage.") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestBadSettingsAreErrors: a setting that does not parse stops the run with
// exit 2 naming the key and where it came from, instead of a silent default.
func TestBadSettingsAreErrors(t *testing.T) {
	t.Parallel()
	url := "DATABASE_URL=" + pgtest.URL(t)
	for _, c := range []struct {
		env  string
		args []string
		want string
	}{
		{"HELIX_DB_STATEMENT_TIMEOUT=900", nil, `setting db.statement-timeout = "900" (env HELIX_DB_STATEMENT_TIMEOUT): not a duration`},
		{"HELIX_DB_STATEMENT_TIMEOUT=15min", nil, `db.statement-timeout = "15min"`},
		{"HELIX_DB_STATEMENT_TIMEOUT=banana", nil, `db.statement-timeout = "banana"`},
		{"HELIX_DB_IDLE_IN_TRANSACTION_TIMEOUT=soon", nil, `db.idle-in-transaction-timeout = "soon"`},
		{"HELIX_DB_CONNECT_TIMEOUT=5", nil, `db.connect-timeout = "5"`},
		{"HELIX_DB_MAX_CONNS=abc", nil, `db.max-conns = "abc" (env HELIX_DB_MAX_CONNS): not a whole number`},
		{"HELIX_LOG_LEVEL=bogus", nil, `invalid --log-level "bogus"`},
		{"", []string{"--log-format", "xml"}, `invalid --log-format "xml"`},
	} {
		args := append([]string{"migrate", "status"}, c.args...)
		r := helix(t, []string{url, c.env}, "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s %v: exit %d, stderr %q; want exit 2 and %q", c.env, c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestDatabaseURLErrorsAreUsage: a malformed URL or a session parameter the
// server refuses is exit 2 (fix the setting), not 1 or 4 (retry later).
func TestDatabaseURLErrorsAreUsage(t *testing.T) {
	t.Parallel()
	good := pgtest.URL(t)
	for _, u := range []string{
		"postgres://postgres@127.0.0.1:99999/x",
		"postgres://postgres@127.0.0.1:5432/x%zz",
		"postgres://postgres@127.0.0.1:5432/x?sslmode=bogus",
		good + "&statement_timeout=abc",
	} {
		r := helix(t, []string{"DATABASE_URL=" + u}, "", "migrate", "status")
		if r.code != 2 {
			t.Errorf("%s: exit %d, want 2; stderr %q", u, r.code, r.stderr)
		}
	}
}

// TestArgumentsComeOnlyFromTheCommandLine: per-invocation arguments in the
// environment or the config file change nothing; destructive actions need --yes.
func TestArgumentsComeOnlyFromTheCommandLine(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	tables := func() int {
		c, err := pgx.Connect(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		var n int
		if err := c.QueryRow(context.Background(), `SELECT count(*) FROM helix_tables`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := tables()
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte("migrate:\n  down:\n    all: true\n    yes: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, env := range [][]string{
		{"HELIX_MIGRATE_DOWN_ALL=true", "HELIX_MIGRATE_DOWN_YES=true"},
		{"HELIX_CONFIG=" + file},
	} {
		r := helix(t, append(env, "DATABASE_URL="+url), "", "migrate", "down")
		if r.code != 2 || !strings.Contains(r.stderr, "add --yes to confirm") {
			t.Errorf("%v: migrate down without --yes: exit %d, stderr %q", env, r.code, r.stderr)
		}
	}
	if n := tables(); n != before {
		t.Fatalf("helix tables %d → %d: an environment variable or the config file rolled back migrations", before, n)
	}
	// HELIX_DECAY_RUN_AT used to move the instant of a cron job's decay run.
	r := helix(t, []string{"DATABASE_URL=" + url, "HELIX_DECAY_RUN_AT=1999-01-01T00:00:00Z"}, "", "decay", "run", "-o", "json")
	var res struct{ At string }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || strings.HasPrefix(res.At, "1999") {
		t.Errorf("decay run with HELIX_DECAY_RUN_AT set: exit %d, at %q (%v) %s", r.code, res.At, err, r.stderr)
	}
}

// TestDoctorReportsBadConfigKeys: misspelt keys, arguments in the file and
// values that do not parse are reported with the file and line.
func TestDoctorReportsBadConfigKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	body := "databse-url: postgres://x@y/z\nsynthesise:\n  concurrency: 4\ndecay:\n  run:\n    at: 2026-01-01T00:00:00Z\ndb:\n  statement-timeout: 15min\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	r := helix(t, []string{"HELIX_CONFIG=" + file, "DATABASE_URL=" + pgtest.URL(t)}, "", "doctor")
	for _, want := range []string{
		file + ":1: databse-url is not a helix setting",
		file + ":3: synthesise.concurrency is not a helix setting",
		file + ":6: decay.run.at is a per-invocation argument",
		`db.statement-timeout = "15min" (file ` + file + `:8)`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor does not say %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 2 {
		t.Errorf("doctor with bad config keys: exit %d, want 2", r.code)
	}
}

// TestConfigShowUnknownPrefix: a prefix that matches nothing is a usage error.
func TestConfigShowUnknownPrefix(t *testing.T) {
	t.Parallel()
	if r := helix(t, nil, "", "config", "show", "nosuchprefix"); r.code != 2 || !strings.Contains(r.stderr, `no setting starts with "nosuchprefix"`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCompletion: flag values complete from fixed lists, names from the
// database; with the database unreachable completion offers nothing, at once,
// and exits 0 (a shell must never see an error).
func TestCompletion(t *testing.T) {
	t.Parallel()
	r := helix(t, nil, "", "__complete", "synthesize", "--output", "")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "text\njson\n:4\n") {
		t.Errorf("-o: exit %d, stdout %q", r.code, r.stdout)
	}
	r = helix(t, nil, "", "__complete", "synthesize", "--algorithm", "h")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "auto\ndbscan\nhdbscan\nkmeans\n:4\n") {
		t.Errorf("--algorithm: exit %d, stdout %q", r.code, r.stdout)
	}
	// hidden deprecated names are not offered
	r = helix(t, nil, "", "__complete", "catalog", "fetch", "--")
	if !strings.Contains(r.stdout, "--fetch-timeout") || strings.Contains(r.stdout, "--timeout\t") || strings.Contains(r.stdout, "--provider\t") {
		t.Errorf("catalog fetch flags: %q", r.stdout)
	}
	r = helix(t, []string{"DATABASE_URL=" + closedPortURL(t)}, "", "__complete", "tool", "exec", "")
	if r.code != 0 || r.stdout != ":4\n" {
		t.Errorf("tool names, database down: exit %d, stdout %q", r.code, r.stdout)
	}
	// a bad setting does not break completion either
	r = helix(t, []string{"HELIX_DB_STATEMENT_TIMEOUT=banana"}, "", "__complete", "-o", "")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "text\njson\n") {
		t.Errorf("-o with a bad setting: exit %d, stdout %q", r.code, r.stdout)
	}
}

// TestDeprecatedFlagStillWorks: an old flag name runs the command with a
// notice, as a JSON line under -o json; old and new together are exit 2.
func TestDeprecatedFlagStillWorks(t *testing.T) {
	t.Parallel()
	env := []string{"DATABASE_URL=" + closedPortURL(t)}
	r := helix(t, env, "", "skill", "list", "--all", "-o", "json")
	if r.code != 4 || !strings.Contains(r.stderr, `"msg":"flag --all is deprecated: use --all-versions"`) {
		t.Errorf("skill list --all: exit %d, stderr %q", r.code, r.stderr)
	}
	jsonLines(t, "skill list --all -o json", r.stderr)
	r = helix(t, env, "", "sync", "reconcile", "--batch", "5", "--batch-size", "6")
	if r.code != 2 || !strings.Contains(r.stderr, "--batch is the old name of --batch-size") {
		t.Errorf("old and new name: exit %d, stderr %q", r.code, r.stderr)
	}
	r = helix(t, env, "", "sync", "reconcile", "--user-id", "bob")
	if r.code != 2 || !strings.Contains(r.stderr, `invalid --user-id "bob": not a UUID`) {
		t.Errorf("bad --user-id: exit %d, stderr %q", r.code, r.stderr)
	}
}
