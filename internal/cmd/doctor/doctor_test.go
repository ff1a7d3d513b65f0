package doctor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/cmd/factory"
	"github.com/helixhq/helix/internal/cmd/root"
	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/pgtest"
)

// TestMain takes every helix setting out of the environment: the config
// file each test writes is the only source.
func TestMain(m *testing.M) {
	cmdtest.UnsetHelixEnv()
	os.Exit(m.Run())
}

// doctor runs `helix doctor` in-process as the binary does (the production
// Factory, the root command, its settings resolution) with a config file of
// the given lines and no helix setting from the environment.
func doctor(t *testing.T, configLines string, args ...string) (string, string, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte(configLines), 0o600); err != nil {
		t.Fatal(err)
	}
	f, cleanup := factory.New("test")
	t.Cleanup(cleanup)
	ios, _, out, errOut := iostreams.Test()
	f.IOStreams = ios
	cmd := root.NewCmdRoot(f)
	cmd.SetArgs(append([]string{"doctor", "--config", file}, args...))
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// line is the report line of check name: "OK    database  PostgreSQL …".
func line(t *testing.T, out, name string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && strings.HasPrefix(strings.TrimSpace(l[len(f[0]):]), name+" ") {
			return l
		}
	}
	t.Fatalf("no %q line in:\n%s", name, out)
	return ""
}

func TestHealthyDatabase(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	out, _, err := doctor(t, "database-url: "+url+"\n")
	if err != nil {
		t.Fatalf("doctor on a migrated database: %v\n%s", err, out)
	}
	for name, want := range map[string]string{
		"database":           "OK    database",
		"connection path":    "direct connection, found by probing (db.pool-mode auto): the server sees this connection's own port; every job works",
		"migrations":         "none pending",
		"row-level security": "every helix table has row-level security",
		"platform tables":    "none that helix uses is open",
	} {
		if l := line(t, out, name); !strings.Contains(l, want) {
			t.Errorf("%s: %q, want %q", name, l, want)
		}
	}
	if l := line(t, out, "database"); !strings.Contains(l, "PostgreSQL 1") || strings.Contains(l, "password") {
		t.Errorf("database line %q", l)
	}
	// a provider key not set is a warning, not a failure
	if l := line(t, out, "llm.anthropic.api-key"); !strings.HasPrefix(l, "WARN") || !strings.Contains(l, "not set (HELIX_LLM_ANTHROPIC_API_KEY)") {
		t.Errorf("unset key: %q", l)
	}

	js, _, err := doctor(t, "database-url: "+url+"\nllm:\n  anthropic:\n    api-key: sk-ant-doctor-test-key\n", "--output", "json")
	var rep struct {
		Healthy bool `json:"healthy"`
		Checks  []struct{ Name, Status, Detail string }
	}
	if err != nil || json.Unmarshal([]byte(js), &rep) != nil || !rep.Healthy {
		t.Fatalf("json: %v\n%s", err, js)
	}
	if strings.Contains(js, "sk-ant-doctor-test-key") {
		t.Error("the report prints a secret")
	}
	found := false
	for _, c := range rep.Checks {
		if c.Name == "llm.anthropic.api-key" {
			found = true
			if c.Status != "ok" || c.Detail != "set" {
				t.Errorf("set key: %+v", c)
			}
		}
	}
	if !found || len(rep.Checks) < 8 {
		t.Errorf("checks %+v: no llm.anthropic.api-key", rep.Checks)
	}
}

// TestNotMigrated: a database without helix's schema fails the migrations
// check (exit 1) and skips row-level security; the report is still whole.
func TestNotMigrated(t *testing.T) {
	t.Parallel()
	out, _, err := doctor(t, "database-url: "+pgtest.Empty(t)+"\n")
	if cmdutil.Code(err) != cmdutil.ExitFailed {
		t.Fatalf("exit %d (%v), want 1", cmdutil.Code(err), err)
	}
	if l := line(t, out, "migrations"); !strings.HasPrefix(l, "FAIL") || !strings.Contains(l, "pending: run helix migrate up") {
		t.Errorf("migrations: %q", l)
	}
	if l := line(t, out, "row-level security"); !strings.HasPrefix(l, "SKIP") {
		t.Errorf("row-level security: %q", l)
	}
}

// TestBadSettings: a misspelt key and a per-invocation argument in the file
// are named with their line, and the run is a usage error (exit 2).
func TestBadSettings(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	out, _, err := doctor(t, "database-url: "+url+"\ndb:\n  statment-timeout: 5s\nsynthesize:\n  user-id: 11111111-1111-4111-8111-111111111111\n")
	if cmdutil.Code(err) != cmdutil.ExitUsage {
		t.Fatalf("exit %d (%v), want 2\n%s", cmdutil.Code(err), err, out)
	}
	l := line(t, out, "config keys")
	for _, want := range []string{
		"config.yaml:3: db.statment-timeout is not a helix setting",
		"config.yaml:5: synthesize.user-id is a per-invocation argument",
	} {
		if !strings.Contains(l, want) {
			t.Errorf("config keys: %q, want %q", l, want)
		}
	}
}

// TestUnreachable: a server that does not answer is exit 4, retry later.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	out, _, err := doctor(t, fmt.Sprintf("database-url: postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=3\n", port))
	if cmdutil.Code(err) != cmdutil.ExitUnavailable {
		t.Fatalf("exit %d (%v), want 4\n%s", cmdutil.Code(err), err, out)
	}
	if l := line(t, out, "database"); !strings.HasPrefix(l, "FAIL") {
		t.Errorf("database: %q", l)
	}
}

// TestThroughPgBouncer: doctor names the pool mode it found behind each
// PgBouncer mode, or the one db.pool-mode says, and the rest of the checks
// pass through the pooler as they do direct.
func TestThroughPgBouncer(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	for _, c := range []struct{ mode, setting, want string }{
		{pgtest.SessionMode, "", "session pooler, found by probing (db.pool-mode auto): each connection kept its own backend, which sees a pooler's port, not this connection's (a session pooler); every job works"},
		{pgtest.TransactionMode, "", "transaction pooler, found by probing (db.pool-mode auto): two connections' statements shared server backends (a transaction pooler); every job works: statements are described"},
		{pgtest.TransactionMode, "db:\n  pool-mode: transaction\n", "transaction pooler, db.pool-mode transaction; every job works"},
	} {
		t.Run(c.mode+"/"+strings.TrimSpace(c.setting), func(t *testing.T) {
			out, _, err := doctor(t, "database-url: "+pgtest.Bouncer(t, c.mode, url)+"\n"+c.setting)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if l := line(t, out, "connection path"); !strings.Contains(l, c.want) {
				t.Errorf("connection path: %q, want %q", l, c.want)
			}
			if l := line(t, out, "migrations"); !strings.HasPrefix(l, "OK") {
				t.Errorf("migrations: %q", l)
			}
		})
	}
}
