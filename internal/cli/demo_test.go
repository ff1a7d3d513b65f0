package cli

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/pgtest"
)

// TestMakeDemoTwice runs `make demo` twice on a fresh database, as a
// newcomer would after a first look: both runs print the patterns (the
// re-run synthesizes with --full) and end with how to point helix at the
// demo database and three commands to try.
func TestMakeDemoTwice(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	url := pgtest.Empty(t) // not migrated: the demo migrates it
	// the build reuses this machine's Go caches, as a user's make demo would
	goEnv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOFLAGS", "GOTOOLCHAIN").Output()
	if err != nil {
		t.Fatal(err)
	}
	vals := strings.Split(strings.TrimRight(string(goEnv), "\n"), "\n")
	env := []string{"DATABASE_URL=" + url}
	for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOFLAGS", "GOTOOLCHAIN"} {
		if i < len(vals) {
			env = append(env, k+"="+vals[i])
		}
	}
	for run := 1; run <= 2; run++ {
		cmd := exec.Command("make", "--no-print-directory", "demo")
		cmd.Dir = root
		cmd.Env = isolatedEnv(t, env...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("run %d: make demo: %v\nstdout:\n%s\nstderr:\n%s", run, err, out.String(), errb.String())
		}
		if !strings.Contains(errb.String(), "== compiling bin/helix") || !strings.Contains(errb.String(), "\ncompiling bin/helix: ") {
			t.Errorf("run %d: make demo does not say it is compiling:\n%s", run, errb.String())
		}
		// the Lisbon theme of the demo's first user, in the patterns table
		if !strings.Contains(out.String(), "lisbon · tram · alfama") || !strings.Contains(errb.String(), "patterns for 4 of 4 users") {
			t.Errorf("run %d: no patterns printed:\nstdout:\n%s\nstderr:\n%s", run, out.String(), errb.String())
		}
		tail := out.String()[strings.LastIndex(out.String(), "The demo database is ready"):]
		lines := strings.Split(strings.TrimSpace(tail), "\n")
		if len(lines) < 7 || strings.TrimSpace(lines[2]) != "export DATABASE_URL='"+url+"'" || strings.TrimSpace(lines[4]) != "then try:" {
			t.Errorf("run %d: the demo does not end with the export line and three commands:\n%s", run, tail)
			continue
		}
		for _, l := range lines[5:8] {
			if !strings.HasPrefix(strings.TrimSpace(l), "bin/helix ") {
				t.Errorf("run %d: %q is not a command to try", run, l)
			}
		}
	}
}
