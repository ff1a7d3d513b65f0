package decay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/decay"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/schedule"
)

// DefaultScheduleName is the stored schedule decay schedule keeps.
const DefaultScheduleName = "decay"

// ScheduleOptions are the inputs of `decay schedule`.
type ScheduleOptions struct {
	IO *iostreams.IOStreams
	F  *cmdutil.Factory
	jobFlags
	Name            string
	Cron            string
	RunNow          bool
	Jitter          time.Duration
	Timezone        string
	ShutdownTimeout time.Duration

	spec schedule.Spec
}

// NewCmdSchedule keeps a durable schedule of `decay run` and fires it in
// this process until stopped.
func NewCmdSchedule(f *cmdutil.Factory, runF func(*ScheduleOptions) error) *cobra.Command {
	opts := &ScheduleOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "schedule --cron SPEC",
		Short: "Run decay on a cron schedule, as a long-running service",
		Long: `Run decay on a cron schedule until SIGINT/SIGTERM, in this process: the
single-process form of helix schedule, for a machine without helix worker.

It stores the schedule in the database as helix schedule add would (name
--name, default "decay"; job line "decay run" with this command's
--forget-below, --batch-size and --user-id), or brings a stored one of that
name to this spec, time zone, jitter and job line, and then fires it: the same
tick passes as the workers' (helix schedule), each tick once, recorded in the
schedule's history (helix schedule history decay) with status, duration and
counts, paused and resumed with helix schedule pause|resume. A helix worker
on the same database may fire a tick first; it then runs it as a child
process. Several decay schedule processes (on several hosts) may share one
schedule: each tick runs once, and the decay lock keeps runs from overlapping.

SPEC is a standard 5-field cron spec, optionally with a leading seconds field
("*/30 * * * * *"), or a descriptor (@hourly, @daily, @every 15m); it is read
in --timezone (default UTC) unless it starts with CRON_TZ=Zone. @every counts
from when the schedule was first stored.

Runs are one at a time: a tick that comes while a run is still going fires
when it ends if that is within a minute, else it is missed (logged). A failed
run (say, the database is down) is recorded and the next tick tries again;
the service does not exit. --jitter waits a random delay up to D before each
run. On SIGTERM the run in flight finishes (or, after --shutdown-timeout, is
cancelled and its current chunk rolled back, to be resumed by the next run)
and the service exits 0.

In a --timezone with daylight saving, a time that does not exist on the
spring-forward day is skipped and one that occurs twice on the fall-back day
runs twice; retention is computed from each item's last access, so neither
causes drift. Schedule at a time outside 01:00-03:00, or in UTC, to avoid both.

EXAMPLES
  helix decay schedule --cron "0 * * * *" --run-now --jitter 30s
  helix decay schedule --cron @hourly --timezone Europe/Berlin
  helix decay schedule --cron "*/30 * * * * *" --forget-below 0.05
  helix schedule history decay --limit 5

` + cmdutil.ServiceExitStatus(cmdutil.ExitFailed, cmdutil.ExitUsage),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Not MarkFlagRequired: cobra would reject a spec that comes from
			// HELIX_DECAY_SCHEDULE_CRON or the config file.
			if opts.Cron == "" {
				return cmdutil.FlagErrorf("a schedule is required: --cron SPEC (or HELIX_DECAY_SCHEDULE_CRON, or decay.schedule.cron in the config file)")
			}
			if _, err := time.LoadLocation(opts.Timezone); err != nil || opts.Timezone == "" || opts.Timezone == "Local" {
				return cmdutil.FlagErrorf("invalid --timezone %q: use an IANA zone such as UTC or Europe/Berlin", opts.Timezone)
			}
			if _, err := schedule.Parse(opts.Cron, opts.Timezone); err != nil {
				return cmdutil.FlagErrorf("invalid --cron %q: %v", opts.Cron, errors.Unwrap(err))
			}
			if opts.Jitter < 0 || opts.ShutdownTimeout < 0 {
				return cmdutil.FlagErrorf("--jitter and --shutdown-timeout must not be negative")
			}
			if err := opts.validate(); err != nil {
				return err
			}
			opts.spec = schedule.Spec{Name: opts.Name, Cron: opts.Cron, Timezone: opts.Timezone, Jitter: opts.Jitter,
				CatchUp: schedule.CatchUpNone, Argv: opts.jobLine()}
			if _, err := opts.spec.Validate(); err != nil {
				return &cmdutil.FlagError{Err: err}
			}
			if runF != nil {
				return runF(opts)
			}
			return scheduleRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Name, "name", DefaultScheduleName, "the stored schedule's name (helix schedule list shows it)")
	fl.StringVar(&opts.Cron, "cron", "", "cron spec: 5 fields, 6 with seconds, or @hourly / @every 15m")
	fl.BoolVar(&opts.RunNow, "run-now", false, "run once at start, then on the schedule")
	fl.DurationVar(&opts.Jitter, "jitter", 0, "wait a random delay up to this before each run")
	fl.StringVar(&opts.Timezone, "timezone", "UTC", "IANA time zone the spec is read in")
	_ = cmd.RegisterFlagCompletionFunc("timezone", cmdutil.CompleteTimezone)
	fl.DurationVar(&opts.ShutdownTimeout, "shutdown-timeout", 5*time.Minute, "on SIGTERM, how long the run in flight may finish before it is cancelled")
	opts.add(cmd)
	return cmd
}

// jobLine is the stored job: decay run with the flags that shape it.
func (o *ScheduleOptions) jobLine() []string {
	argv := []string{"decay", "run"}
	if o.ForgetBelow > 0 {
		argv = append(argv, "--forget-below", strconv.FormatFloat(o.ForgetBelow, 'g', -1, 64))
	}
	if o.ChunkSize != decay.DefaultChunkSize {
		argv = append(argv, "--batch-size", strconv.Itoa(o.ChunkSize))
	}
	if u := o.UserID.String(); u != "" {
		argv = append(argv, "--user-id", u)
	}
	return argv
}

func scheduleRun(ctx context.Context, opts *ScheduleOptions) error {
	f := opts.F
	cfg, err := f.Config()
	if err != nil {
		return cmdutil.InputError(err)
	}
	base, err := opts.options(cfg)
	if err != nil {
		return err
	}
	l := f.Logger()
	base.Log = l
	pool, err := store(ctx, opts)
	if err != nil || pool == nil {
		return err // nil: stopped before the database answered
	}
	want := opts.spec.Argv
	run := func(ctx context.Context, tick time.Time, argv []string) *schedule.Result {
		if !slices.Equal(argv, want) {
			return schedule.JobResult(int(cmdutil.ExitUsage), nil, fmt.Errorf(
				"schedule %s now runs %q, this decay schedule %q: give each decay schedule its own --name", opts.Name,
				strings.Join(argv, " "), strings.Join(want, " ")))
		}
		o := base
		o.At = f.Now()
		o.Tick = tick.UTC().Format(time.RFC3339Nano)
		res, err := decay.Run(ctx, pool, o)
		code, _ := cmdutil.ExitCodeFor(ctx, err)
		var held *db.ErrLockHeld
		switch {
		case errors.As(err, &held):
			l.Info(fmt.Sprintf("skipped: held by %s", held.Holder), "tick", o.Tick)
		case err != nil:
			l.Error("decay run failed; the next tick tries again", "tick", o.Tick, "err", err)
		default:
			l.Info("decay run finished", "run_id", res.RunID, "tick", o.Tick, "mode", res.Mode, "memories", res.Memories,
				"layers", res.Layers, "forgotten", res.Forgotten, "chunks", res.Chunks, "seconds", res.Seconds)
		}
		var out any
		if res != nil {
			out = res
		}
		return schedule.JobResult(int(code), out, err)
	}
	l.Info("decay schedule started", "schedule", opts.Name, "cron", opts.Cron, "timezone", opts.Timezone)
	err = schedule.Local{Pool: pool, Name: opts.Name, Run: run, RunNow: opts.RunNow, ShutdownTimeout: opts.ShutdownTimeout,
		Now: f.Now, Log: l}.Serve(ctx)
	stopped(context.WithoutCancel(ctx), pool, opts.Name, l)
	return err
}

// stopped says that the stored schedule outlives this process: a trial
// decay schedule would otherwise leave an active schedule that any later
// helix worker on the database fires, unnoticed.
func stopped(ctx context.Context, pool *pgxpool.Pool, name string, l *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	state := "stored"
	if s, err := schedule.Get(ctx, pool, name); err == nil {
		state = s.State
	} else if errors.Is(err, schedule.ErrNotFound) {
		l.Info("decay schedule stopped", "schedule", name)
		return
	}
	l.Info("decay schedule stopped; schedule "+name+" stays "+state+" in the database and any helix worker on it fires it"+
		": remove it with helix schedule remove "+name+" --yes (or pause it with helix schedule pause "+name+")",
		"schedule", name, "state", state)
}

// store opens the database and stores the schedule, trying again while the
// database is unavailable (a service started before its database must not
// exit: systemd would give up restarting it). It returns a nil pool when ctx
// ends first.
func store(ctx context.Context, opts *ScheduleOptions) (*pgxpool.Pool, error) {
	f := opts.F
	l := f.Logger()
	for wait := time.Second; ; wait = min(2*wait, 30*time.Second) {
		pool, err := f.DB(ctx)
		if err == nil {
			var s *schedule.Schedule
			var did string
			if s, did, err = schedule.Put(ctx, pool, opts.spec, f.Now()); err == nil {
				next := "-"
				if s.NextTick != nil {
					next = s.NextTick.UTC().Format(time.RFC3339)
				}
				l.Info("schedule "+did, "schedule", s.Name, "state", s.State, "next", next, "job", strings.Join(s.Job, " "))
				if s.State != "active" {
					reason := "helix schedule resume " + s.Name + " starts it"
					if s.DisabledReason != nil {
						reason = *s.DisabledReason + "; " + reason
					}
					l.Warn("the schedule is "+s.State+": no ticks fire until it is resumed", "schedule", s.Name, "reason", reason)
				}
				return pool, nil
			}
		}
		if ctx.Err() != nil {
			return nil, nil
		}
		if !db.IsUnavailable(err) && cmdutil.Code(err) != cmdutil.ExitUnavailable {
			return nil, err
		}
		l.Error("decay schedule: cannot store the schedule yet; trying again", "err", err, "in", wait.String())
		select {
		case <-ctx.Done():
			return nil, nil
		case <-time.After(wait):
		}
	}
}
