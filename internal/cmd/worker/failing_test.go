package worker

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/cmdutil"
)

// TestSynthesizeFailingUser is the differential test of issue 34 for the
// synthesize kinds: the same users, one of whom fails (an embedding no
// reader can decode), synthesized in-process (`synthesize --all-users`)
// and through the queue with the default flags (`--enqueue`, `helix
// worker`), write the same rows, record the same run (status partial,
// the same counts, the same typed args) and leave the same user
// unrecorded for the next run. The in-process run exits 3; the job
// completes (River does not retry the users already done).
func TestSynthesizeFailingUser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts helix processes: skipped with -short")
	}
	t.Parallel()
	bad := uuid.NewSHA1(uuid.NameSpaceOID, []byte("bad"))
	queued, ref := twoDatabases(t, func(pool *pgxpool.Pool) {
		seed(t, pool, 60, 6)
		mustExec(t, pool, `INSERT INTO memories (id, user_id, type, content, embedding, created_at)
			VALUES (md5('bad')::uuid, $1, 'episodic', 'broken', ARRAY[1, NULL]::real[], timestamptz '2026-02-01')`, bad)
	})
	params := []string{"--min-cluster-size", "2", "--min-confidence", "0"}
	p := start(t, ref, append([]string{"synthesize", "--all-users", "-o", "json"}, params...)...)
	if code := p.Wait(t, 3*time.Minute); code != int(cmdutil.ExitPartial) {
		t.Fatalf("in-process run: exit %d, want %d (partial)\n%s", code, cmdutil.ExitPartial, p.Stderr.String())
	}
	helix(t, queued, nil, append([]string{"synthesize", "--all-users", "--enqueue"}, params...)...)
	drainQueue(t, queued, nil, "synthesize", "synthesize_users", 1)

	qp, rp := open(t, queued), open(t, ref)
	if got, want := scalar[string](t, qp, synthesisDigest), scalar[string](t, rp, synthesisDigest); got != want {
		t.Errorf("the worker's synthesis differs from the in-process run's")
	}
	const unrecorded = `SELECT coalesce(string_agg(DISTINCT m.user_id::text, ','), '') FROM memories m
		WHERE NOT EXISTS (SELECT 1 FROM helix_synthesis_state s WHERE s.user_id = m.user_id)`
	for name, pool := range map[string]*pgxpool.Pool{"worker": qp, "in-process": rp} {
		if got := scalar[string](t, pool, unrecorded); got != bad.String() {
			t.Errorf("%s: users left unrecorded %q, want only the failing one", name, got)
		}
	}
	// The run records: one each, partial, the same counts and typed args
	// (the job's args carry its users; the in-process run covers them all).
	const run = `SELECT status || ' ' || (counts::jsonb - 'unchanged')::text || ' ' || ((params::jsonb->'args') - 'user_ids')::text || ' ' || (params->>'units')
		FROM job_runs WHERE job = 'synthesize'`
	if got, want := scalar[string](t, qp, run), scalar[string](t, rp, run); got != want {
		t.Errorf("run records differ:\n worker     %s\n in-process %s", got, want)
	} else {
		t.Logf("run record: %s", got)
	}
	if n := scalar[int](t, qp, `SELECT count(*) FROM job_runs WHERE job = 'synthesize' AND status = 'partial' AND (counts->>'failed')::int = 1`); n != 1 {
		t.Errorf("%d partial runs with one failed user, want 1", n)
	}
	// River completed the job: nothing is retried, the next run takes the user.
	if st := scalar[string](t, qp, `SELECT string_agg(state::text, ',') FROM river_job`); st != "completed" {
		t.Errorf("job states %s, want completed", st)
	}
}
