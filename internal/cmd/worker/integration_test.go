package worker

import (
	"context"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

// seed gives n users k memories each, with ids derived from the user and
// position so two databases seeded alike hold the same rows.
func seed(t *testing.T, pool *pgxpool.Pool, n, k int) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `
		INSERT INTO memories (id, user_id, type, content, emotional_valence, created_at)
		SELECT md5('m' || u || '-' || k)::uuid, md5('u' || u)::uuid,
		       (ARRAY['episodic', 'semantic', 'procedural'])[1 + k % 3],
		       'user ' || u || ' wrote note ' || k || ' about ' || (ARRAY['coffee', 'running', 'work', 'family'])[1 + (u + k) % 4],
		       ((k % 5) - 2) / 2.0,
		       timestamptz '2026-01-01' + (u % 97) * interval '1 hour' + k * interval '1 day'
		FROM generate_series(1, $1) u, generate_series(1, $2) k`, n, k)
	if err != nil {
		t.Fatal(err)
	}
}

func start(t *testing.T, url string, args ...string) *testbin.Proc {
	t.Helper()
	return testbin.Start(t, append(os.Environ(), "DATABASE_URL="+url, "HELIX_DB_MAX_CONNS=12", "HELIX_DB_LOCK_TTL=3s"), args...)
}

var clientID = regexp.MustCompile(`River client started.*client_id=(\S+)`)

func scalar[T any](t *testing.T, pool *pgxpool.Pool, sql string, args ...any) T {
	t.Helper()
	var v T
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// synthesisDigest hashes every user's synthesis, independent of run ids and times.
const synthesisDigest = `SELECT coalesce(md5(string_agg(row, E'\n' ORDER BY row)), '') FROM (
	SELECT user_id::text || '|' || pattern_type || '|' || array_to_string(memory_ids, ',') || '|' ||
	       synthesis_content || '|' || round(confidence_score::numeric, 4) || '|' || coalesce(fingerprint, '') AS row
	FROM memory_synthesis) s`

// TestThreeWorkers is issue 15's acceptance test: 5,000 users enqueued,
// three `helix worker --once` processes on one database; every user is
// synthesized exactly once and the result equals an in-process run's.
func TestThreeWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three helix processes over 5,000 users: skipped with -short")
	}
	t.Parallel()
	const users = 5000
	ctx := context.Background()
	url, ref := pgtest.URL(t), pgtest.URL(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	refPool, err := pgxpool.New(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	defer refPool.Close()
	seed(t, pool, users, 6)
	seed(t, refPool, users, 6)

	// Small clusters count, so every user has patterns to compare.
	params := []string{"--min-cluster-size", "2", "--min-confidence", "0"}
	if p := start(t, ref, append([]string{"synthesize", "--all-users", "--concurrency", "2"}, params...)...); p.Wait(t, 3*time.Minute) != 0 {
		t.Fatalf("in-process synthesize: exit %d\n%s", p.Code(), p.Stderr.String())
	}
	enq := start(t, url, append([]string{"synthesize", "--all-users", "--enqueue", "--users-per-job", "1"}, params...)...)
	if enq.Wait(t, time.Minute) != 0 {
		t.Fatalf("enqueue: exit %d\n%s", enq.Code(), enq.Stderr.String())
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'synthesize'`); n != users {
		t.Fatalf("%d jobs enqueued, want %d", n, users)
	}
	var ws []*testbin.Proc
	for range 3 {
		ws = append(ws, start(t, url, "worker", "--once", "--concurrency", "3", "--poll-interval", "200ms"))
	}
	for i, w := range ws {
		if code := w.Wait(t, 3*time.Minute); code != 0 {
			t.Fatalf("worker %d: exit %d\n%s", i, code, w.Stderr.String())
		}
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'synthesize' AND state = 'completed'`); n != users {
		t.Errorf("%d of %d jobs completed", n, users)
	}
	// Exactly once: one ok job_runs row per user, none failed or left running,
	// and each user's synthesis comes from one run.
	if n := scalar[int](t, pool, `SELECT count(DISTINCT params->'args'->>'user_id') FROM job_runs WHERE job = 'synthesize' AND status = 'ok'`); n != users {
		t.Errorf("%d users synthesized, want %d", n, users)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM job_runs WHERE job = 'synthesize' AND status = 'ok'`); n != users {
		t.Errorf("%d ok runs for %d users: some user was done twice", n, users)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM job_runs WHERE status <> 'ok'`); n != 0 {
		t.Errorf("%d job_runs rows not ok", n)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM (SELECT user_id FROM memory_synthesis GROUP BY user_id HAVING count(DISTINCT job_run_id) > 1) d`); n != 0 {
		t.Errorf("%d users with synthesis from more than one run", n)
	}
	got, want := scalar[string](t, pool, synthesisDigest), scalar[string](t, refPool, synthesisDigest)
	if got != want || scalar[int](t, pool, `SELECT count(DISTINCT user_id) FROM memory_synthesis`) != users {
		t.Errorf("workers' synthesis differs from the in-process run's (%d vs %d rows)",
			scalar[int](t, pool, `SELECT count(*) FROM memory_synthesis`), scalar[int](t, refPool, `SELECT count(*) FROM memory_synthesis`))
	}
	t.Logf("%d users, %d patterns", users, scalar[int](t, pool, `SELECT count(*) FROM memory_synthesis`))
}

// TestKilledWorkerRescued SIGKILLs one of two workers mid-run (counting
// synthesize jobs only: the workers also run helix schedule's tick passes): the other
// rescues its jobs (short --rescue-after) and completes them; no user is
// done twice and no job_runs row is left running. SIGTERM then stops the
// survivor with exit 0.
func TestKilledWorkerRescued(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helix worker processes and kills one: skipped with -short")
	}
	t.Parallel()
	const users = 400
	ctx := context.Background()
	url := pgtest.URL(t)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	seed(t, pool, users, 150) // users big enough that jobs are in hand when the kill comes
	if p := start(t, url, "synthesize", "--all-users", "--enqueue", "--users-per-job", "1"); p.Wait(t, time.Minute) != 0 {
		t.Fatalf("enqueue: exit %d\n%s", p.Code(), p.Stderr.String())
	}
	// Two workers share the queue; the victim dies once jobs are flowing.
	wargs := []string{"worker", "--concurrency", "4", "--poll-interval", "100ms", "--job-timeout", "2s", "--rescue-after", "3s"}
	rescuer := start(t, url, append(wargs, "--shutdown-timeout", "5s")...)
	// The victim is SIGKILLed while River shows it holding jobs. A job can
	// finish between that look and the kill; then the kill proved nothing and
	// a fresh victim is started and killed again.
	running := 0
	for attempt := 1; attempt <= 5 && running == 0; attempt++ {
		victim := start(t, url, wargs...)
		// River logs its client id; the kill waits for jobs that client holds.
		var id string
		deadline := time.Now().Add(time.Minute)
		for {
			if m := clientID.FindStringSubmatch(victim.Stderr.String()); m != nil && id == "" {
				id = m[1]
			}
			if id != "" && scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'synthesize' AND state = 'running' AND attempted_by[cardinality(attempted_by)] = $1`, id) > 0 &&
				scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'synthesize' AND state = 'completed'`) >= 20 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("worker %d never held a job\n%s", attempt, victim.Stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := victim.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-victim.Done()
		running = scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'synthesize' AND state = 'running' AND attempted_by[cardinality(attempted_by)] = $1`, id)
		t.Logf("attempt %d: killed a worker with %d jobs running", attempt, running)
	}
	if running == 0 {
		t.Fatal("in 5 attempts no worker held a job at the moment it was killed")
	}
	// The rescuer works on until every job is done, then SIGTERM stops it: exit 0.
	deadline := time.Now().Add(3 * time.Minute)
	for scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'synthesize' AND state = 'completed'`) < users && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if err := rescuer.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := rescuer.Wait(t, time.Minute); code != 0 {
		t.Fatalf("rescuer after SIGTERM: exit %d, want 0\n%s", code, rescuer.Stderr.String())
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'synthesize' AND state = 'completed'`); n != users {
		t.Errorf("%d of %d jobs completed\n%s", n, users, rescuer.Stderr.String())
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM job_runs WHERE status = 'running'`); n != 0 {
		t.Errorf("%d job_runs rows left running", n)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM job_runs WHERE job = 'synthesize' AND status = 'ok'`); n != users {
		t.Errorf("%d ok runs for %d users: some user was done twice or not at all", n, users)
	}
	if n := scalar[int](t, pool, `SELECT count(DISTINCT user_id) FROM memory_synthesis`); n > users {
		t.Errorf("%d users synthesized", n)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'synthesize' AND state = 'completed' AND cardinality(attempted_by) > 1`); n == 0 {
		// Not n < running: a COMMIT in flight at the kill can still land, so
		// some of the jobs seen running needed no rescue.
		t.Errorf("no completed job was attempted by two clients: the victim's %d were not rescued", running)
	}
	t.Logf("job_runs: %d interrupted (the victim's, closed by the rescuer's reaper)",
		scalar[int](t, pool, `SELECT count(*) FROM job_runs WHERE status = 'interrupted'`))
}

// Issue 32, finding 10: a job_runs row left running by a process that died
// (no session holds its run lock: what a SIGKILLed helix job leaves) is
// closed by a running worker's maintenance within seconds, not when the
// next helix job starts (before: a worker looked once a minute).
func TestWorkerClosesDeadRunsInSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a helix worker: skipped with -short")
	}
	t.Parallel()
	url := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	w := start(t, url, "worker", "--queues", "catalog", "--poll-interval", "100ms")
	for deadline := time.Now().Add(time.Minute); !strings.Contains(w.Stderr.String(), "worker started"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("worker never started\n%s", w.Stderr.String())
		}
	}
	time.Sleep(MaintainEvery) // past the worker's first look
	id := scalar[int64](t, pool, `INSERT INTO job_runs (job, params, started_at, status) VALUES ('decay', '{}', now(), 'running') RETURNING id`)
	made := time.Now()
	bound := 2*MaintainEvery + 3*time.Second
	for scalar[string](t, pool, `SELECT status FROM job_runs WHERE id = $1`, id) == "running" {
		if time.Since(made) > bound {
			t.Fatalf("a dead run's job_runs row still running %s later (bound %s)", time.Since(made), bound)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("closed %s after the row was left running", time.Since(made).Round(10*time.Millisecond))
	if err := w.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := w.Wait(t, time.Minute); code != 0 {
		t.Errorf("worker after SIGTERM: exit %d\n%s", code, w.Stderr.String())
	}
}
