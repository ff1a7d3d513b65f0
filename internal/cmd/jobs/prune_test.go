package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
)

// TestJobsPruneFinishedOnly (issue 48): `jobs prune --older-than 1h`
// deletes finished bookkeeping older than an hour — job_runs, schedule
// fires, River's completed, cancelled and discarded jobs — and nothing
// else: not a running run or job, not a fire whose River job will run it
// again, not a recent row, not an audit row however old.
func TestJobsPruneFinishedOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// job_runs: finished 2 h ago (goes), running for 2 h (stays), finished 10 min ago (stays)
	exec(`INSERT INTO job_runs (job, started_at, finished_at, status) VALUES
		('old-ok', now() - interval '3 hours', now() - interval '2 hours', 'ok'),
		('old-failed', now() - interval '3 hours', now() - interval '2 hours', 'failed'),
		('old-running', now() - interval '2 hours', NULL, 'running'),
		('recent-ok', now() - interval '11 minutes', now() - interval '10 minutes', 'ok')`)
	// River's jobs
	river := func(name, state string, finalized, created string) {
		t.Helper()
		fin := "NULL"
		if finalized != "" {
			fin = "now() - interval '" + finalized + "'"
		}
		attempted := "NULL"
		if state != "available" {
			attempted = "now() - interval '" + created + "'"
		}
		exec(`INSERT INTO river_job (args, kind, max_attempts, priority, queue, state, created_at, scheduled_at, attempted_at, finalized_at, attempt, metadata)
			VALUES (jsonb_build_object('name', $1::text), 'synthesize', 10, 1, 'synthesize', $2::river_job_state,
				now() - interval '`+created+`', now() - interval '`+created+`', `+attempted+`, `+fin+`, 1, '{}')`, name, state)
	}
	river("old-completed", "completed", "2 hours", "3 hours")
	river("old-cancelled", "cancelled", "2 hours", "3 hours")
	river("old-discarded", "discarded", "2 hours", "3 hours")
	river("old-running", "running", "", "3 hours")
	river("old-available", "available", "", "3 hours")
	river("old-retryable", "retryable", "", "3 hours")
	river("recent-completed", "completed", "10 minutes", "11 minutes")
	// schedule fires: finished 2 h ago (goes); interrupted 2 h ago but its
	// job retryable, so run again (stays); running; finished 10 min ago
	exec(`INSERT INTO helix_schedules (name, spec, argv, next_tick) VALUES ('nightly', '@daily', ARRAY['decay','run'], now())`)
	exec(`INSERT INTO helix_schedule_fires (schedule_id, tick, kind, status, finished_at, river_job_id)
		SELECT s.id, now() - t.ago, 'tick', t.status, CASE WHEN t.status = 'running' THEN NULL ELSE now() - t.ago END,
			(SELECT id FROM river_job WHERE args->>'name' = t.job)
		FROM helix_schedules s, (VALUES (interval '2 hours', 'ok', 'old-completed'), (interval '3 hours', 'interrupted', 'old-retryable'),
			(interval '4 hours', 'running', 'old-running'), (interval '10 minutes', 'failed', 'recent-completed')) AS t(ago, status, job)`)
	// an audit row of an old run: never pruned
	exec(`INSERT INTO helix_llm_usage (job_run_id, user_id, model, brief_sha256, pattern_types, status, created_at)
		SELECT id, $1, 'm', 'x', ARRAY['habit'], 'ok', now() - interval '2 days' FROM job_runs WHERE job = 'old-ok'`, uuid.New())

	left := func() map[string][]string {
		t.Helper()
		out := map[string][]string{}
		for table, sql := range map[string]string{
			"job_runs":  `SELECT job FROM job_runs ORDER BY job`,
			"river_job": `SELECT args->>'name' FROM river_job ORDER BY 1`,
			"fires":     `SELECT status FROM helix_schedule_fires ORDER BY 1`,
			"audit":     `SELECT model FROM helix_llm_usage`,
		} {
			rows, err := pool.Query(ctx, sql)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				out[table] = append(out[table], s)
			}
			if rows.Err() != nil {
				t.Fatal(rows.Err())
			}
		}
		return out
	}
	run := func(argv string) (string, error) {
		f, s := cmdtest.Factory(t, false)
		cmdtest.WithDB(f, pool)
		f.Now = time.Now
		f.Global.Output = "json"
		cmd := NewCmdJobs(f)
		cmd.SetArgs(strings.Fields(argv))
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.ExecuteContext(ctx)
		return s.Out.String(), err
	}
	before := left()

	// destructive: without --yes, exit 2 and nothing deleted
	var fe *cmdutil.FlagError
	if _, err := run("prune --older-than 1h"); !errors.As(err, &fe) || !strings.Contains(err.Error(), "add --yes") {
		t.Fatalf("prune without --yes: %v, want a usage error asking for --yes", err)
	}
	// --dry-run counts what --yes deletes
	out, err := run("prune --older-than 1h --dry-run")
	if err != nil {
		t.Fatal(err)
	}
	var dry PruneOutput
	if err := json.Unmarshal([]byte(out), &dry); err != nil || !dry.DryRun {
		t.Fatalf("dry run: %v %s", err, out)
	}
	if got := left(); !equal(got, before) {
		t.Fatalf("a refused or dry prune deleted rows:\n%v\nwas\n%v", got, before)
	}

	out, err = run("prune --older-than 1h --yes")
	if err != nil {
		t.Fatal(err)
	}
	var res PruneOutput
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := map[string][]string{
		"job_runs":  {"old-running", "recent-ok"},
		"river_job": {"old-available", "old-retryable", "old-running", "recent-completed"},
		"fires":     {"failed", "interrupted", "running"},
		"audit":     {"m"},
	}
	if got := left(); !equal(got, want) {
		t.Errorf("left after prune --older-than 1h:\n%v\nwant\n%v", got, want)
	}
	r := res.Removed
	if r.JobRuns != 2 || r.ScheduleFires != 1 || r.CompletedJobs != 1 || r.CancelledJobs != 1 || r.DiscardedJobs != 1 {
		t.Errorf("removed %+v, want 2 runs, 1 fire, 1 completed, 1 cancelled, 1 discarded job", r)
	}
	if dry.Removed != r {
		t.Errorf("--dry-run counted %+v, the prune removed %+v", dry.Removed, r)
	}
	// again: nothing left to prune, exit 0
	out, err = run("prune --older-than 1h --yes")
	if err := errors.Join(err, json.Unmarshal([]byte(out), &res)); err != nil || res.Removed.Total() != 0 {
		t.Errorf("second prune: %+v (%v), want nothing removed", res.Removed, err)
	}
}

// TestJobsPruneText: the table a person reads, and the retention.*
// settings when --older-than is not given (0 keeps forever).
func TestJobsPruneText(t *testing.T) {
	t.Setenv("HELIX_RETENTION_JOB_RUNS", "0")
	ctx := context.Background()
	pool := pgtest.New(t)
	if _, err := pool.Exec(ctx, `INSERT INTO job_runs (job, started_at, finished_at, status) VALUES
		('ancient', now() - interval '400 days', now() - interval '400 days', 'ok')`); err != nil {
		t.Fatal(err)
	}
	f, s := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	f.Now = time.Now
	cmd := NewCmdJobs(f)
	cmd.SetArgs([]string{"prune", "--yes"})
	if err := cmd.ExecuteContext(ctx); err != nil {
		t.Fatal(err)
	}
	// off a TTY: tab-separated, no header
	want := "job_runs\tforever\t0\n" +
		"schedule fires\t720h0m0s\t0\n" +
		"river completed\t24h0m0s\t0\n" +
		"river cancelled\t24h0m0s\t0\n" +
		"river discarded\t168h0m0s\t0\n"
	if got := s.Out.String(); got != want {
		t.Errorf("stdout:\n%s\nwant\n%s", got, want)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM job_runs`).Scan(&n); err != nil || n != 1 {
		t.Errorf("job_runs kept forever: %d rows (%v), want 1", n, err)
	}
}

func equal(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if strings.Join(v, ",") != strings.Join(b[k], ",") {
			return false
		}
	}
	return true
}
