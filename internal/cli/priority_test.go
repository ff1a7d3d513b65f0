package cli

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/pgtest"
)

// seedUsers gives users users (ids 00000000-0000-4000-8000-<n>, n from
// first) memories memories each, with small embeddings.
func seedUsers(t *testing.T, url string, first, users, memories int) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, `INSERT INTO memories (user_id, type, content, embedding, created_at)
		SELECT ('00000000-0000-4000-8000-' || lpad(u::text, 12, '0'))::uuid, 'semantic', 'note ' || m || ' of ' || u,
			ARRAY[random(), random(), random(), random()]::real[], now() - m * interval '1 hour'
		FROM generate_series($1::int, $1::int + $2::int - 1) u, generate_series(1, $3::int) m`, first, users, memories); err != nil {
		t.Fatal(err)
	}
}

// TestUserJobAheadOfBatch: with 2,000 --all-users batch jobs queued and one
// worker slot busy with them, a --user-id job enqueued afterwards completes
// before 10 % of the batch has run (issue 44). Before priorities, River's
// order was first queued, first fetched: the user's job ran last.
func TestUserJobAheadOfBatch(t *testing.T) {
	t.Parallel()
	const batch = 2000
	url := pgtest.URL(t)
	env := []string{"DATABASE_URL=" + url}
	seedUsers(t, url, 1, batch, 3)
	r := mustRun(t, env, "synthesize", "--all-users", "--enqueue", "--users-per-job", "1", "-o", "json")
	var e enqueued
	decodeOne(t, "synthesize --all-users --enqueue", r.stdout, &e)
	if e.Enqueued != batch || e.Priority != 3 {
		t.Fatalf("batch: %d jobs at priority %d, want %d at 3", e.Enqueued, e.Priority, batch)
	}
	seedUsers(t, url, batch+1, 1, 3) // the desktop's user, not in the batch
	user := "00000000-0000-4000-8000-" + leftPad(batch+1)

	wk := start(t, env, "worker", "--queues", "synthesize", "--concurrency", "1", "--poll-interval", "100ms")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	// the worker is into the batch
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var done int
		if err := c.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE state = 'completed'`).Scan(&done); err != nil {
			t.Fatal(err)
		}
		if done > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no batch job completed after 3 minutes; worker:\n%s", wk.Stderr.String())
		}
	}
	r = mustRun(t, env, "synthesize", "--user-id", user, "--enqueue", "-o", "json")
	decodeOne(t, "synthesize --user-id --enqueue", r.stdout, &e)
	if len(e.Jobs) != 1 || e.Jobs[0].Priority != 1 {
		t.Fatalf("user job: %s", r.stdout)
	}
	id := e.Jobs[0].ID
	if r := helix(t, env, "", "jobs", "wait", strconv.FormatInt(id, 10), "--timeout", "10m"); r.code != 0 {
		t.Fatalf("jobs wait %d: exit %d\n%s", id, r.code, r.stderr)
	}
	var before, total int
	if err := c.QueryRow(ctx, `SELECT count(*) FILTER (WHERE b.finalized_at <= u.finalized_at), count(*)
		FROM river_job b, river_job u WHERE u.id = $1 AND b.id <> u.id AND b.priority = 3`, id).Scan(&before, &total); err != nil {
		t.Fatal(err)
	}
	_ = wk.Cmd.Process.Signal(syscall.SIGTERM)
	wk.Wait(t, 2*time.Minute)
	t.Logf("batch jobs finished before the user's job: %d of %d", before, total)
	if total != batch || before >= batch/10 {
		t.Errorf("the user's job completed after %d of %d batch jobs, want fewer than %d", before, total, batch/10)
	}
}

func leftPad(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 12 {
		s = "0" + s
	}
	return s
}
