package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/queue"
)

// WaitOptions are the inputs of `jobs wait`.
type WaitOptions struct {
	F       *cmdutil.Factory
	IDs     []int64
	Timeout time.Duration
	// Poll is the longest pause between two reads of the jobs' states.
	Poll time.Duration
}

// NewCmdWait builds `jobs wait`.
func NewCmdWait(f *cmdutil.Factory, runF func(*WaitOptions) error) *cobra.Command {
	opts := &WaitOptions{F: f, Poll: time.Second}
	cmd := &cobra.Command{
		Use:   "wait ID...",
		Short: "Wait until queued jobs are finished; exit as the same work run in-process would",
		Long: `Block until every job named is finished (completed, cancelled or
discarded), then print the jobs in the shape helix jobs show uses, each
with its outcome: the last run it recorded (job_runs) and the exit status
it stands for. Progress goes to stderr: a line each time a job changes
state (one JSON object a line with -o json).

The exit status is the one the same work gives run in-process: 0 every
job done; 3 some failed or partly failed, the rest done; when every job
failed, the class they share: 1 failed, 2 bad input, 4 a provider or the
database unavailable (1 when they differ). With --timeout, a wait that
runs out while a job is still queued or running exits 6 (pending): the
jobs keep running; wait again or cancel them. SIGINT and SIGTERM stop the
waiting (exit 130), never the jobs.

EXAMPLES
  helix synthesize --user-id 11111111-1111-4111-8111-111111111111 --enqueue -o json
  helix jobs wait 42
  helix jobs wait 42 43 --timeout 5m -o json

` + cmdutil.ExitStatusHelp,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.IDs = opts.IDs[:0]
			for _, a := range args {
				id, err := parseID(a)
				if err != nil {
					return err
				}
				if !slices.Contains(opts.IDs, id) {
					opts.IDs = append(opts.IDs, id)
				}
			}
			if opts.Timeout < 0 {
				return cmdutil.FlagErrorf("invalid --timeout %s: want a positive duration, or 0 to wait as long as it takes", opts.Timeout)
			}
			if runF != nil {
				return runF(opts)
			}
			return waitRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 0, "give up waiting after this long (exit 6, the jobs keep running); 0 waits as long as it takes")
	return cmd
}

// Outcome is what a finished job stands for.
type Outcome struct {
	ExitCode int               `json:"exit_code"`
	Kind     string            `json:"kind"` // done, partial, failed, input, unavailable, pending
	Error    string            `json:"error,omitempty"`
	Run      *queue.RunOutcome `json:"run"` // the last run the job recorded; null if none
}

// Waited is a job with its outcome, on `jobs wait`'s stdout.
type Waited struct {
	Job
	Outcome Outcome `json:"outcome"`
}

func waitRun(ctx context.Context, opts *WaitOptions) error {
	f := opts.F
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	c, err := queue.NewInsertClient(pool)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if opts.Timeout > 0 {
		wctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	log := f.Logger()
	seen := map[int64]rivertype.JobState{}
	pause := 100 * time.Millisecond
	var rows []*rivertype.JobRow
	for {
		res, err := c.JobList(wctx, river.NewJobListParams().IDs(opts.IDs...).First(len(opts.IDs)))
		if err != nil {
			if wctx.Err() != nil {
				break
			}
			return err
		}
		rows = res.Jobs
		if len(rows) < len(opts.IDs) {
			return cmdutil.InputError(fmt.Errorf("no job %s (see helix jobs list)", missing(opts.IDs, rows)))
		}
		done := true
		for _, r := range rows {
			if st, ok := seen[r.ID]; !ok || st != r.State {
				seen[r.ID] = r.State
				log.Info("job "+string(r.State), "job", r.ID, "kind", r.Kind, "queue", r.Queue, "attempt", r.Attempt)
			}
			done = done && finalized(r.State)
		}
		if done {
			break
		}
		select {
		case <-wctx.Done():
		case <-time.After(pause):
			pause = min(2*pause, opts.Poll)
			continue
		}
		break
	}
	// the outcome is read even when the wait was cut short: what a program
	// printing progress wants to show last
	rctx := context.WithoutCancel(ctx)
	outcomes, err := queue.RunOutcomes(rctx, pool, opts.IDs)
	if err != nil {
		return err
	}
	slices.SortFunc(rows, func(a, b *rivertype.JobRow) int {
		return slices.Index(opts.IDs, a.ID) - slices.Index(opts.IDs, b.ID)
	})
	out := make([]Waited, 0, len(rows))
	codes := make([]int, 0, len(rows))
	var failures []string
	for _, r := range rows {
		var run *queue.RunOutcome
		if o, ok := outcomes[r.ID]; ok {
			run = &o
		}
		w := Waited{Job: toJob(r), Outcome: outcomeOf(r, run)}
		out = append(out, w)
		codes = append(codes, w.Outcome.ExitCode)
		if w.Outcome.ExitCode != 0 && w.Outcome.Kind != "pending" {
			failures = append(failures, fmt.Sprintf("job %d (%s): %s", r.ID, r.Kind, w.Outcome.Error))
		}
	}
	if err := printWaited(f, out); err != nil {
		return err
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case wctx.Err() != nil && len(rows) > 0 && slices.ContainsFunc(rows, func(r *rivertype.JobRow) bool { return !finalized(r.State) }):
		return exitcode.AsPending(fmt.Errorf("--timeout %s passed: %s still queued or running (they keep running: wait again or helix jobs cancel)", opts.Timeout, pendingIDs(rows)))
	}
	return combined(codes, failures)
}

func finalized(s rivertype.JobState) bool {
	return s == rivertype.JobStateCompleted || s == rivertype.JobStateCancelled || s == rivertype.JobStateDiscarded
}

// outcomeOf is the exit status a job stands for: a completed job's last
// run says done (0) or partial (3); a cancelled or discarded one failed,
// of the class its run recorded (job_runs.exit_code), else 1.
func outcomeOf(r *rivertype.JobRow, run *queue.RunOutcome) Outcome {
	o := Outcome{Run: run}
	lastErr := ""
	if n := len(r.Errors); n > 0 {
		lastErr = r.Errors[n-1].Error
	}
	switch {
	case !finalized(r.State):
		o.ExitCode, o.Kind = int(cmdutil.ExitPending), "pending"
	case r.State == rivertype.JobStateCompleted && (run == nil || run.Status != "partial"):
		o.ExitCode, o.Kind = 0, "done"
	case r.State == rivertype.JobStateCompleted:
		o.ExitCode, o.Kind = int(cmdutil.ExitPartial), "partial"
		if run.Error != nil {
			o.Error = *run.Error
		}
	default:
		o.ExitCode, o.Kind = int(cmdutil.ExitFailed), "failed"
		if run != nil && run.ExitCode != nil && *run.ExitCode != 0 {
			o.ExitCode = *run.ExitCode
			o.Kind = kindOf(o.ExitCode)
		}
		o.Error = lastErr
		if run != nil && run.Error != nil {
			o.Error = *run.Error
		}
		if o.Error == "" {
			o.Error = string(r.State)
		}
	}
	return o
}

func kindOf(code int) string {
	switch cmdutil.ExitCode(code) {
	case cmdutil.ExitUsage:
		return "input"
	case cmdutil.ExitPartial:
		return "partial"
	case cmdutil.ExitUnavailable:
		return "unavailable"
	case cmdutil.ExitSkipped:
		return "skipped"
	case cmdutil.ExitInterrupted:
		return "interrupted"
	}
	return "failed"
}

// combined is the exit status of the jobs together, as one in-process run
// over their units would give: all done 0; some failed 3; all failed the
// class they share, else 1.
func combined(codes []int, failures []string) error {
	ok := 0
	for _, c := range codes {
		if c == 0 {
			ok++
		}
	}
	if ok == len(codes) {
		return nil
	}
	msg := strings.Join(failures, "; ")
	if ok > 0 || slices.Contains(codes, int(cmdutil.ExitPartial)) && len(codes) > 1 {
		return &cmdutil.PartialError{Failed: failures, Total: len(codes)}
	}
	same := !slices.ContainsFunc(codes, func(c int) bool { return c != codes[0] })
	if !same {
		return errors.New(msg)
	}
	switch cmdutil.ExitCode(codes[0]) {
	case cmdutil.ExitPartial:
		return &cmdutil.PartialError{Failed: failures, Total: len(codes)}
	case cmdutil.ExitUsage:
		return exitcode.AsInput(errors.New(msg))
	case cmdutil.ExitUnavailable:
		return exitcode.AsUnavailable(errors.New(msg))
	case cmdutil.ExitSkipped:
		return exitcode.AsSkipped(errors.New(msg))
	}
	return errors.New(msg)
}

func missing(ids []int64, rows []*rivertype.JobRow) string {
	var out []string
	for _, id := range ids {
		if !slices.ContainsFunc(rows, func(r *rivertype.JobRow) bool { return r.ID == id }) {
			out = append(out, fmt.Sprint(id))
		}
	}
	return strings.Join(out, ", ")
}

func pendingIDs(rows []*rivertype.JobRow) string {
	var out []string
	for _, r := range rows {
		if !finalized(r.State) {
			out = append(out, fmt.Sprintf("job %d (%s)", r.ID, r.State))
		}
	}
	return strings.Join(out, ", ")
}

func printWaited(f *cmdutil.Factory, ws []Waited) error {
	if f.Global.JSON() {
		return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"jobs": ws})
	}
	for i, w := range ws {
		if i > 0 {
			fmt.Fprintln(f.IOStreams.Out)
		}
		if err := printJob(f, w.Job); err != nil {
			return err
		}
		fmt.Fprintf(f.IOStreams.Out, "outcome:\t%s (exit %d)\n", w.Outcome.Kind, w.Outcome.ExitCode)
	}
	return nil
}
