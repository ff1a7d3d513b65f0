package decay

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseSpec(t *testing.T) {
	from := time.Date(2026, 11, 1, 12, 0, 30, 0, time.UTC)
	for spec, want := range map[string]time.Time{
		"0 * * * *":     time.Date(2026, 11, 1, 13, 0, 0, 0, time.UTC),
		"*/5 * * * * *": time.Date(2026, 11, 1, 12, 0, 35, 0, time.UTC), // seconds field
		"@hourly":       time.Date(2026, 11, 1, 13, 0, 0, 0, time.UTC),
		"@every 15m":    from.Add(15 * time.Minute),
		"@daily":        time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC),
	} {
		s, err := ParseSpec(spec, time.UTC)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if got := s.Next(from); !got.Equal(want) {
			t.Errorf("%s: next after %s = %s, want %s", spec, from, got, want)
		}
	}
	for _, bad := range []string{"", "61 * * * *", "* * * *", "@fortnightly"} {
		if _, err := ParseSpec(bad, time.UTC); err == nil {
			t.Errorf("ParseSpec(%q) accepted", bad)
		}
	}
}

// What helix does at a daylight-saving transition in a non-UTC --timezone
// (documented in README): robfig/cron evaluates specs in wall-clock time, so
// a time that does not exist on the spring-forward day is skipped (the job
// runs the next day), and a time that occurs twice on the fall-back day runs
// twice. Retention depends only on each memory's last access and the run's
// instant, so a skipped run is caught up in full by the next one and a doubled
// run recomputes the same curve an hour later: no drift either way.
func TestScheduleAcrossDST(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	next := func(spec string, from time.Time, n int) []string {
		s, err := ParseSpec(spec, ny)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for range n {
			from = s.Next(from)
			out = append(out, from.UTC().Format(time.RFC3339))
		}
		return out
	}
	check := func(name string, got []string, want ...string) {
		t.Helper()
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s:\n got %v\nwant %v", name, got, want)
		}
	}
	// 2026-03-08 02:00 EST → 03:00 EDT: 02:30 does not exist that day.
	check("daily 02:30 over spring-forward", next("30 2 * * *", time.Date(2026, 3, 7, 3, 0, 0, 0, ny), 2),
		"2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z")
	check("hourly over spring-forward", next("0 * * * *", time.Date(2026, 3, 8, 0, 30, 0, 0, ny), 3),
		"2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z", "2026-03-08T08:00:00Z") // 01:00 EST, 03:00 EDT, 04:00 EDT
	// 2026-11-01 02:00 EDT → 01:00 EST: 01:30 happens twice.
	check("daily 01:30 over fall-back", next("30 1 * * *", time.Date(2026, 10, 31, 3, 0, 0, 0, ny), 3),
		"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", "2026-11-02T06:30:00Z")
	check("hourly over fall-back", next("0 * * * *", time.Date(2026, 11, 1, 0, 30, 0, 0, ny), 3),
		"2026-11-01T05:00:00Z", "2026-11-01T06:00:00Z", "2026-11-01T07:00:00Z") // 01:00 EDT, 01:00 EST, 02:00 EST
	// CRON_TZ in the spec wins over --timezone.
	check("CRON_TZ", next("CRON_TZ=UTC 30 2 * * *", time.Date(2026, 3, 7, 3, 0, 0, 0, ny), 1), "2026-03-08T02:30:00Z")
}

func TestTickTracker(t *testing.T) {
	s, _ := ParseSpec("*/10 * * * * *", time.UTC)
	t0 := time.Date(2026, 11, 1, 12, 0, 3, 0, time.UTC)
	tr := &tickTracker{s: s, next: s.Next(t0)}
	if got := tr.at(t0.Add(time.Second)); !got.IsZero() {
		t.Errorf("before the first tick: %v, want zero (run-now)", got)
	}
	if got := tr.at(t0.Add(7*time.Second + 40*time.Millisecond)); !got.Equal(t0.Add(7 * time.Second)) {
		t.Errorf("first tick = %v", got)
	}
	// Ticks missed while a run went on: the latest one is named.
	if got := tr.at(t0.Add(38 * time.Second)); !got.Equal(t0.Add(37 * time.Second)) {
		t.Errorf("after missed ticks = %v", got)
	}
}

type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.b.Write(p) }
func (l *logBuf) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func serve(t *testing.T, o ScheduleOptions) (cancel func(), done <-chan error, logs *logBuf) {
	t.Helper()
	logs = &logBuf{}
	o.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if o.Schedule == nil {
		o.Schedule, _ = ParseSpec("* * * * * *", time.UTC)
	}
	o.Location = time.UTC
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	go func() { ch <- Serve(ctx, o) }()
	t.Cleanup(cancel)
	return cancel, ch, logs
}

func waitFor(t *testing.T, logs *logBuf, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; logs:\n%s", what, logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A panic and a failed run are logged and the service keeps ticking.
func TestServeSurvivesPanicsAndErrors(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var firstTick atomic.Value
	cancel, done, logs := serve(t, ScheduleOptions{RunNow: true, ShutdownTimeout: time.Second,
		Job: func(ctx context.Context, tick time.Time) error {
			switch calls.Add(1) {
			case 1:
				firstTick.Store(tick)
				panic("boom")
			case 2:
				return errors.New("database unavailable")
			}
			return nil
		}})
	waitFor(t, logs, "three runs", func() bool { return calls.Load() >= 3 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve returned %v", err)
	}
	if tk := firstTick.Load().(time.Time); !tk.IsZero() {
		t.Errorf("the --run-now run has tick %v, want zero", tk)
	}
	out := logs.String()
	for _, want := range []string{"cron: panic", "boom", "decay run failed; the next tick tries again", "database unavailable", "decay schedule stopped"} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %q:\n%s", want, out)
		}
	}
}

// A stop lets the run in flight finish; a tick during a run is skipped.
func TestServeStopWaitsForRun(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 10)
	var finished, cancelled atomic.Bool
	cancel, done, logs := serve(t, ScheduleOptions{RunNow: true, ShutdownTimeout: 30 * time.Second,
		Job: func(ctx context.Context, tick time.Time) error {
			started <- struct{}{}
			select {
			case <-time.After(2500 * time.Millisecond):
				finished.Store(true)
			case <-ctx.Done():
				cancelled.Store(true)
			}
			return nil
		}})
	<-started
	waitFor(t, logs, "a skipped tick", func() bool { return strings.Contains(logs.String(), "tick skipped") })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !finished.Load() || cancelled.Load() {
		t.Errorf("run in flight: finished=%v cancelled=%v, want it finished", finished.Load(), cancelled.Load())
	}
}

// After the shutdown timeout the run's context is cancelled and Serve returns nil.
func TestServeShutdownTimeout(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 10)
	var cancelled atomic.Bool
	cancel, done, logs := serve(t, ScheduleOptions{RunNow: true, ShutdownTimeout: 200 * time.Millisecond,
		Job: func(ctx context.Context, tick time.Time) error {
			started <- struct{}{}
			<-ctx.Done()
			cancelled.Store(true)
			return ctx.Err()
		}})
	<-started
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !cancelled.Load() || !strings.Contains(logs.String(), "shutdown timeout") {
		t.Errorf("cancelled=%v logs:\n%s", cancelled.Load(), logs.String())
	}
}
