package schedule_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/schedule"
	"github.com/helixhq/helix/internal/testbin"
)

// These tests run real `helix worker` processes (and the jobs they fire as
// children of their own) on a fresh database, and `helix schedule` commands
// as a user would.

func start(t *testing.T, url string, args ...string) *testbin.Proc {
	t.Helper()
	return testbin.Start(t, append(os.Environ(), "DATABASE_URL="+url, "HELIX_DB_MAX_CONNS=8", "HELIX_DB_LOCK_TTL=3s"), args...)
}

// helix runs one helix command to its end and returns stdout and the exit status.
func helix(t *testing.T, url string, args ...string) (string, int) {
	t.Helper()
	p := start(t, url, args...)
	code := p.Wait(t, 2*time.Minute)
	if code != 0 && code != 2 {
		t.Logf("%v: exit %d\n%s", args, code, p.Stderr.String())
	}
	return p.Stdout.String(), code
}

func mustHelix(t *testing.T, url string, args ...string) string {
	t.Helper()
	p := start(t, url, args...)
	if code := p.Wait(t, 2*time.Minute); code != 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, p.Stderr.String())
	}
	return p.Stdout.String()
}

func scalar[T any](t *testing.T, pool *pgxpool.Pool, sql string, args ...any) T {
	t.Helper()
	var v T
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func open(t *testing.T) (string, *pgxpool.Pool) {
	t.Helper()
	url := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return url, pool
}

var workerArgs = []string{"worker", "--poll-interval", "100ms", "--concurrency", "4"}

var clientID = regexp.MustCompile(`River client started.*client_id=(\S+)`)

func clientIDOf(p *testbin.Proc) string {
	if m := clientID.FindStringSubmatch(p.Stderr.String()); m != nil {
		return m[1]
	}
	return ""
}

// waitFor polls cond every 100 ms until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// leader is the client id of River's elected leader, "" for none.
func leader(t *testing.T, pool *pgxpool.Pool) string {
	return scalar[string](t, pool, `SELECT coalesce((SELECT leader_id FROM river_leader WHERE expires_at > now()), '')`)
}

// quiesce pauses the schedule and waits until no fire of it is pending or running.
func quiesce(t *testing.T, url string, pool *pgxpool.Pool, name string) {
	t.Helper()
	mustHelix(t, url, "schedule", "pause", name)
	waitFor(t, 90*time.Second, "fires to finish", func() bool {
		return scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id
			WHERE s.name = $1 AND f.status IN ('pending', 'running')`, name) == 0
	})
}

func stop(t *testing.T, ws ...*testbin.Proc) {
	t.Helper()
	for _, w := range ws {
		_ = w.Cmd.Process.Signal(syscall.SIGTERM)
	}
	for i, w := range ws {
		if code := w.Wait(t, time.Minute); code != 0 {
			t.Errorf("worker %d after SIGTERM: exit %d\n%s", i, code, w.Stderr.String())
		}
	}
}

// checkOnce is what "every tick's job ran exactly once" means in the
// database: one ok sync reconcile job_runs row per ok fire and none else,
// ticks unique (the constraint), and on-time fires never late by more than
// schedule.MinGrace (the per-period cap on --schedule-grace for a 1 s spec).
// A fire whose worker was SIGKILLed is rescued and runs again; if the kill
// fell between its job's commit and the fire's record (milliseconds), the
// job ran twice: rescued is how many such second runs are tolerated.
func checkOnce(t *testing.T, pool *pgxpool.Pool, name string, rescued int) (fires int) {
	t.Helper()
	fires = scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id
		WHERE s.name = $1 AND f.status = 'ok'`, name)
	if n := scalar[int](t, pool, `SELECT count(*) FROM job_runs WHERE job = 'sync reconcile' AND status = 'ok'`); n < fires || n > fires+rescued {
		t.Errorf("%d ok job runs for %d ok fires (%d rescued): some tick ran twice or not at all", n, fires, rescued)
	}
	if n := scalar[int](t, pool, `SELECT count(*) - count(DISTINCT tick) FROM helix_schedule_fires`); n != 0 {
		t.Errorf("%d ticks fired twice", n)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'schedule_fire'`); n != scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires`) {
		t.Errorf("%d fire jobs for %d fires", n, scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires`))
	}
	if late := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE kind = 'tick' AND created_at - tick > $1::interval`,
		schedule.MinGrace.String()); late != 0 {
		t.Errorf("%d on-time fires made later than %s after their tick", late, schedule.MinGrace)
	}
	return fires
}

// Issue 16, must show 1: three workers, a schedule every second for 20 s:
// each tick fired once, its job ran once, and no tick in between was lost.
func TestThreeWorkersFireEachTickOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three helix workers for 20 s: skipped with -short")
	}
	t.Parallel()
	url, pool := open(t)
	var ws []*testbin.Proc
	for range 3 {
		ws = append(ws, start(t, url, workerArgs...))
	}
	waitFor(t, time.Minute, "a leader", func() bool { return leader(t, pool) != "" })
	mustHelix(t, url, "schedule", "add", "reconcile", "--cron", "@every 1s", "--", "sync", "reconcile")
	time.Sleep(20 * time.Second)
	quiesce(t, url, pool, "reconcile")
	stop(t, ws...)

	fires := checkOnce(t, pool, "reconcile", 0)
	first, last := scalar[time.Time](t, pool, `SELECT min(tick) FROM helix_schedule_fires`), scalar[time.Time](t, pool, `SELECT max(tick) FROM helix_schedule_fires`)
	total := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires`)
	if want := int(last.Sub(first)/time.Second) + 1; total != want {
		t.Errorf("%d fires from %s to %s, want %d: a tick was lost", total, first, last, want)
	}
	if fires < 15 {
		t.Errorf("only %d ok fires in 20 s", fires)
	}
	// Fires after the pause are skipped unrun; nothing else is not ok.
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE status <> 'ok' AND NOT (status = 'skipped' AND error = 'the schedule is paused')`); n != 0 {
		t.Errorf("%d fires neither ok nor skipped by the pause", n)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE kind <> 'tick'`); n != 0 {
		t.Errorf("%d catch-up fires", n)
	}
	t.Logf("tick to fire row: avg %s max %s; tick to job start: avg %s max %s; job (a helix process): avg %s max %s",
		scalar[string](t, pool, `SELECT avg(created_at - tick)::text FROM helix_schedule_fires`),
		scalar[string](t, pool, `SELECT max(created_at - tick)::text FROM helix_schedule_fires`),
		scalar[string](t, pool, `SELECT avg(started_at - tick)::text FROM helix_schedule_fires WHERE status = 'ok'`),
		scalar[string](t, pool, `SELECT max(started_at - tick)::text FROM helix_schedule_fires WHERE status = 'ok'`),
		scalar[string](t, pool, `SELECT (avg(duration_ms) * interval '1 ms')::text FROM helix_schedule_fires WHERE status = 'ok'`),
		scalar[string](t, pool, `SELECT (max(duration_ms) * interval '1 ms')::text FROM helix_schedule_fires WHERE status = 'ok'`))
	t.Logf("%d ticks, %d ok fires, worked by %d workers, %d tick passes",
		total, fires, scalar[int](t, pool, `SELECT count(DISTINCT attempted_by[1]) FROM river_job WHERE kind = 'schedule_fire'`),
		scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'schedule_tick'`))
}

// Issue 16, must show 2: SIGKILL the leader mid-way: the other workers go
// on ticking (every worker enqueues tick passes since issue 32, not only
// River's leader, whose term outlives a SIGKILL by up to 15 s), no tick runs
// twice, and at most one tick is late (a pass the victim was running is
// given back within seconds by the survivors' maintenance).
func TestLeaderKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs helix workers and SIGKILLs the leader: skipped with -short")
	}
	t.Parallel()
	url, pool := open(t)
	// A dead worker's fire is given back by the survivors' maintenance 30 s
	// after it started (its job's time to stop after SIGTERM).
	wargs := append(workerArgs, "--job-timeout", "2s", "--rescue-after", "3s", "--schedule-timeout", "6s")
	var ws []*testbin.Proc
	for range 3 {
		ws = append(ws, start(t, url, wargs...))
	}
	var old string
	waitFor(t, time.Minute, "a leader", func() bool { old = leader(t, pool); return old != "" })
	mustHelix(t, url, "schedule", "add", "reconcile", "--cron", "@every 1s", "--catch-up", "once", "--", "sync", "reconcile")
	waitFor(t, time.Minute, "5 fires", func() bool {
		return scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE status = 'ok'`) >= 5
	})
	var victim *testbin.Proc
	var rest []*testbin.Proc
	for _, w := range ws {
		if clientIDOf(w) == old {
			victim = w
		} else {
			rest = append(rest, w)
		}
	}
	if victim == nil {
		t.Fatalf("no worker is the leader %s", old)
	}
	// Kill it while it runs a fire of its own if that comes within 20 s, so
	// the rescue of a dead worker's fire is shown too.
	var held []int64
	for deadline := time.Now().Add(20 * time.Second); len(held) == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		held = scalar[[]int64](t, pool, `SELECT coalesce(array_agg(id), '{}') FROM river_job WHERE kind = 'schedule_fire' AND state = 'running'
			AND attempted_by[cardinality(attempted_by)] = $1`, old)
	}
	holding := len(held)
	killed := time.Now()
	if err := victim.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-victim.Done()
	var now string
	waitFor(t, 2*time.Minute, "a new leader", func() bool { now = leader(t, pool); return now != "" && now != old })
	takeover := time.Since(killed)
	waitFor(t, 2*time.Minute, "5 fires after the takeover", func() bool {
		return scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE status = 'ok' AND tick > $1`, killed.Add(takeover)) >= 5
	})
	if holding > 0 {
		waitFor(t, 90*time.Second, "the dead leader's fire jobs to be rescued and worked", func() bool {
			return scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE id = ANY($1) AND state <> 'completed'`, held) == 0
		})
	}
	quiesce(t, url, pool, "reconcile")
	stop(t, rest...)

	rescued := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE attempts > 1`)
	checkOnce(t, pool, "reconcile", rescued)
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE kind = 'catch_up'`); n > 1 {
		t.Errorf("%d catch-up fires, want at most 1", n)
	}
	if late := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE created_at - tick > $1::interval`,
		schedule.MinGrace.String()); late > 1 {
		t.Errorf("%d late fires, want at most 1", late)
	}
	// A fire the victim was running is rescued and run again (its first run
	// is interrupted by SIGTERM from the dying worker): one ok run per tick still.
	// The survivors give the dead worker's fire jobs back and work them
	// again: a fire the victim had
	// finished (River completes jobs in batches, a moment later) is not run
	// again; one it was running runs again (attempts 2).
	// A held job the victim finished in the moment before the kill landed
	// completed on its one attempt; every other one was rescued.
	retried := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'schedule_fire' AND cardinality(attempted_by) > 1`)
	finishedFirst := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE id = ANY($1) AND cardinality(attempted_by) = 1`, held)
	if heldRetried := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE id = ANY($1) AND cardinality(attempted_by) > 1`, held); heldRetried+finishedFirst != holding {
		t.Errorf("the leader was killed holding %d fire jobs: %d rescued, %d finished by it", holding, heldRetried, finishedFirst)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE status <> 'ok' AND NOT (status = 'skipped' AND error = 'the schedule is paused')`); n != 0 {
		t.Errorf("%d fires neither ok nor skipped by the pause", n)
	}
	gap := scalar[int](t, pool, `SELECT count(*) FROM generate_series((SELECT min(tick) FROM helix_schedule_fires), (SELECT max(tick) FROM helix_schedule_fires), interval '1 second') g
		WHERE g NOT IN (SELECT tick FROM helix_schedule_fires)`)
	t.Logf("leader %s killed holding %d fire jobs (%d rescued by River); %s took over after %s; %d ticks missed in the gap, %d caught up, %d fires run again, %d fires in all",
		old, holding, retried, now, takeover.Round(100*time.Millisecond), gap, scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE kind = 'catch_up'`),
		rescued, scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires`))
	if gap > 1 {
		t.Errorf("%d ticks missed over a %s leader takeover: the survivors stopped ticking", gap, takeover)
	}
}

// Issue 16, must show 3: a job that always fails (catalog verify without a
// pinned snapshot) is disabled after --max-failures fires, and list says why.
func TestAlwaysFailingIsDisabled(t *testing.T) {
	t.Parallel()
	url, pool := open(t)
	w := start(t, url, workerArgs...)
	mustHelix(t, url, "schedule", "add", "verify", "--cron", "@every 1s", "--max-failures", "3", "--", "catalog", "verify")
	var l struct{ Schedules []schedule.Schedule }
	waitFor(t, time.Minute, "the schedule to be disabled", func() bool {
		if err := json.Unmarshal([]byte(mustHelix(t, url, "schedule", "list", "-o", "json")), &l); err != nil {
			t.Fatal(err)
		}
		return len(l.Schedules) == 1 && l.Schedules[0].State == "disabled"
	})
	time.Sleep(2 * time.Second) // fires queued before the disable are skipped, not run
	stop(t, w)
	s := l.Schedules[0]
	if s.DisabledReason == nil || !strings.Contains(*s.DisabledReason, "3 failures in a row") ||
		!strings.Contains(*s.DisabledReason, "no catalog snapshot is pinned") || s.ConsecutiveFailures < 3 {
		t.Errorf("disabled schedule %+v", s)
	}
	// Fires of one schedule may overlap (a job slower than the period); the
	// ones already running when the third failure disabled it finish, and
	// none starts after.
	failed := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE status = 'failed'`)
	inFlight := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires f, helix_schedules s
		WHERE f.status = 'failed' AND f.started_at < s.disabled_at AND f.finished_at > s.disabled_at`)
	if failed < 3 || failed > 3+inFlight {
		t.Errorf("%d failed fires, want 3 (and %d that were running at the disable)", failed, inFlight)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires f, helix_schedules s WHERE f.started_at > s.disabled_at AND f.status <> 'skipped'`); n != 0 {
		t.Errorf("%d fires ran after the disable", n)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM job_runs WHERE job = 'catalog verify'`); n != failed {
		t.Errorf("the job ran %d times for %d failed fires", n, failed)
	}
	text := mustHelix(t, url, "schedule", "list")
	if !strings.Contains(text, "disabled") || !strings.Contains(text, "no catalog snapshot is pinned") {
		t.Errorf("list does not say why:\n%s", text)
	}
	if !strings.Contains(w.Stderr.String(), "schedule disabled") {
		t.Errorf("worker did not log the disable:\n%s", w.Stderr.String())
	}
	hist := mustHelix(t, url, "schedule", "history", "verify")
	if strings.Count(hist, "\tfailed\t") != failed {
		t.Errorf("history:\n%s", hist)
	}
	// resume clears the reason and the count
	var r schedule.Schedule
	if err := json.Unmarshal([]byte(mustHelix(t, url, "schedule", "resume", "verify", "-o", "json")), &r); err != nil ||
		r.State != "active" || r.DisabledReason != nil || r.ConsecutiveFailures != 0 {
		t.Errorf("resume: %+v %v", r, err)
	}
}

// Issue 16, must show 4: after an outage of more than 10 ticks, --catch-up
// once runs exactly one catch-up (the latest missed tick) and none runs zero;
// the ticks still within schedule.MinGrace of the worker's start fire as usual.
func TestCatchUpAfterOutage(t *testing.T) {
	t.Parallel()
	url, pool := open(t)
	mustHelix(t, url, "schedule", "add", "once", "--cron", "@every 1s", "--catch-up", "once", "--", "sync", "reconcile")
	mustHelix(t, url, "schedule", "add", "none", "--cron", "@every 1s", "--", "sync", "reconcile")
	outage := 10*time.Second + schedule.MinGrace + time.Second
	time.Sleep(outage)
	started := time.Now()
	w := start(t, url, workerArgs...)
	// Two on-time fires after the worker started: the outage is over. (Not
	// "ticks of the last 2 s": on a loaded machine a fire, a whole helix
	// process, can take longer than that.)
	waitFor(t, 2*time.Minute, "fires after the outage", func() bool {
		return scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE status = 'ok' AND kind = 'tick' AND tick > $1`, started) >= 2
	})
	quiesce(t, url, pool, "once")
	quiesce(t, url, pool, "none")
	stop(t, w)
	for name, want := range map[string]int{"once": 1, "none": 0} {
		if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id
			WHERE s.name = $1 AND f.kind = 'catch_up'`, name); n != want {
			t.Errorf("%s: %d catch-ups, want %d", name, n, want)
		}
	}
	// Missed: every instant from the first to the first on-time fire, but the catch-up.
	missed := func(name string) int {
		return scalar[int](t, pool, `WITH s AS (SELECT id, created_at FROM helix_schedules WHERE name = $1)
			SELECT count(*) FROM generate_series(date_trunc('second', (SELECT created_at FROM s)) + interval '1 second',
				(SELECT min(tick) FROM helix_schedule_fires WHERE schedule_id = (SELECT id FROM s) AND kind = 'tick'), interval '1 second') g
			WHERE g NOT IN (SELECT tick FROM helix_schedule_fires WHERE schedule_id = (SELECT id FROM s))`, name)
	}
	mOnce, mNone := missed("once"), missed("none")
	if mOnce < 10 || mNone < 10 {
		t.Errorf("missed %d (once) and %d (none) ticks, want 10 or more each", mOnce, mNone)
	}
	if late := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE kind = 'tick' AND created_at - tick > $1::interval`,
		schedule.MinGrace.String()); late != 0 {
		t.Errorf("%d late on-time fires", late)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM job_runs WHERE job = 'sync reconcile' AND status = 'ok'`); n != scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE status = 'ok'`) {
		t.Errorf("%d job runs for %d ok fires", n, scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE status = 'ok'`))
	}
	t.Logf("outage %s: %d missed with once (1 caught up), %d missed with none", outage, mOnce, mNone)
}

// Issue 16, must show 6: an unknown job or a bad flag is exit 2 and
// stores nothing.
func TestAddRefusesBadJobs(t *testing.T) {
	t.Parallel()
	url, pool := open(t)
	for _, argv := range [][]string{
		{"nightly", "--cron", "@daily", "--", "nosuch"},
		{"nightly", "--cron", "@daily", "--", "decay", "run", "--no-such-flag"},
		{"nightly", "--cron", "@daily", "--", "decay", "run", "--chunk-size", "many"},
		{"nightly", "--cron", "@daily", "--", "decay", "run", "stray"},
		{"nightly", "--cron", "@daily", "--", "migrate", "down"},
		{"nightly", "--cron", "@daily", "--", "worker"},
		{"nightly", "--cron", "@daily", "--", "schedule", "list"},
		{"nightly", "--cron", "@daily", "--", "decay"},
		{"nightly", "--cron", "not a spec", "--", "decay", "run"},
		{"nightly", "--cron", "@daily", "--timezone", "Nowhere/Town", "--", "decay", "run"},
		{"nightly", "--cron", "@daily", "--catch-up", "all", "--", "decay", "run"},
		{"nightly", "--cron", "@daily", "decay", "run"},
		{"nightly", "--cron", "@daily", "--"},
		{"Bad Name", "--cron", "@daily", "--", "decay", "run"},
		{"nightly", "--cron", "@daily", "--", "decay", "run", "--config", "other.yaml"},
		{"nightly", "--cron", "@daily", "--", "decay", "run", "--config=other.yaml"},
		{"nightly", "--cron", "@daily", "--", "decay", "run", "--database-url", "postgres://elsewhere/db"},
		{"nightly", "--cron", "@daily", "--", "synthesize", "--all-users", "--log-level", "debug"},
	} {
		if _, code := helix(t, url, append([]string{"schedule", "add"}, argv...)...); code != 2 {
			t.Errorf("schedule add %q: exit %d, want 2", argv, code)
		}
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedules`); n != 0 {
		t.Errorf("%d schedules stored", n)
	}
	// and a good one is stored, once
	mustHelix(t, url, "schedule", "add", "nightly", "--cron", "0 2 * * *", "--timezone", "America/New_York", "--", "decay", "run", "--chunk-size", "5000")
	if _, code := helix(t, url, "schedule", "add", "nightly", "--cron", "@daily", "--", "decay", "run"); code != 2 {
		t.Errorf("adding a name twice: exit %d, want 2", code)
	}
	for _, argv := range [][]string{{"show", "nope"}, {"pause", "nope"}, {"resume", "nope"}, {"run-now", "nope"}, {"history", "nope"}, {"remove", "nope", "--yes"}, {"remove", "nightly"}} {
		if _, code := helix(t, url, append([]string{"schedule"}, argv...)...); code != 2 {
			t.Errorf("schedule %v: exit %d, want 2", argv, code)
		}
	}
	var s schedule.Schedule
	if err := json.Unmarshal([]byte(mustHelix(t, url, "schedule", "show", "nightly", "-o", "json")), &s); err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Job, " ") != "decay run --chunk-size 5000" || s.Timezone != "America/New_York" || s.NextTick.Hour() != 7 && s.NextTick.Hour() != 6 {
		t.Errorf("stored %+v", s)
	}
	var f schedule.Fire
	if err := json.Unmarshal([]byte(mustHelix(t, url, "schedule", "run-now", "nightly", "-o", "json")), &f); err != nil || f.Kind != "run_now" || f.JobID == nil {
		t.Errorf("run-now: %+v %v", f, err)
	}
	if out := mustHelix(t, url, "schedule", "remove", "nightly", "--yes", "-o", "json"); !strings.Contains(out, `"fires":1`) {
		t.Errorf("remove: %s", out)
	}
}

// A job line written into helix_schedules by SQL, past schedule add, is
// checked again by the same function when it fires: --config (a file that
// would point the job at this very database) and --database-url are
// refused, the job never runs, and the fire says why.
func TestFireRefusesGlobalFlagsWrittenBySQL(t *testing.T) {
	t.Parallel()
	url, pool := open(t)
	other := filepath.Join(t.TempDir(), "other.yaml")
	if err := os.WriteFile(other, []byte("database-url: "+url+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, argv := range map[string][]string{
		"by-config":    {"decay", "run", "--config", other},
		"by-url":       {"decay", "run", "--database-url", url},
		"after-dashes": {"memory", "search", "--user-id", "a0000000-0000-4000-8000-000000000001", "--", "--config=" + other},
	} {
		if _, err := pool.Exec(context.Background(), `INSERT INTO helix_schedules (name, spec, argv, max_failures, next_tick)
			VALUES ($1, '@every 1s', $2, 0, now())`, name, argv); err != nil {
			t.Fatal(err)
		}
	}
	w := start(t, url, workerArgs...)
	waitFor(t, 2*time.Minute, "a finished fire of every schedule", func() bool {
		return scalar[int](t, pool, `SELECT count(DISTINCT schedule_id) FROM helix_schedule_fires WHERE status IN ('ok', 'failed', 'partial')`) == 3
	})
	stop(t, w)
	rows, err := pool.Query(context.Background(), `SELECT s.name, f.error FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id
		WHERE f.status = 'failed'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, msg string
		if err := rows.Scan(&name, &msg); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(msg, "is not allowed in a scheduled job") {
			t.Errorf("fire of %s failed with %q, want the job line refused", name, msg)
		}
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE status NOT IN ('failed', 'pending', 'skipped')`); n != 0 {
		t.Errorf("%d fires ran or are running", n)
	}
	if n := scalar[int](t, pool, `SELECT count(DISTINCT schedule_id) FROM helix_schedule_fires WHERE status = 'failed'`); n != 3 {
		t.Errorf("%d of 3 schedules have a refused fire", n)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM job_runs`); n != 0 {
		t.Errorf("a refused job line ran: %d job runs", n)
	}
}
