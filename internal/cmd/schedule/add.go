package schedule

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/schedule"
)

// AddOptions are the inputs of `schedule add`.
type AddOptions struct {
	F    *cmdutil.Factory
	Tree JobTree

	Name        string
	Cron        string
	Timezone    string
	Jitter      time.Duration
	CatchUp     string
	MaxFailures int
	Notify      string
	Job         []string // the job's command line
	JobPath     string   // the job's command ("decay run"), once resolved
	OnceAt      string   // RFC 3339: fire once, then completed
	UserID      cmdutil.UserID
}

// NewCmdAdd builds `schedule add`.
func NewCmdAdd(f *cmdutil.Factory, tree JobTree, runF func(*AddOptions) error) *cobra.Command {
	opts := &AddOptions{F: f, Tree: tree}
	cmd := &cobra.Command{
		Use:   "add NAME --cron SPEC [flags] -- JOB [ARGS...]",
		Short: "Store a schedule of a job's command line",
		Long: `Store a schedule: the job's command line after -- runs at every instant of
the cron spec, on one of the helix worker processes. The job line is checked
now against helix's commands (an unknown job, flag or argument is exit 2 and
nothing is stored); checks a job makes only when it runs show in the
schedule's first fire.

SPEC is read by robfig/cron/v3's parser, as decay schedule reads it: a
standard 5-field spec, 6 fields with a leading seconds field ("*/10 * * * * *"),
or a descriptor (@hourly, @daily, @every 15m); in --timezone (default UTC)
unless it starts with CRON_TZ=Zone. Daylight saving behaves as with decay schedule: in a zone that
has it, a wall-clock time that does not exist on the spring-forward day is
skipped, and one that occurs twice on the fall-back day fires twice (two
instants, two ticks). Schedule outside 01:00-03:00, or in UTC, to avoid both.
@every counts from the instant the schedule was added.

A tick is on time when a worker fires it within the worker's
--schedule-grace (default 1m, never more than the spec's period, never less
than 5s). Ticks that passed while no worker ran (or while the schedule was
paused or disabled) are missed: --catch-up none skips them, --catch-up once
runs the latest of them once, late (systemd's Persistent=).

--jitter delays each fire by a random time up to D. --max-failures N
disables the schedule after N failed fires in a row (0: never); list and
show say why, and resume enables it again.

--notify POLICY tells the webhooks of notify.webhook-url (README,
Notifications) of this schedule's fires: on-failure (default: a failed fire,
one schedule_disabled event when it disables the schedule), always (every
finished fire too) or never.

--once-at INSTANT (RFC 3339, instead of --cron) fires once at that instant
(late, once, if no worker ran then: its catch-up is once unless --catch-up
none), then the schedule is completed (list and show say so).

--user-id U stores the schedule as that user's own: its job line must act for
that user only (--user-id U in the job, never --all-users, checked now and
again at every fire), the user may have at most schedule.max-per-user
schedules (default 20) and two fires no closer than schedule.min-interval
(default 5m); beyond either, exit 2 naming the setting. Names are per owner.

EXAMPLES
  helix schedule add nightly-synthesis --cron "0 2 * * *" --timezone Europe/Berlin --catch-up once -- synthesize --all-users
  helix schedule add hourly-decay --cron @hourly --jitter 30s -- decay run --forget-below 0.05
  helix schedule add catalog-verify --cron "15 6 * * 1" --max-failures 0 -- catalog verify
  helix schedule add nightly-embed --cron "0 3 * * *" --notify always -- embed --all-users
  helix schedule add sync-reconcile --cron "@every 1m" -- sync reconcile
  helix schedule add my-summary --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b --cron "0 7 * * *" -- skill exec summary --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b
  helix schedule add friday-reminder --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b --once-at 2026-12-24T09:00:00+01:00 -- skill exec remind --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b

` + cmdutil.ExitStatusDB,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The name comes before --, the job after it: a job's own flags
			// must never be read as schedule add's.
			if cmd.ArgsLenAtDash() != 1 {
				return cmdutil.FlagErrorf("usage: helix schedule add NAME --cron SPEC -- JOB [ARGS...] (the job goes after --)")
			}
			opts.Name, opts.Job = args[0], args[1:]
			if opts.OnceAt != "" {
				at, err := time.Parse(time.RFC3339, opts.OnceAt)
				if err != nil {
					return cmdutil.FlagErrorf("invalid --once-at %q: use RFC 3339, e.g. 2026-12-24T09:00:00+01:00", opts.OnceAt)
				}
				opts.Cron = schedule.OnceSpec(at)
				if !cmd.Flags().Changed("catch-up") {
					opts.CatchUp = schedule.CatchUpOnce
				}
			}
			if opts.Cron == "" {
				return cmdutil.FlagErrorf("a schedule needs --cron SPEC or --once-at INSTANT")
			}
			if _, err := opts.spec().Validate(); err != nil {
				return &cmdutil.FlagError{Err: err}
			}
			path, err := ValidateJob(opts.Tree(), opts.Job)
			if err != nil {
				return err
			}
			opts.JobPath = path
			if runF != nil {
				return runF(opts)
			}
			return addRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Cron, "cron", "", "cron spec: 5 fields, 6 with seconds, or @hourly / @every 15m")
	fl.StringVar(&opts.Timezone, "timezone", "UTC", "IANA time zone the spec is read in")
	fl.DurationVar(&opts.Jitter, "jitter", 0, "delay each fire by a random time up to this")
	fl.StringVar(&opts.CatchUp, "catch-up", schedule.CatchUpNone, "ticks missed while no worker ran: none (skip) or once (run the latest once)")
	fl.IntVar(&opts.MaxFailures, "max-failures", 5, "disable the schedule after this many failed fires in a row (0: never)")
	fl.StringVar(&opts.Notify, "notify", "on-failure", "tell notify.webhook-url of this schedule's fires: always, on-failure (failed fires and the schedule disabling itself) or never")
	fl.StringVar(&opts.OnceAt, "once-at", "", "fire once at this RFC 3339 instant, then the schedule is completed (instead of --cron)")
	cmd.MarkFlagsMutuallyExclusive("cron", "once-at")
	cmdutil.UserIDVar(fl, &opts.UserID, "store the schedule as this user's own (UUID); its job must act for this user only")
	return cmd
}

func (o *AddOptions) spec() schedule.Spec {
	return schedule.Spec{Name: o.Name, Cron: o.Cron, Timezone: o.Timezone, Jitter: o.Jitter, CatchUp: o.CatchUp,
		MaxFailures: o.MaxFailures, Argv: o.Job, Notify: o.Notify}
}

func addRun(ctx context.Context, opts *AddOptions) error {
	f := opts.F
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	lim, err := scheduleLimits(f)
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
		return err
	}
	s, err := schedule.For(opts.UserID.Owner()).Add(ctx, pool, opts.spec(), f.Now(), lim)
	if errors.Is(err, schedule.ErrExists) {
		return cmdutil.InputError(err)
	}
	if err != nil {
		return err
	}
	return printSchedule(f, s)
}

// scheduleLimits reads schedule.max-per-user and schedule.min-interval.
func scheduleLimits(f *cmdutil.Factory) (schedule.Limits, error) {
	lim := schedule.DefaultLimits
	cfg, err := f.Config()
	if err != nil {
		return lim, cmdutil.InputError(err)
	}
	if cfg.IsSet("schedule.max-per-user") {
		n, err := strconv.Atoi(strings.TrimSpace(cfg.String("schedule.max-per-user")))
		if err != nil || n < 0 {
			return lim, cmdutil.InputError(fmt.Errorf("invalid schedule.max-per-user %q (%s): use a whole number", cfg.String("schedule.max-per-user"), cfg.Source("schedule.max-per-user")))
		}
		lim.MaxPerUser = n
	}
	if cfg.IsSet("schedule.min-interval") {
		d, err := time.ParseDuration(strings.TrimSpace(cfg.String("schedule.min-interval")))
		if err != nil || d < 0 {
			return lim, cmdutil.InputError(fmt.Errorf("invalid schedule.min-interval %q (%s): use a duration such as 5m", cfg.String("schedule.min-interval"), cfg.Source("schedule.min-interval")))
		}
		lim.MinInterval = d
	}
	return lim, nil
}
