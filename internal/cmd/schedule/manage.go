package schedule

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/schedule"
	"github.com/helixhq/helix/internal/tableprinter"
)

// notFound makes an unknown schedule name bad input (exit 2).
func notFound(err error) error {
	if errors.Is(err, schedule.ErrNotFound) {
		return cmdutil.InputError(err)
	}
	return err
}

func newCmdList(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List schedules: state, next and last tick, failures, and why one is disabled",
		Long: `List every schedule by name: its state (active, paused, or disabled after too
many failed fires, with the reason), spec, next and last tick, failures in a
row and job. Off a terminal, one tab-separated row per schedule.

EXAMPLES
  helix schedule list
  helix schedule list -o json | jq '.schedules[] | select(.state == "disabled")'

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pool, err := f.DB(cmd.Context())
			if err != nil {
				return err
			}
			ss, err := schedule.List(cmd.Context(), pool)
			if err != nil {
				return err
			}
			if f.Global.JSON() {
				if ss == nil {
					ss = []*schedule.Schedule{}
				}
				return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"schedules": ss})
			}
			if len(ss) == 0 {
				cmdutil.Fprintf(f.IOStreams.ErrOut, "no schedules (helix schedule add NAME --cron SPEC -- JOB)\n")
				return nil
			}
			tp := tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
			tp.Header("NAME", "STATE", "CRON", "TIMEZONE", "NEXT", "LAST", "FAILURES", "JOB", "REASON")
			for _, s := range ss {
				tp.Row(s.Name, s.State, s.Cron, s.Timezone, fmtTime(s.NextTick), fmtTime(s.LastTick),
					failures(s), jobLine(s.Job), deref(s.DisabledReason))
			}
			return tp.Render()
		},
	}
}

// failures is "failed fires in a row/the limit"; "-" for no limit.
func failures(s *schedule.Schedule) string {
	if s.MaxFailures == 0 {
		return fmt.Sprintf("%d/-", s.ConsecutiveFailures)
	}
	return fmt.Sprintf("%d/%d", s.ConsecutiveFailures, s.MaxFailures)
}

// failuresInARow is "2 of 5" (the limit that disables it), or "0 (no limit)", not "0 of 0".
func failuresInARow(s *schedule.Schedule) string {
	if s.MaxFailures == 0 {
		return fmt.Sprintf("%d (no limit)", s.ConsecutiveFailures)
	}
	return fmt.Sprintf("%d of %d", s.ConsecutiveFailures, s.MaxFailures)
}

func fmtTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return cmdutil.FormatTime(*t)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func printSchedule(f *cmdutil.Factory, s *schedule.Schedule) error {
	if f.Global.JSON() {
		return cmdutil.WriteJSON(f.IOStreams.Out, s)
	}
	out := f.IOStreams.Out
	fmt.Fprintf(out, "name:\t%s\nstate:\t%s\ncron:\t%s\ntimezone:\t%s\njitter:\t%s\ncatch-up:\t%s\njob:\t%s\nnext tick:\t%s\nlast tick:\t%s\nfailures in a row:\t%s\n",
		s.Name, s.State, s.Cron, s.Timezone, s.Jitter, s.CatchUp, jobLine(s.Job), fmtTime(s.NextTick), fmtTime(s.LastTick),
		failuresInARow(s))
	if s.DisabledReason != nil {
		fmt.Fprintf(out, "disabled:\t%s (%s)\n", *s.DisabledReason, fmtTime(s.DisabledAt))
	}
	return nil
}

func newCmdShow(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME",
		Short: "Show one schedule",
		Long:  "Show one schedule: spec, time zone, job, next and last tick, failures in a row, and\nwhy it is disabled if it is.\n\nEXAMPLES\n  helix schedule show nightly-synthesis\n  helix schedule show nightly-synthesis -o json\n\n" + cmdutil.ExitStatusDB,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pool, err := f.DB(cmd.Context())
			if err != nil {
				return err
			}
			s, err := schedule.Get(cmd.Context(), pool, args[0])
			if err != nil {
				return notFound(err)
			}
			return printSchedule(f, s)
		},
	}
}

func newCmdPause(f *cmdutil.Factory, pause bool) *cobra.Command {
	verb, short, long := "pause", "Stop a schedule's ticks until resume",
		"Stop a schedule's ticks until helix schedule resume. Fires already queued\nare skipped; run-now still fires it."
	if !pause {
		verb, short, long = "resume", "Restart a paused or disabled schedule, clearing its failures",
			"Restart a paused or auto-disabled schedule and reset its failures in a row.\nTicks that passed meanwhile count as missed: with --catch-up once the latest\nof them runs now, with none they are skipped."
	}
	return &cobra.Command{
		Use:   verb + " NAME",
		Short: short,
		Long:  long + "\n\nEXAMPLES\n  helix schedule " + verb + " nightly-synthesis\n\n" + cmdutil.ExitStatusDB,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pool, err := f.DB(cmd.Context())
			if err != nil {
				return err
			}
			op := schedule.Resume
			if pause {
				op = schedule.Pause
			}
			s, err := op(cmd.Context(), pool, args[0])
			if err != nil {
				return notFound(err)
			}
			return printSchedule(f, s)
		},
	}
}

func newCmdRemove(f *cmdutil.Factory) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "remove NAME --yes",
		Short: "Delete a schedule and its history",
		Long: `Delete a schedule and its history of fires. Fires already queued are dropped
when a worker takes them; a fire running finishes. Needs --yes.

EXAMPLES
  helix schedule remove catalog-verify --yes

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.Confirm(f.IOStreams, f.Global.JSON(), yes, "removing schedule "+args[0]+" deletes its history"); err != nil {
				return err
			}
			pool, err := f.DB(cmd.Context())
			if err != nil {
				return err
			}
			n, err := schedule.Remove(cmd.Context(), pool, args[0])
			if err != nil {
				return notFound(err)
			}
			if f.Global.JSON() {
				return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"removed": args[0], "fires": n})
			}
			_, err = fmt.Fprintf(f.IOStreams.Out, "removed schedule %s and its %d fires\n", args[0], n)
			return err
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm the removal")
	return cmd
}

func newCmdRunNow(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "run-now NAME",
		Short: "Fire a schedule once now, paused or disabled too",
		Long: `Enqueue one fire of the schedule now (its tick is this instant), whether it is
active, paused or disabled; a worker runs it like any other fire and it shows
in history. Its outcome counts towards --max-failures like any fire's.

EXAMPLES
  helix schedule run-now hourly-decay
  helix schedule run-now hourly-decay -o json | jq .id

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			pool, err := f.DB(ctx)
			if err != nil {
				return err
			}
			c, err := queue.NewInsertClient(pool)
			if err != nil {
				return err
			}
			fire, err := schedule.RunNow(ctx, pool, c, args[0], f.Now())
			if err != nil {
				return notFound(err)
			}
			if f.Global.JSON() {
				return cmdutil.WriteJSON(f.IOStreams.Out, fire)
			}
			_, err = fmt.Fprintf(f.IOStreams.Out, "fire %d of %s enqueued as job %d: a worker runs it (helix schedule history %s)\n",
				fire.ID, fire.Schedule, deref64(fire.JobID), fire.Schedule)
			return err
		},
	}
}

func deref64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func newCmdHistory(f *cmdutil.Factory) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "history NAME",
		Short: "List a schedule's fires, newest first",
		Long: `List a schedule's fires, newest first: tick, kind (tick, catch_up, run_now),
status (pending, running, ok, failed, partial, skipped, interrupted), the
job's duration, exit status and River job, its counts and error.

EXAMPLES
  helix schedule history nightly-synthesis --limit 7
  helix schedule history hourly-decay -o json | jq '.fires[] | select(.status != "ok")'

` + cmdutil.ExitStatusDB,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 || limit > 10000 {
				return cmdutil.FlagErrorf("invalid --limit %d: want 1 to 10000", limit)
			}
			pool, err := f.DB(cmd.Context())
			if err != nil {
				return err
			}
			fires, err := schedule.History(cmd.Context(), pool, args[0], limit)
			if err != nil {
				return notFound(err)
			}
			if f.Global.JSON() {
				if fires == nil {
					fires = []*schedule.Fire{}
				}
				return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"fires": fires})
			}
			if len(fires) == 0 {
				cmdutil.Fprintf(f.IOStreams.ErrOut, "no fires of %s yet\n", args[0])
				return nil
			}
			tp := tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
			tp.Header("TICK", "KIND", "STATUS", "DURATION", "EXIT", "JOB", "COUNTS", "ERROR")
			for _, x := range fires {
				dur, exit := "-", "-"
				if x.DurationMS != nil {
					dur = (time.Duration(*x.DurationMS) * time.Millisecond).String()
				}
				if x.ExitCode != nil {
					exit = strconv.Itoa(*x.ExitCode)
				}
				job := "-"
				if x.JobID != nil {
					job = strconv.FormatInt(*x.JobID, 10)
				}
				counts := strings.TrimSpace(string(x.Counts))
				if counts == "" {
					counts = "-"
				}
				tp.Row(x.Tick.UTC().Format(time.RFC3339Nano), x.Kind, x.Status, dur, exit, job, counts, deref(x.Error))
			}
			return tp.Render()
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 50, "at most this many fires")
	return cmd
}
