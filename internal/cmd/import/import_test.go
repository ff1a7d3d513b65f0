package importcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
)

func TestParseArgs(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	newCmd := func(runF func(*MemoriesOptions) error) *cobra.Command { return NewCmdMemories(f, runF) }
	opts, err := cmdtest.Parse(newCmd, "testdata/x.jsonl")
	if err != nil || opts == nil || opts.File != "testdata/x.jsonl" {
		t.Fatalf("parse: %+v %v", opts, err)
	}
	if _, err := cmdtest.Parse(newCmd, ""); err == nil {
		t.Fatal("no FILE accepted")
	}
	if _, err := cmdtest.Parse(newCmd, "a.jsonl b.jsonl"); err == nil {
		t.Fatal("two FILEs accepted")
	}
}

const demo = "../../../testdata/demo/memories.jsonl"

// TestImportTwiceAddsNothing imports the demo file twice through the
// command: the second run reads every line and finds each already present.
func TestImportTwiceAddsNothing(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	lines := countLines(t, demo)
	run := func(tty bool, json bool) (string, error) {
		f, s := cmdtest.Factory(t, tty)
		cmdtest.WithDB(f, pool)
		if json {
			f.Global.Output = "json"
		}
		cmd := NewCmdMemories(f, nil)
		cmd.SetArgs([]string{demo})
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.ExecuteContext(context.Background())
		return s.Out.String(), err
	}
	out, err := run(true, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "imported " + strconv.Itoa(lines) + " memories from " + demo + " (" + strconv.Itoa(lines) + " read, 0 already present)\n"
	if out != want {
		t.Fatalf("first import printed %q, want %q", out, want)
	}
	out, err = run(false, true)
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Read, Inserted, Existing int }
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("second import JSON %q: %v", out, err)
	}
	if res.Read != lines || res.Inserted != 0 || res.Existing != lines {
		t.Fatalf("second import = %+v, want %d read, 0 inserted, %d existing", res, lines, lines)
	}
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM memories").Scan(&n); err != nil || n != lines {
		t.Fatalf("memories rows = %d (%v), want %d", n, err, lines)
	}
}

// TestBadLineImportsNothing: one bad line anywhere loads nothing and the
// error names the file and the line (exit 2).
func TestBadLineImportsNothing(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	path := filepath.Join(t.TempDir(), "m.jsonl")
	good := `{"user_id":"11111111-1111-4111-8111-111111111111","type":"semantic","content":"ok","created_at":"2026-10-01T08:30:00Z"}`
	bad := `{"user_id":"11111111-1111-4111-8111-111111111111","type":"dreamlike","content":"no","created_at":"2026-10-01T08:30:00Z"}`
	if err := os.WriteFile(path, []byte(good+"\n"+bad+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, s := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	cmd := NewCmdMemories(f, nil)
	cmd.SetArgs([]string{path})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.ExecuteContext(context.Background())
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage {
		t.Fatalf("error = %v, want an exit-2 input error", err)
	}
	for _, want := range []string{path, "line 2", "nothing was imported"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if s.Out.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", s.Out.String())
	}
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM memories").Scan(&n); err != nil || n != 0 {
		t.Fatalf("memories rows = %d (%v), want 0", n, err)
	}
}

func TestMissingFileIsUsageError(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	cmd := NewCmdMemories(f, nil)
	cmd.SetArgs([]string{filepath.Join(t.TempDir(), "missing.jsonl")})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.ExecuteContext(context.Background())
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage {
		t.Fatalf("error = %v, want exit 2", err)
	}
}

func countLines(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(bytes.TrimSpace(b), []byte("\n")) + 1
}
