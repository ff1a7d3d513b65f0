// Package jobs implements `helix jobs list|show|retry|cancel`: an operator's
// view of the River jobs `helix worker` works.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/schedule"
	"github.com/helixhq/helix/internal/tableprinter"
)

// NewCmdJobs builds `helix jobs`.
func NewCmdJobs(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List, show, wait for, retry, cancel, count and prune queued jobs; pause and resume queues",
		Long: `Inspect and steer the River jobs helix worker works (river_job in helix's
database). River's web UI, riverui, works on the same database too.`,
	}
	cmd.AddCommand(NewCmdList(f, nil), newCmdShow(f), newCmdAct(f, "retry"), newCmdAct(f, "cancel"), NewCmdStats(f, nil), NewCmdWait(f, nil),
		newCmdQueueAct(f, "pause"), newCmdQueueAct(f, "resume"), NewCmdPrune(f, nil))
	return cmd
}

// ListOptions are the inputs of `jobs list`.
type ListOptions struct {
	F     *cmdutil.Factory
	State string
	Queue string
	Kind  string
	Limit int
	All   bool // helix's own bookkeeping jobs too
	// UserID keeps one user's jobs: those queued for them alone and the
	// batches (synthesize_users) that hold them.
	UserID cmdutil.UserID
}

// internalKinds are jobs helix queues for itself, not for a person: the
// scheduler's tick runs every second and would bury everything else.
var internalKinds = []string{schedule.TickArgs{}.Kind()}

// Job is a job as helix prints it.
type Job struct {
	ID          int64      `json:"id"`
	Kind        string     `json:"kind"`
	Queue       string     `json:"queue"`
	State       string     `json:"state"`
	Attempt     int        `json:"attempt"`
	MaxAttempts int        `json:"max_attempts"`
	Args        any        `json:"args"`
	CreatedAt   time.Time  `json:"created_at"`
	ScheduledAt time.Time  `json:"scheduled_at"`
	AttemptedAt *time.Time `json:"attempted_at"`
	FinalizedAt *time.Time `json:"finalized_at"`
	AttemptedBy []string   `json:"attempted_by"`
	Errors      []string   `json:"errors"`
}

func toJob(r *rivertype.JobRow) Job {
	j := Job{ID: r.ID, Kind: r.Kind, Queue: r.Queue, State: string(r.State), Attempt: r.Attempt, MaxAttempts: r.MaxAttempts,
		Args: rawJSON(r.EncodedArgs), CreatedAt: r.CreatedAt, ScheduledAt: r.ScheduledAt, AttemptedAt: r.AttemptedAt,
		FinalizedAt: r.FinalizedAt, AttemptedBy: r.AttemptedBy, Errors: []string{}}
	if j.AttemptedBy == nil {
		j.AttemptedBy = []string{}
	}
	for _, e := range r.Errors {
		j.Errors = append(j.Errors, fmt.Sprintf("attempt %d at %s: %s", e.Attempt, cmdutil.FormatTime(e.At), e.Error))
	}
	return j
}

type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// NewCmdList builds `jobs list`.
func NewCmdList(f *cmdutil.Factory, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{F: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List jobs, newest first",
		Long: `List jobs, newest first, filtered by state, queue or kind.
States: available, running, retryable, scheduled, pending, completed,
cancelled, discarded. helix's own bookkeeping jobs (schedule_tick, the
scheduler's clock) are left out unless --all or --kind names them.

EXAMPLES
  helix jobs list --state running
  helix jobs list --all
  helix jobs list --queue synthesize --state retryable -o json
  helix jobs list --user-id 11111111-1111-4111-8111-111111111111 -o json

` + cmdutil.ExitStatusDB,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Limit < 1 || opts.Limit > 10000 {
				return cmdutil.FlagErrorf("invalid --limit %d: want 1 to 10000", opts.Limit)
			}
			if opts.State != "" && !validState(opts.State) {
				return cmdutil.FlagErrorf("invalid --state %q", opts.State)
			}
			if runF != nil {
				return runF(opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.State, "state", "", "only jobs in this state")
	cmd.Flags().StringVar(&opts.Queue, "queue", "", "only jobs of this queue")
	cmd.Flags().StringVar(&opts.Kind, "kind", "", "only jobs of this kind")
	cmd.Flags().IntVar(&opts.Limit, "limit", 100, "at most this many jobs")
	cmd.Flags().BoolVar(&opts.All, "all", false, "include helix's internal jobs (schedule_tick)")
	cmdutil.UserIDVar(cmd.Flags(), &opts.UserID, "only this user's jobs (UUID): queued for them, or a batch holding them")
	return cmd
}

func validState(s string) bool {
	for _, st := range rivertype.JobStates() {
		if string(st) == s {
			return true
		}
	}
	return false
}

func client(ctx context.Context, f *cmdutil.Factory) (*river.Client[pgx.Tx], error) {
	pool, err := f.DB(ctx)
	if err != nil {
		return nil, err
	}
	return queue.NewInsertClient(pool)
}

func listRun(ctx context.Context, opts *ListOptions) error {
	f := opts.F
	c, err := client(ctx, f)
	if err != nil {
		return err
	}
	p := river.NewJobListParams().First(opts.Limit).OrderBy(river.JobListOrderByID, river.SortOrderDesc)
	if opts.State != "" {
		p = p.States(rivertype.JobState(opts.State))
	}
	if opts.Queue != "" {
		p = p.Queues(opts.Queue)
	}
	if opts.Kind != "" {
		p = p.Kinds(opts.Kind)
	} else if !opts.All {
		p = p.Where("kind <> ALL(@internal_kinds::text[])", river.NamedArgs{"internal_kinds": internalKinds})
	}
	if opts.UserID.Given {
		// containment, which River's GIN index on args answers
		u := opts.UserID.ID.String()
		p = p.Where("(args @> @one OR args @> @batch)", river.NamedArgs{
			"one": map[string]any{"user_id": u}, "batch": map[string]any{"user_ids": []string{u}}})
	}
	res, err := c.JobList(ctx, p)
	if err != nil {
		return err
	}
	jobs := make([]Job, 0, len(res.Jobs))
	for _, r := range res.Jobs {
		jobs = append(jobs, toJob(r))
	}
	if f.Global.JSON() {
		return cmdutil.WriteJSON(f.IOStreams.Out, map[string]any{"jobs": jobs})
	}
	if len(jobs) == 0 {
		cmdutil.Fprintf(f.IOStreams.ErrOut, "no jobs\n")
		return nil
	}
	tp := tableprinter.New(f.IOStreams.Out, f.IOStreams.IsStdoutTTY())
	tp.Header("ID", "KIND", "QUEUE", "STATE", "ATTEMPT", "CREATED", "ARGS")
	for _, j := range jobs {
		b, _ := j.Args.(rawJSON).MarshalJSON()
		tp.Row(strconv.FormatInt(j.ID, 10), j.Kind, j.Queue, j.State, fmt.Sprintf("%d/%d", j.Attempt, j.MaxAttempts), cmdutil.FormatTime(j.CreatedAt), string(b))
	}
	return tp.Render()
}

func parseID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, cmdutil.FlagErrorf("invalid job id %q: want a positive integer", s)
	}
	return id, nil
}

func newCmdShow(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Show one job, with its errors",
		Long:  "Show one job: its arguments, state, attempts and every attempt's error.\n\nEXAMPLES\n  helix jobs show 42 -o json\n\n" + cmdutil.ExitStatusDB,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			c, err := client(cmd.Context(), f)
			if err != nil {
				return err
			}
			r, err := c.JobGet(cmd.Context(), id)
			if err != nil {
				return notFound(id, err)
			}
			return printJob(f, toJob(r))
		},
	}
}

func newCmdAct(f *cmdutil.Factory, verb string) *cobra.Command {
	short := map[string]string{
		"retry":  "Run a job again now (a failed, cancelled or finished one too)",
		"cancel": "Cancel a job; a running one is cancelled by its worker, or here if that worker died",
	}[verb]
	return &cobra.Command{
		Use:   verb + " ID",
		Short: short,
		Long:  short + ".\n\nEXAMPLES\n  helix jobs " + verb + " 42\n\n" + cmdutil.ExitStatusDB,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			c, err := client(cmd.Context(), f)
			if err != nil {
				return err
			}
			var r *rivertype.JobRow
			if verb == "retry" {
				r, err = c.JobRetry(cmd.Context(), id)
			} else {
				r, err = cancel(cmd.Context(), f, c, id)
			}
			if err != nil {
				return notFound(id, err)
			}
			return printJob(f, toJob(r))
		},
	}
}

// cancel cancels job id. River only asks a running job's worker to stop
// it; when that worker is dead (its liveness lock gone) nobody would, and
// the job is finalized as cancelled here. It says on stderr which it did.
func cancel(ctx context.Context, f *cmdutil.Factory, c *river.Client[pgx.Tx], id int64) (*rivertype.JobRow, error) {
	r, err := c.JobCancel(ctx, id)
	if err != nil || r.State != rivertype.JobStateRunning {
		return r, err
	}
	pool, err := f.DB(ctx)
	if err != nil {
		return nil, err
	}
	dead, err := queue.CancelOrphan(ctx, pool, id)
	if err != nil {
		return nil, err
	}
	worker := ""
	if n := len(r.AttemptedBy); n > 0 {
		worker = r.AttemptedBy[n-1]
	}
	if dead == "" {
		f.Logger().Info("job running: cancel requested, its worker stops it", "job", id, "worker", worker)
		return r, nil
	}
	f.Logger().Info("job was running on a worker that died: cancelled it", "job", id, "worker", dead)
	return c.JobGet(ctx, id)
}

func notFound(id int64, err error) error {
	if errors.Is(err, river.ErrNotFound) || errors.Is(err, rivertype.ErrNotFound) {
		return cmdutil.InputError(fmt.Errorf("no job %d (see helix jobs list)", id))
	}
	return err
}

func printJob(f *cmdutil.Factory, j Job) error {
	if f.Global.JSON() {
		return cmdutil.WriteJSON(f.IOStreams.Out, j)
	}
	b, _ := j.Args.(rawJSON).MarshalJSON()
	out := f.IOStreams.Out
	fmt.Fprintf(out, "id:\t%d\nkind:\t%s\nqueue:\t%s\nstate:\t%s\nattempt:\t%d/%d\ncreated:\t%s\nscheduled:\t%s\nargs:\t%s\n",
		j.ID, j.Kind, j.Queue, j.State, j.Attempt, j.MaxAttempts, cmdutil.FormatTime(j.CreatedAt), cmdutil.FormatTime(j.ScheduledAt), b)
	for _, e := range j.Errors {
		fmt.Fprintf(out, "error:\t%s\n", e)
	}
	return nil
}
