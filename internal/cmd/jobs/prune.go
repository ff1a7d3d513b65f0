package jobs

import (
	"context"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/retention"
	"github.com/helixhq/helix/internal/tableprinter"
)

// PruneOptions are the inputs of `jobs prune`.
type PruneOptions struct {
	F         *cmdutil.Factory
	OlderThan time.Duration // 0: the retention.* settings
	Yes       bool
	DryRun    bool
}

// PruneOutput is what `jobs prune -o json` prints.
type PruneOutput struct {
	DryRun bool `json:"dry_run"`
	// Kept is how long each kind was kept ("0s": forever, not pruned).
	Kept    map[string]string `json:"kept"`
	Removed retention.Result  `json:"removed"` // with --dry-run: what would be
}

// NewCmdPrune builds `jobs prune`.
func NewCmdPrune(f *cmdutil.Factory, runF func(*PruneOptions) error) *cobra.Command {
	opts := &PruneOptions{F: f}
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Delete finished job bookkeeping older than a period (job_runs, schedule fires, River's finished jobs)",
		Long: `Delete helix's finished bookkeeping older than --older-than, or than the
retention.* settings without it: job_runs rows of finished runs, finished
schedule fires (schedule history), and River's completed, cancelled and
discarded jobs. A running run, a fire whose job is still live and a job not
yet finished are never touched; neither are the audit tables (tool_audit,
tool_executions, skill_executions, helix_llm_usage …). helix worker does
the same by itself (River's job cleaner, and the rest every 5 minutes): this
is for a one-off. Rows go in batches of 5000, each its own transaction; an
interrupted prune keeps what it deleted. Deleting needs --yes; --dry-run
counts instead.

EXAMPLES
  helix jobs prune --older-than 1h --yes
  helix jobs prune --dry-run -o json
  helix jobs prune --yes                     # the retention.* settings

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("older-than") && opts.OlderThan <= 0 {
				return cmdutil.FlagErrorf("invalid --older-than %s: want a period above 0, e.g. 1h, 720h", opts.OlderThan)
			}
			if !opts.DryRun {
				if err := cmdutil.Confirm(f.IOStreams, f.Global.JSON(), opts.Yes, "jobs prune deletes finished job history"); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return pruneRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&opts.OlderThan, "older-than", 0, "delete what finished longer ago than this (default: the retention.* settings)")
	fl.BoolVar(&opts.Yes, "yes", false, "confirm the deletion")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "count what would be deleted, delete nothing")
	return cmd
}

func pruneRun(ctx context.Context, opts *PruneOptions) error {
	f := opts.F
	p := retention.All(opts.OlderThan)
	if opts.OlderThan == 0 {
		cfg, err := f.Config()
		if err != nil {
			return cmdutil.InputError(err)
		}
		if p, err = shared.Retention(cfg); err != nil {
			return cmdutil.InputError(err)
		}
	}
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	res, err := retention.Prune(ctx, pool, p, f.Now(), opts.DryRun)
	if err != nil {
		return err
	}
	kinds := []struct {
		key, label string
		keep       time.Duration
		n          int64
	}{
		{"job_runs", "job_runs", p.JobRuns, res.JobRuns}, {"schedule_fires", "schedule fires", p.ScheduleFires, res.ScheduleFires},
		{"river_completed", "river completed", p.CompletedJobs, res.CompletedJobs}, {"river_cancelled", "river cancelled", p.CancelledJobs, res.CancelledJobs},
		{"river_discarded", "river discarded", p.DiscardedJobs, res.DiscardedJobs},
	}
	if f.Global.JSON() {
		out := PruneOutput{DryRun: opts.DryRun, Removed: res, Kept: map[string]string{}}
		for _, k := range kinds {
			out.Kept[k.key] = k.keep.String()
		}
		return cmdutil.WriteJSON(f.IOStreams.Out, out)
	}
	tp := tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
	verb := "REMOVED"
	if opts.DryRun {
		verb = "WOULD REMOVE"
	}
	tp.Header("WHAT", "KEPT", verb)
	for _, k := range kinds {
		kept := k.keep.String()
		if k.keep == 0 {
			kept = "forever"
		}
		tp.Row(k.label, kept, strconv.FormatInt(k.n, 10))
	}
	return tp.Render()
}
