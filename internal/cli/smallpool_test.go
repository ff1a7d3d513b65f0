package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

// smallPool is Supabase's smallest pooler: PgBouncer in session mode with
// 15 server connections (its defaults otherwise: query_wait_timeout 120 s).
const smallPool = "default_pool_size = 15"

// TestManyProcessesOnASmallSessionPool (issue 48): 24 helix processes
// started together through a session pooler of 15 connections all finish
// with exit 0. Each holds one server connection at a time while it finds
// the path (db.pool-mode auto) and while it works, so the ones that wait,
// wait for a process that will finish; none waits for itself.
func TestManyProcessesOnASmallSessionPool(t *testing.T) {
	t.Parallel()
	root, _ := filepath.Abs("../..")
	direct := pgtest.URL(t)
	through := pgtest.BouncerWith(t, pgtest.SessionMode, direct, smallPool)
	mustRun(t, []string{"DATABASE_URL=" + direct}, "import", "memories", filepath.Join(root, "testdata/demo/memories.jsonl"))
	users := []string{matrixUser}
	for len(users) < 24 {
		users = append(users, uuid.NewString())
	}
	var wg sync.WaitGroup
	results := make([]result, len(users))
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = helix(t, []string{"DATABASE_URL=" + through}, "", "synthesize", "--user-id", u)
		}()
	}
	wg.Wait()
	var bad []string
	for i, r := range results {
		if r.code != 0 {
			bad = append(bad, fmt.Sprintf("user %s: exit %d: %s", users[i], r.code, strings.TrimSpace(r.stderr)))
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d of %d processes failed:\n%s", len(bad), len(users), strings.Join(bad, "\n"))
	}
	var n int
	if err := pgtest.Open(t, direct).QueryRow(context.Background(),
		`SELECT count(*) FROM job_runs WHERE job = 'synthesize' AND status = 'ok'`).Scan(&n); err != nil || n != len(users) {
		t.Errorf("job_runs: %d synthesize runs ok (%v), want %d", n, err, len(users))
	}
}

// TestTwoWorkersOnASmallSessionPool (issue 48): two default workers (no
// db.max-conns, no flags) through a session pooler of 15 connections, a
// schedule firing every second: each fire is a helix child process that
// needs a server connection of its own beside the workers'. At least 90 %
// of the ticks of 40 seconds are fired and done — or a worker refuses at
// start, naming the pooler, what it got and the setting to change.
func TestTwoWorkersOnASmallSessionPool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	direct := pgtest.URL(t)
	through := pgtest.BouncerWith(t, pgtest.SessionMode, direct, smallPool)
	env := []string{"DATABASE_URL=" + through}
	mustRun(t, []string{"DATABASE_URL=" + direct}, "schedule", "add", "tick", "--cron", "@every 1s", "--", "sync", "reconcile")
	pool := pgtest.Open(t, direct)
	a := start(t, env, "worker")
	b := start(t, env, "worker")
	const window = 40 * time.Second
	time.Sleep(5 * time.Second) // both started (or one refused)
	var from, to time.Time
	if err := pool.QueryRow(ctx, `SELECT now()`).Scan(&from); err != nil {
		t.Fatal(err)
	}
	time.Sleep(window)
	if err := pool.QueryRow(ctx, `SELECT now()`).Scan(&to); err != nil {
		t.Fatal(err)
	}
	// the window's fires have up to 20 s more to finish
	var done, fired int
	deadline := time.Now().Add(20 * time.Second)
	for {
		if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'ok'), count(*) FROM helix_schedule_fires
			WHERE tick >= $1 AND tick < $2`, from, to).Scan(&done, &fired); err != nil {
			t.Fatal(err)
		}
		if done == fired || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	mustRun(t, []string{"DATABASE_URL=" + direct}, "schedule", "pause", "tick")
	ticks := int(to.Sub(from) / time.Second)
	codes := []int{}
	for _, w := range []*testbin.Proc{a, b} {
		_ = w.Cmd.Process.Signal(syscall.SIGTERM)
		codes = append(codes, w.Wait(t, time.Minute))
	}
	t.Logf("%d of %d ticks done (%d fired) in %s; worker exits %v", done, ticks, fired, to.Sub(from).Round(time.Second), codes)
	for i, w := range []*testbin.Proc{a, b} {
		for _, l := range strings.Split(w.Stderr.String(), "\n") {
			if strings.Contains(l, "connection budget") || strings.Contains(l, "lends") {
				t.Logf("worker %d: %s", i, l)
			}
		}
		if codes[i] == 0 {
			continue
		}
		if codes[i] != 4 || !strings.Contains(w.Stderr.String(), "session pooler lends") || !strings.Contains(w.Stderr.String(), "db.max-conns") {
			t.Errorf("worker %d: exit %d, want 0, or 4 naming the pooler, what it lends and the setting:\n%s", i, codes[i], tail(w.Stderr.String()))
		}
	}
	if codes[0] != 0 && codes[1] != 0 {
		t.Errorf("both workers refused")
	}
	if done*10 < ticks*9 {
		t.Errorf("%d of %d ticks done, want ≥ 90 %%\nworker a:\n%s\nworker b:\n%s", done, ticks, tail(a.Stderr.String()), tail(b.Stderr.String()))
	}
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}
