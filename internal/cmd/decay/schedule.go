package decay

import (
	"context"
	"errors"
	"fmt"
	"time"
	_ "time/tzdata" // --timezone works in a static binary on a host without zoneinfo

	"github.com/robfig/cron/v3"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/decay"
	"github.com/helixhq/helix/internal/iostreams"
)

// ScheduleOptions are the inputs of `decay schedule`.
type ScheduleOptions struct {
	IO *iostreams.IOStreams
	F  *cmdutil.Factory
	jobFlags
	Cron            string
	RunNow          bool
	Jitter          time.Duration
	Timezone        string
	ShutdownTimeout time.Duration

	schedule cron.Schedule
	location *time.Location
}

// NewCmdSchedule runs `decay run` on a cron schedule until stopped.
func NewCmdSchedule(f *cmdutil.Factory, runF func(*ScheduleOptions) error) *cobra.Command {
	opts := &ScheduleOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "schedule --cron SPEC",
		Short: "Run decay on a cron schedule, as a long-running service",
		Long: `Run decay on a cron schedule until SIGINT/SIGTERM. SPEC is a standard 5-field
cron spec, optionally with a leading seconds field ("*/30 * * * * *"), or a
descriptor (@hourly, @daily, @every 15m); it is read in --timezone (default
UTC) unless it starts with CRON_TZ=Zone.

A tick that comes while a run is still going is skipped and logged; a panic
or a failed run (say, the database is down) is logged and the next tick tries
again. Several schedulers may point at one database: each run takes the decay
advisory lock, the loser logs "skipped: held by <host>", and a tick that
another scheduler already ran is not run again. --jitter waits a random delay
up to D before each run. On SIGTERM the run in flight finishes (or, after
--shutdown-timeout, is cancelled and its current chunk rolled back, to be
resumed by the next run) and the service exits 0.

In a --timezone with daylight saving, a time that does not exist on the
spring-forward day is skipped and one that occurs twice on the fall-back day
runs twice; retention is computed from each item's last access, so neither
causes drift. Schedule at a time outside 01:00-03:00, or in UTC, to avoid both.

EXAMPLES
  helix decay schedule --cron "0 * * * *" --run-now --jitter 30s
  helix decay schedule --cron @hourly --timezone Europe/Berlin
  helix decay schedule --cron "*/30 * * * * *" --forget-below 0.05

` + cmdutil.ExitStatusHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Not MarkFlagRequired: cobra would reject a spec that comes from
			// HELIX_DECAY_SCHEDULE_CRON or the config file.
			if opts.Cron == "" {
				return cmdutil.FlagErrorf("a schedule is required: --cron SPEC (or HELIX_DECAY_SCHEDULE_CRON, or decay.schedule.cron in the config file)")
			}
			loc, err := time.LoadLocation(opts.Timezone)
			if err != nil {
				return cmdutil.FlagErrorf("invalid --timezone %q: use an IANA zone such as UTC or Europe/Berlin", opts.Timezone)
			}
			opts.location = loc
			if opts.schedule, err = decay.ParseSpec(opts.Cron, loc); err != nil {
				return cmdutil.FlagErrorf("invalid --cron %q: %v", opts.Cron, err)
			}
			if opts.Jitter < 0 || opts.ShutdownTimeout < 0 {
				return cmdutil.FlagErrorf("--jitter and --shutdown-timeout must not be negative")
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return scheduleRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Cron, "cron", "", "cron spec: 5 fields, 6 with seconds, or @hourly / @every 15m")
	fl.BoolVar(&opts.RunNow, "run-now", false, "run once at start, then on the schedule")
	fl.DurationVar(&opts.Jitter, "jitter", 0, "wait a random delay up to this before each run")
	fl.StringVar(&opts.Timezone, "timezone", "UTC", "IANA time zone the spec is read in")
	_ = cmd.RegisterFlagCompletionFunc("timezone", cmdutil.CompleteTimezone)
	fl.DurationVar(&opts.ShutdownTimeout, "shutdown-timeout", 5*time.Minute, "on SIGTERM, how long the run in flight may finish before it is cancelled")
	opts.add(cmd)
	return cmd
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
	job := func(ctx context.Context, tick time.Time) error {
		pool, err := f.DB(ctx)
		if err != nil {
			return err
		}
		o := base
		o.At = f.Now()
		if !tick.IsZero() {
			o.Tick = tick.UTC().Format(time.RFC3339)
		}
		res, err := decay.Run(ctx, pool, o)
		var held *db.ErrLockHeld
		switch {
		case errors.As(err, &held):
			l.Info(fmt.Sprintf("skipped: held by %s", held.Holder), "tick", o.Tick)
			return nil
		case errors.Is(err, decay.ErrTickDone):
			l.Info("skipped: tick already ran", "tick", o.Tick)
			return nil
		case err != nil:
			return err
		}
		l.Info("decay run finished", "run_id", res.RunID, "tick", o.Tick, "memories", res.Memories, "layers", res.Layers,
			"forgotten", res.Forgotten, "chunks", res.Chunks, "seconds", res.Seconds)
		return nil
	}
	return decay.Serve(ctx, decay.ScheduleOptions{
		Schedule: opts.schedule, Location: opts.location, RunNow: opts.RunNow, Jitter: opts.Jitter,
		ShutdownTimeout: opts.ShutdownTimeout, Job: job, Log: l,
	})
}
