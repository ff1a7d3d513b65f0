package synthesize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
)

const (
	ana = "11111111-1111-4111-8111-111111111111"
	ben = "22222222-2222-4222-8222-222222222222"
)

func TestNewCmdSynthesizeFlags(t *testing.T) {
	tests := []struct {
		argv    string
		wantErr string
		check   func(*Options) bool
	}{
		{argv: "--user-id " + ana, check: func(o *Options) bool {
			return o.user.String() == ana && o.Algorithm == "auto" && o.MinClusterSize == 5 && o.MinConfidence == 0.7 && o.Concurrency == 2
		}},
		{argv: "--all-users --since 30d --limit 100 --algorithm hdbscan --eps 0.3 --min-cluster-size 8 --dry-run --concurrency 4 --min-confidence 0.9", check: func(o *Options) bool {
			return o.AllUsers && o.since.Equal(time.Date(2026, 10, 2, 12, 0, 0, 0, time.UTC)) && o.Limit == 100 &&
				o.Algorithm == "hdbscan" && o.Eps == 0.3 && o.MinClusterSize == 8 && o.DryRun && o.Concurrency == 4 && o.MinConfidence == 0.9
		}},
		{argv: "--all-users --since 2026-10-01T00:00:00Z", check: func(o *Options) bool { return o.since.Equal(time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)) }},
		{argv: "", wantErr: "give --user-id UUID or --all-users"},
		{argv: "--user-id " + ana + " --all-users", wantErr: "cannot be used together"},
		{argv: "--user-id " + ana + " --full", wantErr: "--full applies to --all-users"},
		{argv: "--all-users --full", check: func(o *Options) bool { return o.AllUsers && o.Full }},
		{argv: "--user-id nope", wantErr: `invalid --user-id "nope": not a UUID`},
		{argv: "--all-users --algorithm optics", wantErr: "invalid --algorithm"},
		{argv: "--all-users --min-confidence 1.5", wantErr: "invalid --min-confidence"},
		{argv: "--all-users --eps 3", wantErr: "invalid --eps"},
		{argv: "--all-users --min-cluster-size 1", wantErr: "invalid --min-cluster-size"},
		{argv: "--all-users --concurrency 0", wantErr: "invalid --concurrency"},
		{argv: "--all-users --since yesterday", wantErr: "invalid --since"},
	}
	for _, tt := range tests {
		t.Run(tt.argv, func(t *testing.T) {
			f, _ := cmdtest.Factory(t, false)
			var got *Options
			cmd := NewCmdSynthesize(f, func(o *Options) error { got = o; return nil })
			argv := strings.Fields(tt.argv)
			cmd.SetArgs(argv)
			cmd.SetFlagErrorFunc(cmdutil.WrapFlagError)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			if tt.wantErr != "" {
				var fe *cmdutil.FlagError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &fe) {
					t.Fatalf("error %v, want a flag error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(got) {
				t.Fatalf("err %v, options %+v", err, got)
			}
		})
	}
}

func demoDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := pgtest.New(t)
	f, err := os.Open("../../../testdata/demo/memories.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, err := memories.Parse(f, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := memories.Insert(context.Background(), pool, ms); err != nil {
		t.Fatal(err)
	}
	return pool
}

func run(t *testing.T, pool *pgxpool.Pool, tty, asJSON bool, argv string) (string, string, error) {
	t.Helper()
	f, s := cmdtest.Factory(t, tty)
	cmdtest.WithDB(f, pool)
	if asJSON {
		f.Global.Output = "json"
	}
	cmd := NewCmdSynthesize(f, nil)
	args := strings.Fields(argv)
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.ExecuteContext(context.Background())
	return s.Out.String(), s.Err.String(), err
}

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSynthesizeOneUser(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	for _, tty := range []bool{true, false} {
		out, errOut, err := run(t, pool, tty, false, "--user-id "+ana)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		// A terminal gets an aligned table with a header; a pipe gets tab-separated rows.
		if tty {
			if strings.Join(strings.Fields(lines[0]), " ") != "TYPE CONFIDENCE MEMORIES PATTERN" {
				t.Fatalf("header %q", lines[0])
			}
			lines = lines[1:]
		}
		for _, l := range lines {
			if tty == strings.Contains(l, "\t") {
				t.Fatalf("tty=%v row %q", tty, l)
			}
		}
		stored := count(t, pool, `SELECT count(*) FROM memory_synthesis WHERE user_id = $1`, ana)
		if len(lines) != stored {
			t.Fatalf("printed %d patterns, stored %d", len(lines), stored)
		}
		if !strings.Contains(out, "lisbon · tram · alfama (61 memories, mean valence +0.59)") {
			t.Fatalf("the Lisbon theme is missing:\n%s", out)
		}
		want := "wrote " + itoa(stored) + " patterns for 1 of 1 user from 300 memories\n"
		if errOut != want {
			t.Fatalf("stderr %q, want %q", errOut, want)
		}
	}
	// Two runs: two job_runs rows, each with its counts and parameters, and no duplicate patterns.
	if n := count(t, pool, `SELECT count(*) FROM job_runs WHERE job = 'synthesize' AND status = 'ok'
		AND (counts->>'patterns')::int > 0 AND params->'args'->'params'->>'algorithm' = 'auto'`); n != 2 {
		t.Fatalf("%d ok job_runs rows, want 2", n)
	}
	if n := count(t, pool, `SELECT count(DISTINCT job_run_id) FROM memory_synthesis`); n != 1 {
		t.Fatalf("rows from %d runs, want only the last run's", n)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	out, errOut, err := run(t, pool, false, true, "--user-id "+ben+" --dry-run --algorithm hdbscan")
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !rep.DryRun || rep.RunID != nil || len(rep.Users) != 1 || len(rep.Users[0].Patterns) == 0 {
		t.Fatalf("report %+v", rep)
	}
	if errOut != "" { // with --output json, stdout is the only report
		t.Fatalf("stderr %q", errOut)
	}
	if n := count(t, pool, `SELECT (SELECT count(*) FROM memory_synthesis) + (SELECT count(*) FROM job_runs)`); n != 0 {
		t.Fatalf("dry run wrote %d rows", n)
	}
}

// TestAllUsersPartial makes every write for one user fail in the database:
// the others are written, and the run ends partial naming that user.
func TestAllUsersPartial(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	if _, err := pool.Exec(context.Background(), `
		CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'refused for this user'; END $$;
		CREATE TRIGGER refuse BEFORE INSERT ON memory_synthesis FOR EACH ROW
		WHEN (NEW.user_id = '`+ben+`') EXECUTE FUNCTION refuse();`); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := run(t, pool, false, true, "--all-users --concurrency 3")
	var pe *cmdutil.PartialError
	if !errors.As(err, &pe) || pe.Total != 4 || len(pe.Failed) != 1 || !strings.HasPrefix(pe.Failed[0], ben+": write synthesis") {
		t.Fatalf("error %v, want partial naming %s", err, ben)
	}
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Users) != 3 || len(rep.Failed) != 1 || rep.Failed[0].UserID.String() != ben {
		t.Fatalf("report users %d failed %v", len(rep.Users), rep.Failed)
	}
	if n := count(t, pool, `SELECT count(DISTINCT user_id) FROM memory_synthesis`); n != 3 {
		t.Fatalf("%d users written, want 3", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM job_runs WHERE status = 'partial' AND (counts->>'failed')::int = 1`); n != 1 {
		t.Fatal("no partial job_runs row")
	}
	// JSON progress: one line per user on stderr.
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 4 || !strings.Contains(errOut, `"status":"failed"`) {
		t.Fatalf("progress lines:\n%s", errOut)
	}
}

// TestLockHeldSkips holds the job's advisory lock elsewhere: the run is
// skipped (exit 5 through db.ErrLockHeld) and recorded as such.
func TestLockHeldSkips(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	lock, err := db.TryLock(context.Background(), pool, "synthesize")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Release(context.Background()) }()
	_, _, err = run(t, pool, false, false, "--all-users")
	if !db.IsLockHeld(err) {
		t.Fatalf("error %v, want the lock to be held", err)
	}
	if n := count(t, pool, `SELECT count(*) FROM job_runs WHERE job = 'synthesize' AND status = 'skipped'`); n != 1 {
		t.Fatalf("%d skipped job_runs rows, want 1", n)
	}
}

// TestAllUsersOnlyChanged: a re-run with no memory changes recomputes no user;
// a change to one user's memories recomputes that user; a --user-id run counts
// as that user's synthesis; --full recomputes everyone.
func TestAllUsersOnlyChanged(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	runJSON := func(argv string) Report {
		t.Helper()
		out, errOut, err := run(t, pool, false, true, argv)
		if err != nil {
			t.Fatalf("%s: %v\n%s", argv, err, errOut)
		}
		var rep Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	users := func(rep Report) []string {
		var us []string
		for _, u := range rep.Users {
			us = append(us, u.UserID.String())
		}
		return us
	}
	if rep := runJSON("--all-users"); rep.Counts["done"] != 4 || rep.Counts["unchanged"] != 0 {
		t.Fatalf("first run: counts %v, want 4 users done", rep.Counts)
	}
	before := count(t, pool, `SELECT count(*) FROM memory_synthesis`)
	rep := runJSON("--all-users")
	if rep.Counts["users"] != 0 || rep.Counts["done"] != 0 || rep.Counts["unchanged"] != 4 || len(rep.Users) != 0 {
		t.Fatalf("re-run without changes: counts %v, users %v; want 0 recomputed, 4 unchanged", rep.Counts, users(rep))
	}
	if after := count(t, pool, `SELECT count(*) FROM memory_synthesis`); after != before {
		t.Errorf("re-run without changes: %d synthesis rows, was %d", after, before)
	}

	if _, err := pool.Exec(context.Background(), `UPDATE memories SET emotional_valence = -emotional_valence
		WHERE id = (SELECT id FROM memories WHERE user_id = $1 AND emotional_valence <> 0 ORDER BY id LIMIT 1)`, ben); err != nil {
		t.Fatal(err)
	}
	if rep := runJSON("--all-users"); !slices.Equal(users(rep), []string{ben}) || rep.Counts["unchanged"] != 3 {
		t.Errorf("after editing one of ben's memories: recomputed %v (counts %v), want only ben", users(rep), rep.Counts)
	}

	if _, err := pool.Exec(context.Background(), `DELETE FROM memories
		WHERE id = (SELECT id FROM memories WHERE user_id = $1 ORDER BY id LIMIT 1)`, ana); err != nil {
		t.Fatal(err)
	}
	runJSON("--user-id " + ana)
	if rep := runJSON("--all-users"); len(rep.Users) != 0 || rep.Counts["unchanged"] != 4 {
		t.Errorf("after a --user-id run of the changed user: recomputed %v, want nobody", users(rep))
	}
	if rep := runJSON("--all-users --full"); rep.Counts["done"] != 4 {
		t.Errorf("--full: counts %v, want 4 users done", rep.Counts)
	}
}

// TestUserRunWhileAllUsersHoldsOthers is issue 14's per-user concurrency:
// with the nightly run's job lock and another user's lock held, a desktop run
// for ana finishes (exit 0) and synthesizes her once.
func TestUserRunWhileAllUsersHoldsOthers(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	ctx := context.Background()
	l, err := db.TryLock(ctx, pool, "synthesize")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Release(ctx) }()
	defer holdUser(t, pool, ben)()
	if _, _, err := run(t, pool, false, true, "--user-id "+ana); err != nil {
		t.Fatalf("--user-id during --all-users: %v, want success", err)
	}
	if n := count(t, pool, `SELECT count(DISTINCT job_run_id) FROM memory_synthesis WHERE user_id = $1`, ana); n != 1 {
		t.Fatalf("ana's synthesis comes from %d runs, want 1", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM job_runs WHERE job = 'synthesize' AND status = 'ok'`); n != 1 {
		t.Fatalf("%d ok job_runs rows, want 1", n)
	}
}

// holdUser holds user's synthesis lock (a transaction lock, as a run
// writing the user does) until the returned func is called.
func holdUser(t *testing.T, pool *pgxpool.Pool, user string) func() {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.TryXactLock(ctx, tx, UserLock(uuid.MustParse(user)), 0); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release := func() { once.Do(func() { _ = tx.Rollback(ctx) }) }
	t.Cleanup(release)
	return release
}

// TestAllUsersSkipsLockedUser: a user whose lock another run holds is
// skipped and reported as skipped, not failed; the run exits 0.
func TestAllUsersSkipsLockedUser(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	release := holdUser(t, pool, ana)
	out, errOut, err := run(t, pool, false, true, "--all-users")
	release()
	if err != nil {
		t.Fatalf("--all-users with one user locked: %v, want success\n%s", err, errOut)
	}
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0] != ana || len(rep.Failed) != 0 || rep.Counts["skipped"] != 1 {
		t.Fatalf("skipped %v, failed %d, counts %v: want ana skipped, none failed", rep.Skipped, len(rep.Failed), rep.Counts)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_synthesis WHERE user_id = $1`, ana); n != 0 {
		t.Fatalf("the run wrote %d rows for the locked user", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_synthesis WHERE user_id = $1`, ben); n == 0 {
		t.Fatal("ben was not synthesized")
	}
}

// TestUserRunWaitsForLock: --user-id waits up to --lock-wait for the user's
// lock, then runs; with no wait it is skipped (exit 5).
func TestUserRunWaitsForLock(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	release := holdUser(t, pool, ana)
	if _, _, err := run(t, pool, false, false, "--user-id "+ana+" --lock-wait 0"); !db.IsLockHeld(err) {
		t.Fatalf("--lock-wait 0 on a held user: %v, want skipped", err)
	}
	time.AfterFunc(300*time.Millisecond, release)
	if _, _, err := run(t, pool, false, false, "--user-id "+ana+" --lock-wait 30s"); err != nil {
		t.Fatalf("--lock-wait 30s: %v, want success once the lock is released", err)
	}
}

// TestConcurrentUserAndAllUsers runs both at once for real: both succeed and
// ana's synthesis is one run's, never a mix or a duplicate.
func TestConcurrentUserAndAllUsers(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	errs := make(chan error, 2)
	go func() { _, _, err := run(t, pool, false, true, "--all-users --concurrency 2"); errs <- err }()
	go func() { _, _, err := run(t, pool, false, true, "--user-id "+ana); errs <- err }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("concurrent runs: %v, want both to succeed", err)
		}
	}
	if n := count(t, pool, `SELECT count(DISTINCT job_run_id) FROM memory_synthesis WHERE user_id = $1`, ana); n != 1 {
		t.Fatalf("ana's synthesis comes from %d runs, want 1", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM (SELECT fingerprint FROM memory_synthesis WHERE user_id = $1 GROUP BY fingerprint HAVING count(*) > 1) d`, ana); n != 0 {
		t.Fatalf("%d duplicated patterns for ana", n)
	}
}

// TestUserWithNoMemories: a --user-id with no memories (a typo in the UUID)
// succeeds, but says so: a WARN line and the report's warnings.
func TestUserWithNoMemories(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	const typo = "0a0a0a0a-0a0a-4a0a-8a0a-0a0a0a0a0a0a"
	out, errOut, err := run(t, pool, false, true, "--user-id "+typo)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := "user " + typo + " has no memories: nothing to synthesize (check the --user-id)"
	if len(rep.Warnings) != 1 || rep.Warnings[0] != want {
		t.Errorf("warnings %q, want [%q]", rep.Warnings, want)
	}
	if !strings.Contains(out, `"patterns":[]`) {
		t.Errorf("a user with no patterns: %s, want \"patterns\":[]", out)
	}
	if !strings.Contains(errOut, "level=WARN") || !strings.Contains(errOut, "has no memories") {
		t.Errorf("stderr %q: no warning", errOut)
	}
	// a user with memories gets none
	out, _, err = run(t, pool, false, true, "--user-id "+ana+" --dry-run")
	if err := errors.Join(err, json.Unmarshal([]byte(out), &rep)); err != nil || len(rep.Warnings) != 0 {
		t.Errorf("ana: warnings %q (%v)", rep.Warnings, err)
	}
}
