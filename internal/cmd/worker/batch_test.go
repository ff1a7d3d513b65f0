package worker

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/testbin"
)

// TestUsersPerJob: synthesize --all-users --enqueue --users-per-job 50 puts
// 600 users in 12 jobs; two workers give every user the in-process run's
// synthesis, one ok run per job. A completed job worked again (as after a
// crash between a user's commit and the job's completion) finds every user
// current and recomputes none.
func TestUsersPerJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helix processes over 600 users: skipped with -short")
	}
	t.Parallel()
	const users, perJob = 600, 50
	url, ref := twoDatabases(t, func(p *pgxpool.Pool) { seed(t, p, users, 6) })
	params := []string{"--min-cluster-size", "2", "--min-confidence", "0"}
	helix(t, ref, nil, append([]string{"synthesize", "--all-users"}, params...)...)

	args := append([]string{"synthesize", "--all-users", "--users-per-job", fmt.Sprint(perJob)}, params...)
	jobs := enqueueTwice(t, url, nil, "synthesize_users", args...)
	if jobs != users/perJob {
		t.Fatalf("%d jobs for %d users, want %d", jobs, users, users/perJob)
	}
	var ws []*testbin.Proc
	for range 2 {
		ws = append(ws, start(t, url, "worker", "--once", "--queues", "synthesize", "--concurrency", "2", "--poll-interval", "200ms"))
	}
	for i, w := range ws {
		if code := w.Wait(t, 3*time.Minute); code != 0 {
			t.Fatalf("worker %d: exit %d\n%s", i, code, w.Stderr.String())
		}
	}
	pool := open(t, url)
	if n := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'synthesize_users' AND state = 'completed'`); n != jobs {
		t.Errorf("%d of %d jobs completed", n, jobs)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM job_runs WHERE job = 'synthesize' AND status = 'ok' AND (counts->>'done')::int = $1`, perJob); n != jobs {
		t.Errorf("%d ok runs that did %d users each, want %d", n, perJob, jobs)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM job_runs WHERE status <> 'ok'`); n != 0 {
		t.Errorf("%d job_runs rows not ok", n)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_synthesis_state`); n != users {
		t.Errorf("%d users with a recorded synthesis, want %d", n, users)
	}
	refPool := open(t, ref)
	if got, want := scalar[string](t, pool, synthesisDigest), scalar[string](t, refPool, synthesisDigest); got != want {
		t.Errorf("workers' synthesis differs from the in-process run's")
	}

	// Work one completed job again: every user is current.
	id := scalar[int64](t, pool, `SELECT min(id) FROM river_job WHERE kind = 'synthesize_users'`)
	helix(t, url, nil, "jobs", "retry", fmt.Sprint(id))
	helix(t, url, nil, "worker", "--once", "--queues", "synthesize", "--poll-interval", "200ms")
	var counts map[string]int
	if err := json.Unmarshal([]byte(scalar[string](t, pool, `SELECT counts::text FROM job_runs WHERE params->>'river_job_id' = $1 ORDER BY id DESC LIMIT 1`, fmt.Sprint(id))), &counts); err != nil {
		t.Fatal(err)
	}
	if counts["unchanged"] != perJob || counts["done"] != 0 {
		t.Errorf("the job worked again: %v, want all %d users unchanged", counts, perJob)
	}
	if got, want := scalar[string](t, pool, synthesisDigest), scalar[string](t, refPool, synthesisDigest); got != want {
		t.Errorf("synthesis changed after the job was worked again")
	}
}

func open(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
