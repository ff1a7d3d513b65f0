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
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/schedule"
	"github.com/helixhq/helix/internal/tableprinter"
)

// ownerFlag adds --user-id and returns a func that checks the user and
// gives the schedules as they see them.
func ownerFlag(cmd *cobra.Command) func(ctx context.Context, q db.Querier) (schedule.Owned, error) {
	var uid cmdutil.UserID
	cmdutil.OwnerVar(cmd.Flags(), &uid)
	return func(ctx context.Context, q db.Querier) (schedule.Owned, error) {
		if err := cmdutil.CheckOwner(ctx, q, uid.Owner()); err != nil {
			return schedule.Owned{}, err
		}
		return schedule.For(uid.Owner()), nil
	}
}

// notFound makes an unknown schedule name bad input (exit 2).
func notFound(err error) error {
	if errors.Is(err, schedule.ErrNotFound) {
		return cmdutil.InputError(err)
	}
	return err
}

func newCmdList(f *cmdutil.Factory) *cobra.Command {
	var owned func(context.Context, db.Querier) (schedule.Owned, error)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List schedules: state, next and last tick, failures, and why one is disabled",
		Long: `List every schedule by name: its state (active, paused, or disabled after too
many failed fires, with the reason), spec, next and last tick, failures in a
row and job. Off a terminal, one tab-separated row per schedule.

EXAMPLES
  helix schedule list
  helix schedule list -o json | jq '.schedules[] | select(.state == "disabled")'
  helix schedule list --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b

With --user-id: that user's own schedules and the shared ones (OWNER says
whose); without it, the shared ones only. A one-shot schedule (--once-at)
that fired is completed.

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pool, err := f.DB(cmd.Context())
			if err != nil {
				return err
			}
			w, err := owned(cmd.Context(), pool)
			if err != nil {
				return err
			}
			ss, err := w.List(cmd.Context(), pool)
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
			// OWNER only in a user's view: without --user-id every row is shared
			forUser := cmd.Flags().Changed("user-id")
			header := []string{"NAME", "STATE", "CRON", "TIMEZONE", "NEXT", "LAST", "FAILURES", "JOB", "REASON"}
			if forUser {
				header = append(header, "OWNER")
			}
			tp.Header(header...)
			for _, s := range ss {
				row := []string{s.Name, s.State, s.Cron, s.Timezone, fmtTime(s.NextTick), fmtTime(s.LastTick),
					failures(s), jobLine(s.Job), deref(s.DisabledReason)}
				if forUser {
					row = append(row, owner.FromPtr(s.Owner).String())
				}
				tp.Row(row...)
			}
			return tp.Render()
		},
	}
	owned = ownerFlag(cmd)
	return cmd
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
	fmt.Fprintf(out, "owner:\t%s\n", owner.FromPtr(s.Owner))
	return nil
}

func newCmdShow(f *cmdutil.Factory) *cobra.Command {
	var owned func(context.Context, db.Querier) (schedule.Owned, error)
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show one schedule",
		Long:  "Show one schedule: spec, time zone, job, next and last tick, failures in a row, and\nwhy it is disabled if it is.\n\nEXAMPLES\n  helix schedule show nightly-synthesis\n  helix schedule show nightly-synthesis -o json\n\n" + cmdutil.ExitStatusDB,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pool, err := f.DB(cmd.Context())
			if err != nil {
				return err
			}
			w, err := owned(cmd.Context(), pool)
			if err != nil {
				return err
			}
			s, err := w.Get(cmd.Context(), pool, args[0])
			if err != nil {
				return notFound(err)
			}
			return printSchedule(f, s)
		},
	}
	owned = ownerFlag(cmd)
	return cmd
}

func newCmdPause(f *cmdutil.Factory, pause bool) *cobra.Command {
	verb, short, long := "pause", "Stop a schedule's ticks until resume",
		"Stop a schedule's ticks until helix schedule resume. Fires already queued\nare skipped; run-now still fires it."
	if !pause {
		verb, short, long = "resume", "Restart a paused or disabled schedule, clearing its failures",
			"Restart a paused or auto-disabled schedule and reset its failures in a row.\nTicks that passed meanwhile count as missed: with --catch-up once the latest\nof them runs now, with none they are skipped."
	}
	var owned func(context.Context, db.Querier) (schedule.Owned, error)
	cmd := &cobra.Command{
		Use:   verb + " NAME",
		Short: short,
		Long:  long + "\n\nEXAMPLES\n  helix schedule " + verb + " nightly-synthesis\n\n" + cmdutil.ExitStatusDB,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pool, err := f.DB(cmd.Context())
			if err != nil {
				return err
			}
			w, err := owned(cmd.Context(), pool)
			if err != nil {
				return err
			}
			op := w.Resume
			if pause {
				op = w.Pause
			}
			s, err := op(cmd.Context(), pool, args[0])
			if err != nil {
				return notFound(err)
			}
			return printSchedule(f, s)
		},
	}
	owned = ownerFlag(cmd)
	return cmd
}

func newCmdRemove(f *cmdutil.Factory) *cobra.Command {
	var yes bool
	var owned func(context.Context, db.Querier) (schedule.Owned, error)
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
			w, err := owned(cmd.Context(), pool)
			if err != nil {
				return err
			}
			n, err := w.Remove(cmd.Context(), pool, args[0])
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
	owned = ownerFlag(cmd)
	return cmd
}

func newCmdRunNow(f *cmdutil.Factory) *cobra.Command {
	var uid cmdutil.UserID
	cmd := &cobra.Command{
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
			if err := cmdutil.CheckOwner(ctx, pool, uid.Owner()); err != nil {
				return err
			}
			fire, err := schedule.RunNowFor(ctx, pool, c, args[0], uid.Owner(), f.Now())
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
	cmdutil.UserIDVar(cmd.Flags(), &uid, "fire this user's own schedule (UUID); without it, a shared one")
	return cmd
}

func deref64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func newCmdHistory(f *cmdutil.Factory) *cobra.Command {
	var limit int
	var owned func(context.Context, db.Querier) (schedule.Owned, error)
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
			w, err := owned(cmd.Context(), pool)
			if err != nil {
				return err
			}
			fires, err := w.History(cmd.Context(), pool, args[0], limit)
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
	owned = ownerFlag(cmd)
	return cmd
}
