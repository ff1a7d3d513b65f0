package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

type pgUpRun struct {
	stdout, stderr string
	err            error
}

// pgUp runs scripts/pg-up.sh (or another script) with exactly env and a PATH
// whose first psql answers every URL on port 5432, as a shared trust-auth
// system server would (issue 49: pg-up used it silently), and hands any other
// URL to the real psql.
func pgUp(t *testing.T, script string, env ...string) pgUpRun {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fake := t.TempDir()
	real, err := exec.LookPath("psql")
	if err != nil {
		ms, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql")
		if len(ms) == 0 {
			t.Skip("psql is not installed: pg-up cannot be tested here")
		}
		real = ms[len(ms)-1]
	}
	psql := fmt.Sprintf("#!/usr/bin/env bash\ncase \"$1\" in *:5432/*) exit 0;; esac\nexec %q \"$@\"\n", real)
	if err := os.WriteFile(filepath.Join(fake, "psql"), []byte(psql), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, "scripts", script))
	cmd.Dir = root
	cmd.Env = append([]string{"PATH=" + fake + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return pgUpRun{out.String(), errb.String(), err}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// scripts/pg-up.sh uses a server only by the user's choice
// (HELIX_TEST_DATABASE_URL) or helix's own throwaway cluster on
// HELIX_PG_PORT, says which before using it, and never picks up whatever
// answers on 5432 (issue 49).
func TestPgUpSaysWhichServerAndNeverTakes5432(t *testing.T) {
	t.Parallel()
	if ms, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(ms) == 0 {
		t.Skip("no PostgreSQL server binaries: pg-up would install them")
	}
	parent, err := os.MkdirTemp("", "helix-pgup-")
	if err != nil {
		t.Fatal(err)
	}
	// the postgres user (pg-up runs the cluster as it under root) must reach the data
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(parent, "pg")
	t.Cleanup(func() {
		if r := pgUp(t, "pg-down.sh", "HELIX_PG_DATA="+data); r.err != nil {
			t.Errorf("pg-down: %v\n%s", r.err, r.stderr)
		}
		// HELIX_PG_DATA names the one cluster pg-down stops: the suite's own
		// (make test's, under .helix/pg) still answers
		if c, err := pgx.Connect(context.Background(), pgtest.ServerURL()); err != nil {
			t.Errorf("pg-down HELIX_PG_DATA=%s stopped the test server too: %v", data, err)
		} else {
			c.Close(context.Background())
		}
		_ = os.RemoveAll(parent)
	})
	port := freePort(t)
	own := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	env := []string{"HELIX_PG_DATA=" + data, fmt.Sprintf("HELIX_PG_PORT=%d", port), "DATABASE_URL=postgres://me@127.0.0.1:5432/prod"}

	r := pgUp(t, "pg-up.sh", env...)
	if r.err != nil || strings.TrimSpace(r.stdout) != own {
		t.Fatalf("pg-up: %v, stdout %q, want %q\nstderr:\n%s", r.err, r.stdout, own, r.stderr)
	}
	for _, want := range []string{"using helix's throwaway cluster " + own, "DATABASE_URL is set but not used", "creating helix's throwaway cluster in " + data} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	// again: the running cluster is reused
	if r = pgUp(t, "pg-up.sh", env...); r.err != nil || strings.TrimSpace(r.stdout) != own || strings.Contains(r.stderr, "creating") {
		t.Errorf("second pg-up: %v, stdout %q\n%s", r.err, r.stdout, r.stderr)
	}
	// a HELIX_PG_PORT another server has is an error that says what to do; the cluster stays
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	r = pgUp(t, "pg-up.sh", "HELIX_PG_DATA="+data, fmt.Sprintf("HELIX_PG_PORT=%d", taken.Addr().(*net.TCPAddr).Port))
	if r.err == nil || r.stdout != "" || !strings.Contains(r.stderr, "Choose a free HELIX_PG_PORT") {
		t.Errorf("taken HELIX_PG_PORT: %v, stdout %q\n%s", r.err, r.stdout, r.stderr)
	}
	// the user's choice is used and named; a choice that does not answer is an error, not a fallback
	chosen := pgtest.Empty(t)
	if r = pgUp(t, "pg-up.sh", "HELIX_TEST_DATABASE_URL="+chosen); r.err != nil || strings.TrimSpace(r.stdout) != chosen ||
		!strings.Contains(r.stderr, "(from HELIX_TEST_DATABASE_URL)") {
		t.Errorf("HELIX_TEST_DATABASE_URL: %v, stdout %q\n%s", r.err, r.stdout, r.stderr)
	}
	closed := fmt.Sprintf("postgres://postgres:secret@127.0.0.1:%d/postgres?sslmode=disable", freePort(t))
	if r = pgUp(t, "pg-up.sh", "HELIX_TEST_DATABASE_URL="+closed); r.err == nil || r.stdout != "" ||
		!strings.Contains(r.stderr, "does not answer") || strings.Contains(r.stderr, "secret") {
		t.Errorf("HELIX_TEST_DATABASE_URL not answering: %v, stdout %q\n%s", r.err, r.stdout, r.stderr)
	}
}

// make demo's first build compiles for minutes: scripts/build-progress.sh
// says how far it is while it runs, and what it did at the end (issue 49).
func TestBuildProgressTicks(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	build := "echo 'go: downloading x v1' >&2; for p in a/b c/d e/f g/h; do echo $p >&2; sleep 0.5; done"
	cmd := exec.Command(filepath.Join(root, "scripts", "build-progress.sh"), "compiling bin/helix", "bash", "-c", build)
	cmd.Env = append(os.Environ(), "HELIX_PROGRESS_EVERY=0.2")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "compiling bin/helix: ") || !strings.Contains(errb.String(), "compiled, 1 module downloaded") {
		t.Errorf("no progress while building:\n%s", errb.String())
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "compiling bin/helix: done, 4 packages compiled in ") || out.Len() != 0 {
		t.Errorf("last line %q, stdout %q", last, out.String())
	}
	// a failed build shows its own output
	cmd = exec.Command(filepath.Join(root, "scripts", "build-progress.sh"), "compiling bin/helix", "bash", "-c", "echo 'main.go:1: syntax error' >&2; exit 1")
	errb.Reset()
	cmd.Stderr = &errb
	if err := cmd.Run(); err == nil || !strings.Contains(errb.String(), "main.go:1: syntax error") || !strings.Contains(errb.String(), "failed after") {
		t.Errorf("failed build: %v\n%s", err, errb.String())
	}
}

// helix ... | head: a reader that closes the pipe early is a quiet success,
// not exit 141 (SIGPIPE) nor an error on stderr (issue 49).
func TestClosedStdoutPipeIsQuietSuccess(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader has gone before helix writes
	cmd := exec.Command(testbin.Helix(t), "completion", "bash")
	cmd.Env = isolatedEnv(t)
	cmd.Stdout = w
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err = cmd.Run()
	w.Close()
	if code := cmd.ProcessState.ExitCode(); err != nil || code != 0 || errb.Len() != 0 {
		t.Errorf("exit %d (%v, %v), stderr %q; want a quiet 0", code, err, cmd.ProcessState, errb.String())
	}
	// stderr's reader gone is still death by SIGPIPE: a service must not
	// run on with nobody reading its log (the schedule crash tests rely on it)
	r, w, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd = exec.Command(testbin.Helix(t), "bogus")
	cmd.Env = isolatedEnv(t)
	cmd.Stderr = w
	_ = cmd.Run()
	w.Close()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGPIPE {
		t.Errorf("stderr closed: %v, want killed by SIGPIPE", cmd.ProcessState)
	}
}

// A run a signal stopped says so the same way whichever path saw it first:
// never "context canceled" in one place and "terminated signal received" in
// another (issue 49).
func TestInterruptedMessage(t *testing.T) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	for _, c := range []struct {
		err  error
		want string
	}{
		{context.Canceled, "interrupted by SIGTERM"},
		{fmt.Errorf("memories: chunk [a, b]: %w", context.Canceled), "interrupted by SIGTERM: memories: chunk [a, b]"},
		{fmt.Errorf("decay: %w", context.Cause(ctx)), "interrupted by SIGTERM: decay"},
		{context.Cause(ctx), "interrupted by SIGTERM"},
	} {
		err := Interrupted(ctx, c.err)
		if err.Error() != c.want || !errors.Is(err, c.err) {
			t.Errorf("%q: got %q, want %q", c.err, err, c.want)
		}
		var b bytes.Buffer
		PrintError(&b, false, err, 130, "interrupted")
		if b.String() != "helix: "+c.want+"\n" {
			t.Errorf("printed %q", b.String())
		}
	}
}

// make test runs its checks and installs side by side, and each says what it
// does and how long it took (issue 49: 22 silent minutes before the first test).
func TestMakeTestStepsSayWhatTheyDo(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-n", "--no-print-directory", "test")
	cmd.Dir = root
	plan, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n test: %v\n%s", err, plan)
	}
	for _, want := range []string{"-j4 fmt-check vet staticcheck units test-deps mcp-npm prism", "scripts/step.sh vet ", "scripts/step.sh staticcheck ",
		"scripts/step.sh test-deps ", "scripts/step.sh mcp-npm ", "scripts/step.sh prism ", "== go test -race ./..."} {
		if !strings.Contains(string(plan), want) {
			t.Errorf("make test's plan lacks %q:\n%s", want, plan)
		}
	}
	step := exec.Command(filepath.Join(root, "scripts", "step.sh"), "vet", "go vet ./...", "sh", "-c", "exit 3")
	out, err := step.CombinedOutput()
	if err == nil || !regexp.MustCompile(`^== vet: go vet \./\.\.\.\n== vet: FAILED after \d+ s \(exit 3\)\n$`).Match(out) {
		t.Errorf("step.sh: %v\n%s", err, out)
	}
}
