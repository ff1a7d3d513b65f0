package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

// The test binary doubles as a fake helix job: with HELIX_SCHEDULE_TEST_CHILD
// set, it behaves as `helix --output=json ACTION` would (exit status, JSON
// result on stdout, JSON error line on stderr) and appends ACTION to the file
// HELIX_SCHEDULE_TEST_RUNS names, so a test counts the job's runs.
func TestMain(m *testing.M) {
	if os.Getenv("HELIX_SCHEDULE_TEST_CHILD") != "" {
		os.Exit(child(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func child(args []string) int {
	if len(args) < 2 || args[0] != "--output=json" {
		fmt.Fprintf(os.Stderr, "bad args %q\n", args)
		return 2
	}
	if p := os.Getenv("HELIX_SCHEDULE_TEST_RUNS"); p != "" {
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		fmt.Fprintln(f, args[1])
		_ = f.Close()
	}
	fail := func(code int, kind, msg string) int {
		fmt.Fprintln(os.Stderr, `{"time":"2026-11-24T04:00:00Z","level":"INFO","msg":"working"}`)
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "code": code, "kind": kind}})
		fmt.Fprintln(os.Stderr, string(b))
		return code
	}
	switch args[1] {
	case "ok":
		fmt.Println(`{"run_id": 7, "memories": 120, "mode": "full", "nested": {"a": 1}, "list": [1, 2]}`)
		return 0
	case "fail":
		return fail(1, "failed", "provider said no")
	case "partial":
		return fail(3, "partial", "1 of 3 failed: u1: boom")
	case "held":
		return fail(5, "skipped", "skipped: held by helix-decay host=a pid=1")
	case "sleep":
		// a helix job on SIGTERM: stop, report, exit 130
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM)
		select {
		case <-ch:
			return fail(130, "interrupted", "interrupted: context canceled")
		case <-time.After(time.Minute):
			return 0
		}
	}
	return fail(2, "usage", "unknown action "+args[1])
}

func insertClient(t *testing.T, pool *pgxpool.Pool) *river.Client[pgx.Tx] {
	t.Helper()
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func scalar[T any](t *testing.T, q db.Querier, sql string, args ...any) T {
	t.Helper()
	var v T
	if err := q.QueryRow(context.Background(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

var quiet = slog.New(slog.DiscardHandler)

// Tick passes racing at the same instant and repeated at it make each tick
// one fire and one River job; pause stops ticks, resume applies catch-up.
func TestPassFiresOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	ins := insertClient(t, pool)
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 300_000_000, time.UTC)
	for _, name := range []string{"every-second", "every-second-once"} {
		catch := CatchUpNone
		if strings.HasSuffix(name, "once") {
			catch = CatchUpOnce
		}
		if _, err := Add(ctx, pool, Spec{Name: name, Cron: "* * * * * *", Timezone: "UTC", CatchUp: catch, MaxFailures: 5,
			Argv: []string{"decay", "run"}}, t0); err != nil {
			t.Fatal(err)
		}
	}
	// 8 passes at once at t0+3.5s: ticks 12:00:01, :02, :03 of each schedule.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := Pass(ctx, pool, ins, t0.Add(3500*time.Millisecond), time.Minute, quiet)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if res, err := Pass(ctx, pool, ins, t0.Add(3500*time.Millisecond), time.Minute, quiet); err != nil || res.Fires != 0 {
		t.Fatalf("pass again at the same instant: %+v %v", res, err)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires`); n != 6 {
		t.Fatalf("%d fires, want 6", n)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'schedule_fire' AND queue = 'schedule'`); n != 6 {
		t.Fatalf("%d fire jobs, want 6", n)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires f JOIN river_job j ON j.id = f.river_job_id
		WHERE (j.args->>'fire_id')::bigint = f.id`); n != 6 {
		t.Fatalf("%d fires point at their job, want 6", n)
	}
	// A fire row that exists already (a pass that crashed after its commit
	// cannot exist, but a run-now at a tick's instant can) is not fired again.
	if _, err := Pause(ctx, pool, "every-second"); err != nil {
		t.Fatal(err)
	}
	if _, err := Pause(ctx, pool, "every-second-once"); err != nil {
		t.Fatal(err)
	}
	if res, err := Pass(ctx, pool, ins, t0.Add(30*time.Second), time.Minute, quiet); err != nil || res.Fires != 0 {
		t.Fatalf("pass over paused schedules: %+v %v", res, err)
	}
	for _, name := range []string{"every-second", "every-second-once"} {
		if s, err := Resume(ctx, pool, name); err != nil || s.State != "active" {
			t.Fatalf("resume: %+v %v", s, err)
		}
	}
	// Paused from :04 to :30: the 5 s before :30.5 are on time; once adds :25.
	res, err := Pass(ctx, pool, ins, t0.Add(30*time.Second), time.Minute, quiet)
	if err != nil || res.Fires != 11 {
		t.Fatalf("pass after resume: %+v %v, want 5+6 fires", res, err)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE kind = 'catch_up'`); n != 1 {
		t.Fatalf("%d catch-ups, want 1", n)
	}
	if got := scalar[time.Time](t, pool, `SELECT tick FROM helix_schedule_fires WHERE kind = 'catch_up'`); !got.Equal(time.Date(2026, 11, 24, 12, 0, 25, 0, time.UTC)) {
		t.Fatalf("catch-up tick %s", got)
	}
	s, err := Get(ctx, pool, "every-second")
	if err != nil || !s.NextTick.Equal(time.Date(2026, 11, 24, 12, 0, 31, 0, time.UTC)) || !s.LastTick.Equal(time.Date(2026, 11, 24, 12, 0, 30, 0, time.UTC)) {
		t.Fatalf("after the pass: %+v %v", s, err)
	}

	// run-now fires a paused schedule, with its own tick.
	if _, err := Pause(ctx, pool, "every-second"); err != nil {
		t.Fatal(err)
	}
	f, err := RunNow(ctx, pool, ins, "every-second", t0.Add(40*time.Second+123*time.Microsecond))
	if err != nil || f.Kind != KindRunNow || f.JobID == nil || f.Status != StatusPending {
		t.Fatalf("run-now: %+v %v", f, err)
	}
	if _, err := RunNow(ctx, pool, ins, "nope", t0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("run-now of an unknown schedule: %v", err)
	}
	hist, err := History(ctx, pool, "every-second", 3)
	if err != nil || len(hist) != 3 || hist[0].Kind != KindRunNow {
		t.Fatalf("history: %v %v", hist, err)
	}
	n, err := Remove(ctx, pool, "every-second")
	if err != nil || n != 9 {
		t.Fatalf("remove: %d %v, want 9 fires gone", n, err)
	}
	if _, err := Remove(ctx, pool, "every-second"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("remove again: %v", err)
	}
}

// --jitter schedules a fire's job a random delay after its tick.
func TestPassJitter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	if _, err := Add(ctx, pool, Spec{Name: "jittery", Cron: "@hourly", Timezone: "UTC", CatchUp: CatchUpNone, Jitter: 10 * time.Minute,
		Argv: []string{"decay", "run"}}, t0.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if res, err := Pass(ctx, pool, insertClient(t, pool), t0, time.Minute, quiet); err != nil || res.Fires != 1 {
		t.Fatalf("pass: %+v %v", res, err)
	}
	state := scalar[string](t, pool, `SELECT state::text FROM river_job WHERE kind = 'schedule_fire'`)
	at := scalar[time.Time](t, pool, `SELECT scheduled_at FROM river_job WHERE kind = 'schedule_fire'`)
	if d := at.Sub(t0); state != "scheduled" || d < 0 || d >= 10*time.Minute {
		t.Fatalf("fire job %s at tick+%s, want scheduled within 10m", state, d)
	}
}

func TestAddValidates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.New(t) // the duplicate's error would end a transaction
	ok := Spec{Name: "nightly", Cron: "0 2 * * *", Timezone: "Europe/Berlin", CatchUp: CatchUpOnce, MaxFailures: 5, Argv: []string{"decay", "run"}}
	now := time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC) // Berlin springs forward at 01:00 UTC
	s, err := Add(ctx, tx, ok, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC); !s.NextTick.Equal(want) { // 02:00 CEST
		t.Errorf("next tick %s, want %s (02:00 does not exist on 29 March in Berlin)", s.NextTick, want)
	}
	if _, err := Add(ctx, tx, ok, now); !errors.Is(err, ErrExists) {
		t.Errorf("add twice: %v", err)
	}
	for _, bad := range []func(*Spec){
		func(s *Spec) { s.Name = "Bad Name" },
		func(s *Spec) { s.Cron = "61 * * * *" },
		func(s *Spec) { s.Timezone = "Mars/Olympus" },
		func(s *Spec) { s.Timezone = "" },
		func(s *Spec) { s.CatchUp = "all" },
		func(s *Spec) { s.Jitter = -time.Second },
		func(s *Spec) { s.MaxFailures = -1 },
		func(s *Spec) { s.Argv = nil },
	} {
		sp := ok
		sp.Name = "other"
		bad(&sp)
		if _, err := Add(ctx, tx, sp, now); err == nil {
			t.Errorf("accepted %+v", sp)
		}
	}
	if n := scalar[int](t, tx, `SELECT count(*) FROM helix_schedules`); n != 1 {
		t.Errorf("%d schedules stored, want 1", n)
	}
}

type fireEnv struct {
	t    *testing.T
	pool *pgxpool.Pool
	w    *FireWorker
	runs string
}

func newFireEnv(t *testing.T) *fireEnv {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(t.TempDir(), "runs")
	pool := pgtest.New(t)
	env := append(os.Environ(), "HELIX_SCHEDULE_TEST_CHILD=1", "HELIX_SCHEDULE_TEST_RUNS="+runs)
	return &fireEnv{t: t, pool: pool, runs: runs,
		w: &FireWorker{c: Config{Pool: pool, Now: time.Now, Log: quiet, Grace: time.Minute, Exe: exe, Env: env, KillAfter: 5 * time.Second}}}
}

func (e *fireEnv) runCount() int {
	b, _ := os.ReadFile(e.runs)
	return strings.Count(string(b), "\n")
}

// fire makes a fire of the schedule at tick and works it as River would.
func (e *fireEnv) fire(ctx context.Context, name string, tick time.Time, kind string) (int64, error) {
	e.t.Helper()
	var id int64
	if err := e.pool.QueryRow(ctx, `INSERT INTO helix_schedule_fires (schedule_id, tick, kind)
		SELECT id, $2, $3 FROM helix_schedules WHERE name = $1 RETURNING id`, name, tick, kind).Scan(&id); err != nil {
		e.t.Fatal(err)
	}
	return id, e.work(ctx, id)
}

func (e *fireEnv) work(ctx context.Context, id int64) error {
	return e.w.Work(ctx, &river.Job[FireArgs]{JobRow: &rivertype.JobRow{ID: 1000 + id}, Args: FireArgs{FireID: id}})
}

func (e *fireEnv) add(name string, maxFailures int, argv ...string) {
	e.t.Helper()
	if _, err := Add(context.Background(), e.pool, Spec{Name: name, Cron: "@hourly", Timezone: "UTC", CatchUp: CatchUpNone,
		MaxFailures: maxFailures, Argv: argv}, time.Now()); err != nil {
		e.t.Fatal(err)
	}
}

// A fire runs its job once and records status, exit, counts and error; a
// retried or rescued copy of a finished fire does not run the job again, and
// one whose fire is held by a running copy snoozes.
func TestFireRecordsAndRunsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newFireEnv(t)
	e.add("ok", 5, "ok")
	tick := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	id, err := e.fire(ctx, "ok", tick, KindTick)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := History(ctx, e.pool, "ok", 10)
	if err != nil || len(hist) != 1 {
		t.Fatal(hist, err)
	}
	f := hist[0]
	var counts map[string]any
	_ = json.Unmarshal(f.Counts, &counts)
	if f.Status != StatusOK || *f.ExitCode != 0 || f.Attempts != 1 || *f.JobID != 1000+id || f.DurationMS == nil ||
		counts["memories"] != float64(120) || counts["mode"] != "full" || counts["nested"] != nil || f.Error != nil {
		t.Fatalf("fire %+v counts %v", f, counts)
	}
	for range 2 { // River retries it, then rescues it
		if err := e.work(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.runCount(); n != 1 {
		t.Fatalf("job ran %d times, want once", n)
	}
	// A copy finds the fire's lock held by the first: it snoozes.
	lock, err := db.TryLock(ctx, e.pool, fmt.Sprintf("schedule-fire %d", id))
	if err != nil {
		t.Fatal(err)
	}
	var snooze *river.JobSnoozeError
	if err := e.work(ctx, id); !errors.As(err, &snooze) {
		t.Fatalf("work while held: %v, want a snooze", err)
	}
	_ = lock.Release(ctx)

	for action, want := range map[string]string{"partial": StatusPartial, "held": StatusSkipped} {
		e.add(action, 5, action)
		if _, err := e.fire(ctx, action, tick, KindTick); err != nil {
			t.Fatal(err)
		}
		h, _ := History(ctx, e.pool, action, 1)
		if h[0].Status != want || h[0].Error == nil || !strings.Contains(*h[0].Error, map[string]string{"partial": "1 of 3 failed", "held": "held by"}[action]) {
			t.Errorf("%s: %+v", action, h[0])
		}
	}
	// A job line written into the table by other means is checked again.
	e.add("sneaky", 5, "migrate", "down", "--yes")
	if _, err := e.fire(ctx, "sneaky", tick, KindRunNow); err != nil {
		t.Fatal(err)
	}
	if h, _ := History(ctx, e.pool, "sneaky", 1); h[0].Status != StatusFailed || !strings.Contains(*h[0].Error, "not a helix job") {
		t.Errorf("sneaky: %+v", h[0])
	}
	// A removed schedule's queued fire is dropped.
	e.add("gone", 5, "ok")
	var gone int64
	_ = e.pool.QueryRow(ctx, `INSERT INTO helix_schedule_fires (schedule_id, tick, kind) SELECT id, now(), 'tick' FROM helix_schedules WHERE name = 'gone' RETURNING id`).Scan(&gone)
	if _, err := Remove(ctx, e.pool, "gone"); err != nil {
		t.Fatal(err)
	}
	if err := e.work(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if n := e.runCount(); n != 3 {
		t.Fatalf("%d runs, want 3 (ok, partial, held)", n)
	}
}

// max_failures failed fires in a row disable the schedule with the reason;
// later fires are skipped unrun, run-now still runs; resume clears it all.
func TestAutoDisable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newFireEnv(t)
	var outcomes []string // what the worker's metrics are told
	e.w.c.Observe = func(o string) { outcomes = append(outcomes, o) }
	e.add("flaky", 3, "fail")
	tick := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for i := range 3 {
		if _, err := e.fire(ctx, "flaky", tick.Add(time.Duration(i)*time.Hour), KindTick); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Get(ctx, e.pool, "flaky")
	if err != nil || s.State != "disabled" || s.ConsecutiveFailures != 3 || s.DisabledReason == nil ||
		*s.DisabledReason != "3 failures in a row; the last: exit 1: provider said no" {
		t.Fatalf("after 3 failures: %+v %v", s, err)
	}
	if _, err := e.fire(ctx, "flaky", tick.Add(3*time.Hour), KindTick); err != nil {
		t.Fatal(err)
	}
	if _, err := e.fire(ctx, "flaky", tick.Add(4*time.Hour), KindRunNow); err != nil {
		t.Fatal(err)
	}
	if n := e.runCount(); n != 4 {
		t.Fatalf("%d runs, want 4: 3 failures and the run-now, not the tick after the disable", n)
	}
	h, _ := History(ctx, e.pool, "flaky", 2)
	if h[1].Status != StatusSkipped || !strings.Contains(*h[1].Error, "disabled: 3 failures") || h[0].Status != StatusFailed {
		t.Fatalf("history %+v %+v", h[0], h[1])
	}
	if s, err := Resume(ctx, e.pool, "flaky"); err != nil || s.State != "active" || s.ConsecutiveFailures != 0 || s.DisabledReason != nil {
		t.Fatalf("resume: %+v %v", s, err)
	}
	// A success resets the count.
	if _, err := e.pool.Exec(ctx, `UPDATE helix_schedules SET argv = '{ok}', consecutive_failures = 2 WHERE name = 'flaky'`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.fire(ctx, "flaky", tick.Add(5*time.Hour), KindTick); err != nil {
		t.Fatal(err)
	}
	if s, _ := Get(ctx, e.pool, "flaky"); s.ConsecutiveFailures != 0 {
		t.Fatalf("after a success: %d failures", s.ConsecutiveFailures)
	}
	if _, err := e.fire(ctx, "flaky", tick.Add(6*time.Hour), KindCatchUp); err != nil {
		t.Fatal(err)
	}
	want := "failed failed failed auto_disabled skipped failed ok late ok"
	if got := strings.Join(outcomes, " "); got != want {
		t.Errorf("outcomes observed: %s\nwant %s", got, want)
	}
}

// Cancelling a fire (the worker's shutdown timeout ran out) sends the job
// SIGTERM; it is recorded interrupted and River retries it, and the retry runs it.
func TestFireInterrupted(t *testing.T) {
	t.Parallel()
	e := newFireEnv(t)
	e.add("slow", 5, "sleep")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for e.runCount() == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // the child's signal handler is in place
		cancel()
	}()
	start := time.Now()
	id, err := e.fire(ctx, "slow", time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), KindTick)
	if !errors.Is(err, errInterrupted) {
		t.Fatalf("work: %v, want interrupted", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %s", d)
	}
	h, _ := History(context.Background(), e.pool, "slow", 1)
	if h[0].Status != StatusInterrupted || *h[0].ExitCode != 130 {
		t.Fatalf("%+v", h[0])
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE helix_schedules SET argv = '{ok}'`); err != nil {
		t.Fatal(err)
	}
	if err := e.work(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if h, _ := History(context.Background(), e.pool, "slow", 1); h[0].Status != StatusOK || h[0].Attempts != 2 {
		t.Fatalf("retry: %+v", h[0])
	}
}
