package factory

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
)

// TestMain takes every helix setting out of the environment: each test's
// config file is the only source.
func TestMain(m *testing.M) {
	cmdtest.UnsetHelixEnv()
	os.Exit(m.Run())
}

// newWith is the production Factory reading a config file of the given lines.
func newWith(t *testing.T, lines string) *cmdutil.Factory {
	t.Helper()
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	f, cleanup := New("test")
	t.Cleanup(cleanup)
	f.Global.ConfigFile = file
	return f
}

// TestDBIsOpenedOnceAndClosedByCleanup: the pool is opened on first use
// with the running command's application_name, the same pool is handed out
// after, and the cleanup closes it.
func TestDBIsOpenedOnceAndClosedByCleanup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte("database-url: "+pgtest.URL(t)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, cleanup := New("test")
	f.Global.ConfigFile, f.Global.Command = file, "decay run"
	if f.DBLost(ctx) {
		t.Error("DBLost before the database was opened")
	}
	p1, err := f.DB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := f.DB(ctx)
	if p1 != p2 {
		t.Error("a second pool was opened")
	}
	var app string
	if err := p1.QueryRow(ctx, "SELECT current_setting('application_name')").Scan(&app); err != nil || app != "helix-decay-run" {
		t.Errorf("application_name %q (%v)", app, err)
	}
	if f.DBLost(ctx) {
		t.Error("DBLost on a live database")
	}
	c1, _ := f.Config()
	c2, _ := f.Config()
	if c1 != c2 || c1.File() != file {
		t.Errorf("config loaded twice or from %q", c1.File())
	}
	cleanup()
	if err := p1.Ping(ctx); err == nil {
		t.Error("the pool is still open after cleanup")
	}
}

// TestDBRefusals: what stops a command before it touches the database, and
// with which exit code.
func TestDBRefusals(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	server := pgtest.ServerURL()
	for _, c := range []struct {
		name, lines string
		code        cmdutil.ExitCode
		want        string
	}{
		{"no url", "db:\n  max-conns: 4\n", cmdutil.ExitUsage, "no database URL"},
		{"bad url", "database-url: postgres://u@h:99999/d\n", cmdutil.ExitUsage, "invalid database URL (file "},
		{"no such database", "database-url: " + strings.Replace(server, "/postgres?", "/helix_no_such_db?", 1) + "\n", cmdutil.ExitUsage, "database refused the connection"},
		{"not migrated", "database-url: " + pgtest.Empty(t) + "\n", cmdutil.ExitUsage, "database is not migrated"},
		{"unreachable", fmt.Sprintf("database-url: postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable\n", closed), cmdutil.ExitUnavailable, "database unavailable (retry later)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := newWith(t, c.lines).DB(context.Background())
			if cmdutil.Code(err) != c.code || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("exit %d, %v; want %d and %q", cmdutil.Code(err), err, c.code, c.want)
			}
		})
	}
}

// TestSchemaOptional: migrate and doctor open a database that is not
// migrated yet.
func TestSchemaOptional(t *testing.T) {
	t.Parallel()
	f := newWith(t, "database-url: "+pgtest.Empty(t)+"\n")
	f.Global.SchemaOptional = true
	if _, err := f.DB(context.Background()); err != nil {
		t.Fatal(err)
	}
}
