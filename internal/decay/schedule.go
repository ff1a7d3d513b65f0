package decay

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
)

// specParser accepts standard 5-field specs, an optional leading seconds
// field, and descriptors (@hourly, @every 15m).
var specParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseSpec parses a cron spec in loc (a CRON_TZ= prefix in the spec wins).
func ParseSpec(spec string, loc *time.Location) (cron.Schedule, error) {
	s, err := specParser.Parse(spec)
	if err != nil {
		return nil, err
	}
	if ss, ok := s.(*cron.SpecSchedule); ok && ss.Location == time.Local {
		ss.Location = loc
	}
	return s, nil
}

// ScheduleOptions configure Serve.
type ScheduleOptions struct {
	Schedule        cron.Schedule
	Location        *time.Location
	RunNow          bool
	Jitter          time.Duration // each run waits a random delay in [0, Jitter) first
	ShutdownTimeout time.Duration // how long a stop waits for the run in flight before cancelling it
	// Job is one run; tick is the scheduled instant (zero for --run-now). Its
	// ctx is cancelled only when a stop outlasts ShutdownTimeout.
	Job func(ctx context.Context, tick time.Time) error
	Log *slog.Logger
}

// Serve runs Job on the schedule until ctx is cancelled, then lets the run in
// flight finish (or cancels it after ShutdownTimeout) and returns nil. A tick
// that comes while a run is still going is skipped; a failed or panicking run
// is logged and the next tick tries again.
func Serve(ctx context.Context, o ScheduleOptions) error {
	l := o.Log
	runCtx, cancelRun := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRun()
	cl := cronLogger{l}
	// The inner Recover matters: in v3.0.1 SkipIfStillRunning releases its
	// slot without a defer, so a panic passing through it would make every
	// later tick "still running" (robfig/cron#366).
	c := cron.New(cron.WithLocation(o.Location), cron.WithLogger(cl),
		cron.WithChain(cron.Recover(cl), cron.SkipIfStillRunning(cl), cron.Recover(cl)))
	ticks := &tickTracker{s: o.Schedule, next: o.Schedule.Next(time.Now())}
	var sched cron.Schedule = o.Schedule
	if o.RunNow {
		sched = &runNowSchedule{Schedule: o.Schedule}
	}
	c.Schedule(sched, cron.FuncJob(func() {
		tick := ticks.at(time.Now())
		if o.Jitter > 0 {
			d := rand.N(o.Jitter)
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return
			}
		}
		if err := o.Job(runCtx, tick); err != nil {
			l.Error("decay run failed; the next tick tries again", "tick", fmtTick(tick), "err", err)
		}
	}))
	c.Start()
	l.Info("decay schedule started", "next", c.Entries()[0].Next.Format(time.RFC3339), "timezone", o.Location.String())
	<-ctx.Done()
	l.Info("stopping: waiting for the run in flight", "timeout", o.ShutdownTimeout.String())
	stopped := c.Stop()
	select {
	case <-stopped.Done():
	case <-time.After(o.ShutdownTimeout):
		l.Warn("shutdown timeout: cancelling the run in flight (its current chunk rolls back)")
		cancelRun()
		<-stopped.Done()
	}
	l.Info("decay schedule stopped")
	return nil
}

func fmtTick(t time.Time) string {
	if t.IsZero() {
		return "run-now"
	}
	return t.UTC().Format(time.RFC3339)
}

// runNowSchedule fires once at start, then follows its schedule.
type runNowSchedule struct {
	cron.Schedule
	started bool
}

func (s *runNowSchedule) Next(t time.Time) time.Time {
	if !s.started {
		s.started = true
		return t
	}
	return s.Schedule.Next(t)
}

// tickTracker names the scheduled instant a run belongs to: the latest
// instant of the schedule at or before now. Two schedulers with one spec and
// timezone agree on it (for cron specs; @every counts from each process's start).
type tickTracker struct {
	mu   sync.Mutex
	s    cron.Schedule
	next time.Time
}

func (t *tickTracker) at(now time.Time) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.next.IsZero() || t.next.After(now) {
		return time.Time{} // before the first tick: --run-now
	}
	tick := t.next
	for i := 0; i < 1_000_000; i++ {
		n := t.s.Next(tick)
		if n.IsZero() || n.After(now) {
			break
		}
		tick = n
	}
	t.next = t.s.Next(tick)
	return tick
}

// cronLogger sends robfig/cron's log lines to slog.
type cronLogger struct{ l *slog.Logger }

func (c cronLogger) Info(msg string, kv ...any) {
	if msg == "skip" {
		c.l.Warn("tick skipped: the previous run is still in progress")
		return
	}
	c.l.Debug("cron: "+msg, kv...)
}

func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error(fmt.Sprintf("cron: %s", msg), append(kv, "err", err)...)
}
