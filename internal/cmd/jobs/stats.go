package jobs

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/queuestats"
	"github.com/helixhq/helix/internal/tableprinter"
)

// StatsOptions are the inputs of `jobs stats`.
type StatsOptions struct {
	F       *cmdutil.Factory
	ExactTo int
}

// NewCmdStats builds `jobs stats`.
func NewCmdStats(f *cmdutil.Factory, runF func(*StatsOptions) error) *cobra.Command {
	opts := &StatsOptions{F: f}
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Count jobs by state, queue and kind, and how long the oldest available job of each queue has waited",
		Long: `Count the jobs in river_job by state, queue and kind, and show the age of
the oldest available job of every queue that has available jobs (served by
a worker or not): the figures helix worker --listen exports to Prometheus
(helix_queue_jobs, helix_queue_oldest_available_age_seconds). Then the
available jobs of each queue by priority (1 is fetched first: one user's
jobs; 3: --all-users batches), each counted up to --exact-up-to.

Fast on millions of jobs, through helix's index on river_job (state,
queue, kind, id): a group (state, queue, kind) of a live state holding up
to --exact-up-to jobs is counted exactly, and so is a group of a finished
state (completed, cancelled, discarded) holding up to 500 (or up to
--exact-up-to when it is above 20000); a larger group is estimated from
index probes along its ids and marked "~" (estimated: true in JSON). The
table is never read through.

EXAMPLES
  helix jobs stats
  helix jobs stats -o json | jq '.counts[] | select(.state == "available")'

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.ExactTo < 1 || opts.ExactTo > 10_000_000 {
				return cmdutil.FlagErrorf("invalid --exact-up-to %d: want 1 to 10000000", opts.ExactTo)
			}
			if runF != nil {
				return runF(opts)
			}
			return statsRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.ExactTo, "exact-up-to", queuestats.DefaultCap, "count a group (state, queue, kind) exactly up to this many jobs; estimate beyond")
	return cmd
}

// Stats is `jobs stats -o json`.
type Stats struct {
	At     time.Time           `json:"at"`
	States []StateCount        `json:"states"`
	Counts []queuestats.Count  `json:"counts"`
	Oldest []queuestats.Oldest `json:"oldest_available"`
	// Waiting are the available jobs by queue and priority (1 first).
	Waiting   []queuestats.Waiting `json:"waiting_by_priority"`
	TableRows int64                `json:"table_rows"`
}

// StateCount is the jobs of one state, all kinds.
type StateCount struct {
	State     string `json:"state"`
	Jobs      int64  `json:"jobs"`
	Estimated bool   `json:"estimated"`
}

func statsRun(ctx context.Context, opts *StatsOptions) error {
	f := opts.F
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	fig, err := queuestats.Read(ctx, pool, queue.Queues, opts.ExactTo)
	if err != nil {
		return err
	}
	waiting, err := queuestats.ReadWaiting(ctx, pool, queue.Queues, opts.ExactTo)
	if err != nil {
		return err
	}
	if f.Global.JSON() {
		jobs, est := fig.ByState()
		out := Stats{At: fig.At, States: []StateCount{}, Counts: fig.Counts, Oldest: fig.Oldest, Waiting: waiting, TableRows: fig.TableRows}
		for _, s := range queuestats.States {
			out.States = append(out.States, StateCount{State: s, Jobs: jobs[s], Estimated: est[s]})
		}
		return cmdutil.WriteJSON(f.IOStreams.Out, out)
	}
	tp := tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
	tp.Header("STATE", "QUEUE", "KIND", "JOBS")
	for _, c := range fig.Counts {
		n := strconv.FormatInt(c.Jobs, 10)
		if c.Estimated {
			n = "~" + n
		}
		tp.Row(c.State, c.Queue, c.Kind, n)
	}
	if len(fig.Counts) == 0 {
		cmdutil.Fprintf(f.IOStreams.ErrOut, "no jobs\n")
	} else if err := tp.Render(); err != nil {
		return err
	}
	if len(fig.Oldest) == 0 {
		return nil
	}
	fmt.Fprintln(f.IOStreams.Out)
	tp = tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
	tp.Header("QUEUE", "OLDEST AVAILABLE", "WAITING")
	for _, o := range fig.Oldest {
		tp.Row(o.Queue, cmdutil.FormatTime(o.ScheduledAt), fmt.Sprintf("%.0fs", o.AgeSeconds))
	}
	if err := tp.Render(); err != nil {
		return err
	}
	if len(waiting) == 0 {
		return nil
	}
	fmt.Fprintln(f.IOStreams.Out)
	tp = tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
	tp.Header("QUEUE", "PRIORITY", "AVAILABLE")
	for _, w := range waiting {
		n := strconv.FormatInt(w.Jobs, 10)
		if w.AtLeast {
			n = ">=" + n
		}
		tp.Row(w.Queue, strconv.Itoa(w.Priority), n)
	}
	return tp.Render()
}
