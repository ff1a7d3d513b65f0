package schedule

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

// Put adds a schedule, leaves an unchanged one alone (its next tick
// included), updates a changed one's spec, jitter and job line, restarts
// the ticks only when the spec or zone changed, and keeps what schedule
// pause and the failure limit set.
func TestPut(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	now := time.Date(2026, 11, 1, 12, 0, 30, 0, time.UTC)
	spec := Spec{Name: "decay", Cron: "@every 1h", Timezone: "UTC", CatchUp: CatchUpNone, Argv: []string{"decay", "run"}}
	s, did, err := Put(ctx, pool, spec, now)
	if err != nil || did != "added" || !s.NextTick.Equal(now.Add(time.Hour)) || s.MaxFailures != 0 {
		t.Fatalf("add: %+v %q %v", s, did, err)
	}
	if _, err := Pause(ctx, pool, "decay"); err != nil {
		t.Fatal(err)
	}
	s, did, err = Put(ctx, pool, spec, now.Add(10*time.Minute))
	if err != nil || did != "unchanged" || !s.NextTick.Equal(now.Add(time.Hour)) || s.State != "paused" {
		t.Fatalf("again: %+v %q %v", s, did, err)
	}
	spec.Jitter, spec.Argv = 30*time.Second, []string{"decay", "run", "--forget-below", "0.05"}
	s, did, err = Put(ctx, pool, spec, now.Add(20*time.Minute))
	if err != nil || did != "updated" || !s.NextTick.Equal(now.Add(time.Hour)) || s.Jitter != "30s" || len(s.Job) != 4 || s.State != "paused" {
		t.Fatalf("new job line: %+v %q %v", s, did, err)
	}
	spec.Cron = "0 3 * * *"
	s, did, err = Put(ctx, pool, spec, now.Add(30*time.Minute))
	if err != nil || did != "updated" || !s.NextTick.Equal(time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC)) {
		t.Fatalf("new cron: %+v %q %v", s, did, err)
	}
	spec.Cron = "61 * * * *"
	if _, _, err := Put(ctx, pool, spec, now); err == nil {
		t.Fatal("a bad spec was stored")
	}
}

func local(t *testing.T, pool *pgxpool.Pool, name string, run func(ctx context.Context, tick time.Time, argv []string) *Result) (Local, *bytes.Buffer, *sync.Mutex) {
	t.Helper()
	var mu sync.Mutex
	buf := &bytes.Buffer{}
	w := &lockedWriter{mu: &mu, w: buf}
	return Local{Pool: pool, Name: name, Run: run, ShutdownTimeout: time.Second, Poll: 50 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(w, nil))}, buf, &mu
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Two Locals on one schedule (two hosts running decay schedule): every
// tick runs once, each fire recorded with its counts; --run-now fires at
// once on each; a fire that outlasts the shutdown timeout is cancelled and
// recorded interrupted, and Serve returns.
func TestLocalFiresEachTickOnce(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	if _, _, err := Put(ctx, pool, Spec{Name: "every-second", Cron: "* * * * * *", Timezone: "UTC", CatchUp: CatchUpNone,
		Argv: []string{"decay", "run"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	ticks := map[time.Time]int{}
	run := func(ctx context.Context, tick time.Time, argv []string) *Result {
		mu.Lock()
		ticks[tick]++
		mu.Unlock()
		if len(argv) != 2 || argv[0] != "decay" {
			return JobResult(2, nil, nil)
		}
		return JobResult(0, map[string]any{"memories": 3, "mode": "incremental"}, nil)
	}
	sctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range 2 {
		l, _, _ := local(t, pool, "every-second", run)
		l.RunNow = true
		wg.Add(1)
		go func() { defer wg.Done(); _ = l.Serve(sctx) }()
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		// four ticks, and both schedulers' run-now fires (a scheduler that
		// starts late under load makes its own after the others' ticks)
		var n, now int
		if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE kind = 'tick' AND status = 'ok'), count(*) FILTER (WHERE kind = 'run_now' AND status = 'ok')
			FROM helix_schedule_fires`).Scan(&n, &now); err != nil {
			t.Fatal(err)
		}
		if n >= 4 && now >= 2 {
			break
		}
		if time.Now().After(deadline) {
			var runNows string
			_ = pool.QueryRow(ctx, `SELECT coalesce(string_agg(status || coalesce(': ' || error, ''), '; '), 'none')
				FROM helix_schedule_fires WHERE kind = 'run_now'`).Scan(&runNows)
			t.Fatalf("in 30 s: %d ok tick fires (want 4), run-now fires: %s (want 2 ok)", n, runNows)
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for tick, n := range ticks {
		if n != 1 {
			t.Errorf("tick %s ran %d times", tick, n)
		}
	}
	var runNow, bad, counted int
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE kind = 'run_now'),
		count(*) FILTER (WHERE status NOT IN ('ok', 'skipped') OR river_job_id IS NOT NULL),
		count(*) FILTER (WHERE counts = '{"memories": 3, "mode": "incremental"}' AND exit_code = 0 AND attempts = 1)
		FROM helix_schedule_fires`).Scan(&runNow, &bad, &counted); err != nil {
		t.Fatal(err)
	}
	if runNow != 2 || bad != 0 || counted != len(ticks) {
		t.Errorf("%d run-now fires (want 2), %d not ok, %d with counts of %d runs", runNow, bad, counted, len(ticks))
	}
}

// SIGTERM while a fire runs: it may finish within the shutdown timeout;
// past it, it is cancelled and recorded interrupted.
func TestLocalShutdownTimeout(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	if _, _, err := Put(ctx, pool, Spec{Name: "slow", Cron: "@every 1h", Timezone: "UTC", CatchUp: CatchUpNone,
		Argv: []string{"decay", "run"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	l, logs, mu := local(t, pool, "slow", func(ctx context.Context, _ time.Time, _ []string) *Result {
		close(started)
		<-ctx.Done()
		return JobResult(130, nil, ctx.Err())
	})
	l.RunNow, l.ShutdownTimeout = true, 200*time.Millisecond
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- l.Serve(sctx) }()
	<-started
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after the shutdown timeout")
	}
	var status string
	if err := pool.QueryRow(ctx, `SELECT status FROM helix_schedule_fires`).Scan(&status); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if status != StatusInterrupted || !bytes.Contains(logs.Bytes(), []byte("shutdown timeout: cancelling the fire in flight")) {
		t.Errorf("status %s\n%s", status, logs)
	}
}

// A fire whose Local died (running, no River job, no lease) is closed as
// interrupted by the next Local of its schedule; one whose lease is held
// (a live Local runs it) is left alone; a paused schedule fires nothing.
func TestLocalReclaimsAndHonoursPause(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	if _, _, err := Put(ctx, pool, Spec{Name: "nightly", Cron: "* * * * * *", Timezone: "UTC", CatchUp: CatchUpNone,
		Argv: []string{"decay", "run"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := Pause(ctx, pool, "nightly"); err != nil {
		t.Fatal(err)
	}
	var dead, live int64
	if _, err := pool.Exec(ctx, `INSERT INTO helix_schedule_fires (schedule_id, tick, kind, status, started_at, attempts)
		SELECT id, t, 'tick', 'running', now(), 1 FROM helix_schedules, unnest(ARRAY['2026-11-01T02:00:00Z', '2026-11-01T03:00:00Z']::timestamptz[]) t
		`); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT min(id), max(id) FROM helix_schedule_fires`).Scan(&dead, &live); err != nil {
		t.Fatal(err)
	}
	lock, err := db.TryLock(ctx, pool, "schedule-fire "+strconv.FormatInt(live, 10))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Release(ctx) }()
	ran := 0
	l, _, _ := local(t, pool, "nightly", func(context.Context, time.Time, []string) *Result { ran++; return JobResult(0, nil, nil) })
	sctx, stop := context.WithTimeout(ctx, 2*time.Second)
	defer stop()
	if err := l.Serve(sctx); err != nil {
		t.Fatal(err)
	}
	var deadStatus, liveStatus string
	if err := pool.QueryRow(ctx, `SELECT (SELECT status FROM helix_schedule_fires WHERE id = $1), (SELECT status FROM helix_schedule_fires WHERE id = $2)`,
		dead, live).Scan(&deadStatus, &liveStatus); err != nil {
		t.Fatal(err)
	}
	if deadStatus != StatusInterrupted || liveStatus != StatusRunning || ran != 0 {
		t.Errorf("dead fire %s, live fire %s, %d runs of a paused schedule", deadStatus, liveStatus, ran)
	}
}

// A reclaim reads a fire as running, its scheduler then finishes it and
// releases its lease, and the reclaim takes the lease: the outcome the
// scheduler recorded stays (once a run-now fire's ok became interrupted).
func TestFinishKeepsARecordedOutcome(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	if _, _, err := Put(ctx, pool, Spec{Name: "nightly", Cron: "0 3 * * *", Timezone: "UTC", CatchUp: CatchUpNone,
		Argv: []string{"decay", "run"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := pool.QueryRow(ctx, `INSERT INTO helix_schedule_fires (schedule_id, tick, kind, status, started_at, attempts)
		SELECT id, now(), 'run_now', 'running', now(), 1 FROM helix_schedules RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	c := &Config{Pool: pool, Log: slog.New(slog.DiscardHandler)}
	if err := c.finish(ctx, pool, "nightly", id, JobResult(0, map[string]any{"memories": 3}, nil)); err != nil {
		t.Fatal(err)
	}
	if err := c.finish(ctx, pool, "nightly", id, &Result{Status: StatusInterrupted, Error: "its scheduler stopped before the fire finished"}); err != nil {
		t.Fatal(err)
	}
	var status string
	var failures int
	if err := pool.QueryRow(ctx, `SELECT f.status, s.consecutive_failures FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id
		WHERE f.id = $1`, id).Scan(&status, &failures); err != nil {
		t.Fatal(err)
	}
	if status != StatusOK || failures != 0 {
		t.Errorf("fire %s with %d failures in a row after a late reclaim, want ok and 0", status, failures)
	}
}
