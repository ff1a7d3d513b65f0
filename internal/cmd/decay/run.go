package decay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/decay"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/progress"
	"github.com/helixhq/helix/internal/queue"
)

// RunOptions are the inputs of `decay run`.
type RunOptions struct {
	IO *iostreams.IOStreams
	F  *cmdutil.Factory
	jobFlags
	At       string
	Full     bool
	Enqueue  bool
	DryRun   bool
	Priority int
	atTime   time.Time
}

// NewCmdRun computes retention once.
func NewCmdRun(f *cmdutil.Factory, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Compute and store retention of every memory and layer, once",
		Long: `Compute how much of every memory and psychology layer is retained at an
instant (now, or --at) and write it back: retention, stability and
difficulty (a memory accessed since the last run counts as one FSRS-6 review
rated Good, as ts-fsrs computes it: same-day stability on the previous
review's UTC day, stability capped at 36,500 days, difficulty's mean
reversion; weights from decay.memory-weights), and the forgotten flag: set
on items whose retention is below --forget-below, cleared on the others
(items are flagged, never deleted). The flag is each run's verdict: a run
without --forget-below clears every flag, so a "what if" run with a high
threshold leaves nothing behind once the usual run comes; to ask "what if"
without writing anything, use --dry-run.

Retention depends only on the time since each item was last accessed and its
stability, never on when the job last ran: running hourly, daily or twice in a
row gives the same values at the same instant.

After one complete run over all users, a run is incremental: it recomputes
only rows that are new, were accessed (memories) or updated (layers) since
their state was computed, or are due to cross --forget-below (each row stores
that instant in forget_at). Readers get current retention from the SQL
function helix_retention(row) rather than the stored retention column, which
holds the value as of decayed_at. --full recomputes every row; a run is also
full when the models or --forget-below changed, when --at is before the last
run, when it resumes an interrupted full run, and with --user-id.

The work is done in key-range chunks of --batch-size rows that each commit.
An interrupted run (SIGINT/SIGTERM: exit 130) leaves whole chunks only, and
the next run over the same scope resumes after the last committed one. One
run at a time per database: a run that finds another holding the decay lock
exits 5. Every run writes a job_runs row.

EXAMPLES
  helix decay run
  helix decay run --at 2026-11-01T12:00:00Z --forget-below 0.05
  helix decay run --full --forget-below 0.05
  helix decay run --user-id 6f1c2a4e-0b7d-4d8e-9a51-3c2f1e0d9b8a --output json
  helix decay run --dry-run --at 2027-01-01 --forget-below 0.5   # what if: nothing written
  helix decay run --enqueue --forget-below 0.05 && helix worker --queues decay --once

--enqueue queues one job per key range of --chunk-size rows for helix worker
and returns at once: a full run over the scope as of --at (default: now),
split across the workers (each range commits with its job). It takes no
decay lock and records no incremental state, so the next in-process run
after it is full.

--dry-run computes what a full run as of --at would write (memories and
layers updated, items below --forget-below, forgotten flags cleared) with one
read-only query per table, and writes nothing: no row, no flag, no job_runs
record, no lock.

` + cmdutil.ExitStatusLocked,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.At != "" {
				t, err := parseAt(opts.At)
				if err != nil {
					return err
				}
				opts.atTime = t
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if opts.DryRun && opts.Enqueue {
				return cmdutil.FlagErrorf("--dry-run and --enqueue cannot be combined: a dry run queues nothing")
			}
			if runF != nil {
				return runF(opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.At, "at", "", "compute retention as of this instant (RFC 3339 or YYYY-MM-DD; default now)")
	cmd.Flags().BoolVar(&opts.Full, "full", false, "recompute every row, not only new, accessed and due ones")
	cmd.Flags().BoolVar(&opts.Enqueue, "enqueue", false, "queue one job per id range (a full run) for helix worker and return at once")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "say what a full run would write, and write nothing")
	opts.add(cmd)
	shared.PriorityFlag(cmd, &opts.Priority)
	return cmd
}

func runRun(ctx context.Context, opts *RunOptions) error {
	f := opts.F
	cfg, err := f.Config()
	if err != nil {
		return cmdutil.InputError(err)
	}
	o, err := opts.options(cfg)
	if err != nil {
		return err
	}
	o.At, o.Full = opts.atTime, opts.Full
	if o.At.IsZero() {
		o.At = f.Now()
	}
	o.Log = f.Logger()
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	if opts.Enqueue {
		return enqueue(ctx, opts, pool, o)
	}
	if opts.DryRun {
		res, err := decay.DryRun(ctx, pool, o)
		if err != nil {
			return err
		}
		if f.Global.JSON() {
			return cmdutil.WriteJSON(opts.IO.Out, res)
		}
		_, err = fmt.Fprintln(opts.IO.Out, summary(res))
		return err
	}
	var bar *progress.Reporter
	o.OnStart = func(_ string, chunks int) {
		bar = progress.New(opts.IO.ErrOut, progress.ChooseMode(opts.IO.IsStderrTTY(), f.Global.JSON()), o.Log, "decay", chunks)
	}
	o.OnChunk = func(phase string, rows int64) { bar.Step(fmt.Sprintf("%s +%d", phase, rows), false) }
	res, err := decay.Run(ctx, pool, o)
	bar.Finish()
	if err != nil {
		return runError(err)
	}
	if f.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, res)
	}
	_, err = fmt.Fprintln(opts.IO.Out, summary(res))
	return err
}

// enqueue queues one decay job per id range of the scope; a range whose job
// is still pending or running is not queued twice.
func enqueue(ctx context.Context, opts *RunOptions, pool *pgxpool.Pool, o decay.Options) error {
	rs, err := decay.Ranges(ctx, pool, o)
	if err != nil {
		return err
	}
	// Ranges are of ids: a layer without one is in none of them.
	if n, names, err := decay.NoID(ctx, pool, o.UserID); err != nil {
		return err
	} else if n > 0 {
		o.Log.Warn(decay.NoIDWarning, "table", "psychology_layers", "count", n, "rows", strings.Join(names, "; "), "hint", decay.NoIDHint)
	}
	args := make([]queue.DecayArgs, len(rs))
	for i, r := range rs {
		args[i] = queue.DecayArgs{Range: r, UserID: o.UserID, At: o.At.UTC(), ForgetBelow: o.ForgetBelow, Memory: o.Memory, Layers: o.Layers}
	}
	res, err := queue.Insert(ctx, pool, args, queue.PriorityFor(o.UserID != "", opts.Priority))
	if err != nil {
		return err
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, res)
	}
	_, err = fmt.Fprintln(opts.IO.Out, res.Summary())
	return err
}

// runError maps a lock held elsewhere to exit 5 with the holder named.
func runError(err error) error {
	var held *db.ErrLockHeld
	if errors.As(err, &held) {
		return cmdutil.SkippedError(fmt.Errorf("skipped: held by %s", held.Holder))
	}
	return err
}

func summary(r *decay.Result) string {
	what := cmdutil.Count(r.Memories, "memory", "memories") + " and " + cmdutil.Count(r.Layers, "layer", "")
	s := fmt.Sprintf("decayed %s as of %s in %s", what, cmdutil.FormatTime(r.At), cmdutil.Count(r.Chunks, "chunk", ""))
	if r.DryRun {
		s = fmt.Sprintf("dry run, nothing written: a full run would decay %s as of %s", what, cmdutil.FormatTime(r.At))
	}
	switch {
	case r.Skipped > 0 && r.NoID == 0:
		s += fmt.Sprintf(", %d skipped (a memory type the platform no longer allows)", r.Skipped)
	case r.Skipped > r.NoID:
		s += fmt.Sprintf(", %d skipped (%d of a memory type the platform no longer allows, %d layers without an id)", r.Skipped, r.Skipped-r.NoID, r.NoID)
	case r.NoID > 0:
		s += fmt.Sprintf(", %d skipped (layers without an id)", r.NoID)
	}
	if r.Forgotten > 0 {
		s += fmt.Sprintf(", %d below --forget-below", r.Forgotten)
	}
	if r.Cleared > 0 {
		s += fmt.Sprintf(", %s cleared", cmdutil.Count(r.Cleared, "forgotten flag", ""))
	}
	if r.DryRun {
		return s
	}
	s += " (" + r.Mode + " run"
	if r.ResumedFrom != "" {
		s += ", resumed an interrupted run"
	}
	return s + ")"
}
