package composite

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

// TestRunInterrupted: SIGINT during a step ends helix with 130 and the run
// is recorded as cancelled.
func TestRunInterrupted(t *testing.T) {
	url := pgtest.URL(t)
	def := writeDef(t, "name: long\nversion: 1\nsteps:\n  - { id: spin, skill: \"{{spin.js}}\", input: { loops: -1 } }\n")
	cmd := exec.Command(testbin.Helix(t), "skill", "run", def)
	cmd.Env = append(cmd.Environ(), "HELIX_DATABASE_URL="+url, "XDG_CACHE_HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// Wait until the run is recorded as running, then interrupt it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM composite_skill_executions WHERE status = 'running'`).Scan(&n)
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the run never started: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v; stderr %s", err, stderr.String())
	}
	var status, stepStatus string
	if err := pool.QueryRow(context.Background(), `SELECT status, steps->0->>'status' FROM composite_skill_executions`).Scan(&status, &stepStatus); err != nil {
		t.Fatal(err)
	}
	if status != "cancelled" || stepStatus != "error" {
		t.Errorf("recorded %s, step %s", status, stepStatus)
	}
}
