// Package synthesize implements `helix synthesize`: find patterns in users'
// memories and write them to memory_synthesis.
package synthesize

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/catalog"
	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/llmsynth"
	"github.com/helixhq/helix/internal/progress"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/synthesis/synthstore"
	"github.com/helixhq/helix/internal/tableprinter"
)

// Options are the inputs of `synthesize`.
type Options struct {
	IO *iostreams.IOStreams
	F  *cmdutil.Factory

	UserID         cmdutil.UserID
	AllUsers       bool
	Full           bool
	Since          string
	Limit          int
	MinConfidence  float64
	Algorithm      string
	Eps            float64
	MinClusterSize int
	DryRun         bool
	Concurrency    int
	Seed           uint64
	LockWait       time.Duration
	Enqueue        bool
	Priority       int
	UsersPerJob    int

	// --llm: the platform's four psychological pattern types from a language model.
	LLM           bool
	Types         []string
	Model         string
	MaxCost       float64
	ModelUnlisted bool

	user  uuid.UUID
	types []string
	since time.Time
}

// NewCmdSynthesize builds `helix synthesize`.
func NewCmdSynthesize(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	d := synthesis.DefaultParams()
	opts := &Options{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "synthesize (--user-id UUID | --all-users) [--llm]",
		Short: "Find semantic, temporal and emotional patterns in memories",
		Long: `Find patterns in a user's memories and write them to memory_synthesis, each
with the memories it rests on, its evidence (jsonb) and a confidence drawn
from that evidence. Pattern types: semantic_cluster, temporal_burst,
temporal_rhythm, emotional_trend, emotional_shift, emotional_trigger.

Semantic clusters group embeddings by cosine distance (--algorithm auto,
dbscan, hdbscan or kmeans); memories without an embedding take part through a
hashed TF-IDF vector of their text. A user with too few embeddings is
clustered by text (TF-IDF, LSA). auto, the default, is k-means in the text
space (k by silhouette, at most the LSA spectrum's knee), and DBSCAN on
embeddings unless one DBSCAN cluster holds more than half the memories and
k-means separates them better. Each user is written in one transaction that
replaces the user's previous synthesis, so a re-run never duplicates and an
interrupted run leaves the previous synthesis in place. --dry-run prints the
patterns and writes nothing.

--all-users synthesizes only the users whose memories changed (inserted,
deleted, or content, embedding, valence or created_at edited) or whose
parameters differ since their last synthesis, found from the change markers
helix's triggers on memories keep (helix_memory_changes) without reading the
memories; --full synthesizes every user.

--since takes an RFC 3339 time or an age (90d, 12h). --limit keeps each
user's most recent N memories. --eps 0 picks eps at the elbow of the sorted
k-distance curve.

--llm asks a language model for the platform's four psychological pattern
types (emotional_patterns, prospective_self, relational_dynamics,
narrative_themes) and writes them to memory_patterns. Each user's brief is
built from the statistical synthesis above and a bounded sample of memories
quoted by short ids, scrubbed of emails, phone numbers, card numbers, API
keys and high-entropy strings before it is sent. --model PROVIDER/MODEL must be
in the pinned model catalog with tool calls (anthropic) or structured output
(OpenAI-compatible) unless --model-unlisted. --max-cost stops the run before a
call could take it over budget (exit 3). A user whose brief is unchanged since
the last answered run costs nothing: the stored patterns stand. --dry-run
prints the exact scrubbed request bodies and sends nothing. Keys and base URLs
are settings (llm.anthropic.api-key, llm.openai.base-url, …; see README).
--types full_synthesis (or all) asks for the fifth type: one integrated view
across the seven psychology layers, grounded in the statistical lineages and
the other types' stored patterns (helix profile update builds profiles on it).
Every pattern written keeps a lineage across runs (helix_pattern_lineages),
and every recommendation is stored in helix_recommendations.

EXAMPLES
  helix synthesize --user-id 11111111-1111-4111-8111-111111111111
  helix synthesize --all-users --since 90d --concurrency 4
  helix synthesize --all-users --full
  helix synthesize --all-users --enqueue        # jobs of ~10,000 memories; then: helix worker
  helix synthesize --user-id $U --algorithm hdbscan --min-cluster-size 8 --dry-run --output json
  helix synthesize --llm --user-id $U --model anthropic/claude-haiku-4-5 --dry-run
  helix synthesize --llm --all-users --types emotional_patterns,narrative_themes --max-cost 5
  helix synthesize --llm --all-users --enqueue  # then: helix worker --queues llm

` + cmdutil.ExitStatusPartialJob,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.LLM {
				return llmRun(cmd.Context(), opts)
			}
			return synthesizeRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	cmdutil.UserIDVar(fl, &opts.UserID, "synthesize this user (UUID)")
	fl.BoolVar(&opts.AllUsers, "all-users", false, "synthesize every user whose memories changed since their last synthesis")
	fl.BoolVar(&opts.Full, "full", false, "with --all-users, synthesize every user who has memories, changed or not")
	fl.StringVar(&opts.Since, "since", "", "only memories created since this RFC 3339 time or age (90d, 12h)")
	fl.IntVar(&opts.Limit, "limit", 0, "only each user's most recent N memories (0: all)")
	fl.Float64Var(&opts.MinConfidence, "min-confidence", d.MinConfidence, "keep patterns with at least this confidence (0-1)")
	fl.StringVar(&opts.Algorithm, "algorithm", d.Algorithm, "semantic clustering: auto, dbscan, hdbscan or kmeans")
	_ = cmd.RegisterFlagCompletionFunc("algorithm", cmdutil.CompleteWords(synthesis.Auto, synthesis.DBSCAN, synthesis.HDBSCAN, synthesis.KMeans))
	fl.Float64Var(&opts.Eps, "eps", 0, "DBSCAN radius in cosine distance (0: from the k-distance elbow)")
	fl.IntVar(&opts.MinClusterSize, "min-cluster-size", d.MinClusterSize, "smallest cluster (DBSCAN min_samples, HDBSCAN min_cluster_size and min_samples)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the patterns, write nothing")
	fl.IntVar(&opts.Concurrency, "concurrency", 2, "users synthesized at once with --all-users")
	fl.Uint64Var(&opts.Seed, "seed", d.Seed, "random seed (k-means, permutation tests)")
	fl.BoolVar(&opts.LLM, "llm", false, "find the platform's psychological pattern types with a language model")
	fl.StringSliceVar(&opts.Types, "types", nil, "with --llm: pattern types to find (default: the four; full_synthesis, the fifth, by name or with all)")
	fl.StringVar(&opts.Model, "model", llmsynth.DefaultModel, "with --llm: PROVIDER/MODEL from the pinned catalog")
	fl.Float64Var(&opts.MaxCost, "max-cost", 0, "with --llm: stop before the run could spend more than this many USD (0: no limit)")
	fl.BoolVar(&opts.ModelUnlisted, "model-unlisted", false, "with --llm: allow a model the pinned catalog lacks (no prices: cost is reported as 0)")
	fl.BoolVar(&opts.Enqueue, "enqueue", false, "queue the users for helix worker and return at once: jobs of about 10,000 memories (--users-per-job), with --llm one per user (the worker's llm.* settings apply)")
	fl.DurationVar(&opts.LockWait, "lock-wait", 30*time.Second, "with --user-id, wait this long for another run that holds the user")
	fl.IntVar(&opts.UsersPerJob, "users-per-job", 0, "with --enqueue (without --llm): users per queued job (0: batches of about 10,000 memories; 1: one synthesize job per user)")
	shared.PriorityFlag(cmd, &opts.Priority)
	return cmd
}

// validate checks the flags by hand: cobra's flag-group errors do not pass
// through the FlagErrorFunc and would exit 1 instead of 2.
func (o *Options) validate() error {
	switch {
	case !o.UserID.Given && !o.AllUsers:
		return cmdutil.FlagErrorf("give --user-id UUID or --all-users")
	case o.UserID.Given && o.AllUsers:
		return cmdutil.FlagErrorf("--user-id and --all-users cannot be used together")
	case o.Full && !o.AllUsers:
		return cmdutil.FlagErrorf("--full applies to --all-users (a --user-id run always synthesizes the user)")
	case o.Enqueue && o.DryRun:
		return cmdutil.FlagErrorf("--enqueue and --dry-run cannot be used together")
	case o.Enqueue && o.MaxCost > 0:
		return cmdutil.FlagErrorf("--max-cost bounds one run and cannot span queued jobs: leave it out with --enqueue")
	case o.UsersPerJob < 0:
		return cmdutil.FlagErrorf("invalid --users-per-job %d: want 0 (batches by memories) or more", o.UsersPerJob)
	}
	o.user = o.UserID.ID
	if o.Since != "" {
		t, err := shared.ParseSince(o.Since, o.F.Now())
		if err != nil {
			return err
		}
		o.since = t
	}
	switch {
	case !slices.Contains([]string{synthesis.Auto, synthesis.DBSCAN, synthesis.HDBSCAN, synthesis.KMeans}, o.Algorithm):
		return cmdutil.FlagErrorf("invalid --algorithm %q: use auto, dbscan, hdbscan or kmeans", o.Algorithm)
	case o.MinConfidence < 0 || o.MinConfidence > 1:
		return cmdutil.FlagErrorf("invalid --min-confidence %v: want 0 to 1", o.MinConfidence)
	case o.Eps < 0 || o.Eps > 2:
		return cmdutil.FlagErrorf("invalid --eps %v: a cosine distance is 0 to 2", o.Eps)
	case o.MinClusterSize < 2:
		return cmdutil.FlagErrorf("invalid --min-cluster-size %d: want 2 or more", o.MinClusterSize)
	case o.Limit < 0:
		return cmdutil.FlagErrorf("invalid --limit %d", o.Limit)
	case o.Concurrency < 1:
		return cmdutil.FlagErrorf("invalid --concurrency %d: want 1 or more", o.Concurrency)
	case o.MaxCost < 0:
		return cmdutil.FlagErrorf("invalid --max-cost %v: want 0 (no limit) or more", o.MaxCost)
	}
	if !o.LLM {
		if len(o.Types) > 0 || o.MaxCost > 0 || o.ModelUnlisted {
			return cmdutil.FlagErrorf("--types, --max-cost and --model-unlisted need --llm")
		}
		return nil
	}
	ts, err := llmsynth.ParseTypes(o.Types)
	if err != nil {
		return cmdutil.FlagErrorf("invalid --types: %v", err)
	}
	o.types = ts
	if _, _, ok := catalog.ParseKey(o.Model); !ok {
		return cmdutil.FlagErrorf("invalid --model %q: want PROVIDER/MODEL, e.g. %s", o.Model, llmsynth.DefaultModel)
	}
	return nil
}

func (o *Options) params() synthesis.Params {
	p := synthesis.DefaultParams()
	p.Algorithm, p.Eps, p.MinClusterSize, p.MinConfidence, p.Seed = o.Algorithm, o.Eps, o.MinClusterSize, o.MinConfidence, o.Seed
	return p
}

// UserResult is one user's outcome.
type UserResult struct {
	UserID   uuid.UUID           `json:"user_id"`
	Memories int                 `json:"memories"`
	Patterns []synthesis.Pattern `json:"patterns"`
	Error    string              `json:"error,omitempty"`
}

// Report is the command's JSON document.
type Report struct {
	RunID  *int64           `json:"run_id"`
	DryRun bool             `json:"dry_run"`
	Params synthesis.Params `json:"params"`
	Users  []UserResult     `json:"users"`
	Counts map[string]int   `json:"counts"`
	Failed []UserResult     `json:"failed"`
	// Skipped lists users another run was synthesizing (their lock was held).
	Skipped []string `json:"skipped"`
	// Warnings say what succeeded without doing anything a person expects:
	// a --user-id with no memories at all (often a typo in the UUID).
	Warnings []string `json:"warnings"`
}

// UserLock is synthstore.UserLock.
func UserLock(user uuid.UUID) string { return synthstore.UserLock(user) }

func synthesizeRun(ctx context.Context, opts *Options) error {
	f := opts.F
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	filter := synthstore.Filter{Since: opts.since, Limit: opts.Limit}
	users := []uuid.UUID{opts.user}
	unchanged := 0
	var states map[uuid.UUID]*synthstore.State // taken by the scan that found the changed users
	if opts.AllUsers {
		if users, unchanged, states, err = synthstore.ChangedUsers(ctx, pool, filter, opts.params(), opts.Full); err != nil {
			return err
		}
	}
	if opts.Enqueue {
		return enqueue(ctx, opts, pool, users)
	}
	if opts.AllUsers {
		defer manyUsersGC()()
	}
	rep := &Report{DryRun: opts.DryRun, Params: opts.params(), Users: []UserResult{}, Failed: []UserResult{}, Skipped: []string{}, Warnings: []string{}}
	if opts.DryRun {
		out, err := work(ctx, pool, opts, users, states, nil)
		return report(ctx, opts, rep, users, unchanged, out, err)
	}
	// The run record holds the job's typed args, as a worker's does.
	job := jobs.MustLookup(jobs.KindSynthesize)
	params := queue.RunParams{Units: len(users), Options: map[string]any{"concurrency": opts.Concurrency}}
	if opts.AllUsers {
		job = jobs.MustLookup(jobs.KindSynthesizeUsers)
		params.Args = queue.SynthesizeUsersArgs{Since: opts.since, Limit: opts.Limit, Params: rep.Params}
		params.Options["full"] = opts.Full
	} else {
		params.Args = queue.SynthesizeArgs{UserID: opts.user, Since: opts.since, Limit: opts.Limit, Params: rep.Params}
	}
	// --all-users holds the job's lease (one nightly run at a time) and each
	// user's lock as it writes the user; --user-id holds only its user's,
	// waiting up to --lock-wait for a nightly run that is writing that user.
	spec := jobrun.Spec{Job: job.Run, Params: params, Lock: job.Lock.Run, RecordSkipped: true, Now: f.Now}
	if !opts.AllUsers {
		spec.Lock = ""
	}
	return jobrun.Do(ctx, pool, spec, func(ctx context.Context, run *jobrun.Run) (any, error) {
		rep.RunID = &run.ID
		out, err := work(ctx, pool, opts, users, states, run)
		if !opts.AllUsers && err == nil && out[0].Skipped {
			return map[string]int{"users": 1, "skipped": 1}, out[0].Err
		}
		rerr := report(ctx, opts, rep, users, unchanged, out, err)
		return rep.Counts, rerr
	})
}

// manyUsersGC lets the heap grow to 5× what is live instead of 2× while a
// run goes through many users (unless GOGC or GOMEMLIMIT says otherwise),
// and returns what restores the settings. Each user's memories and analysis
// are garbage once the user is written, so a many-user run allocates its
// live heap over and over: at 1,000 users × 100 × 1,536 the collector cost
// ~1 CPU-second of ~6.5 at the default (issue 50), for a peak RSS of
// 90 MB; at 400 %, 150–165 MB. The 1 GiB soft limit makes the collector
// run sooner if a large user brings the live heap near it.
func manyUsersGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(400)
	limit := debug.SetMemoryLimit(1 << 30)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// enqueue queues the users for `helix worker`: synthesize_users jobs of
// --users-per-job users, or by default of about queue.BatchWork memories
// each (queue.SynthesizeBatches); --users-per-job 1 queues one synthesize
// job per user. A job still pending or running is not queued twice.
func enqueue(ctx context.Context, opts *Options, pool *pgxpool.Pool, users []uuid.UUID) error {
	client, err := queue.NewInsertClient(pool)
	if err != nil {
		return err
	}
	var res *queue.EnqueueResult
	if opts.UsersPerJob == 1 || !opts.AllUsers {
		// one user (--user-id): a synthesize job carrying its user_id, which
		// jobs list --user-id and the desktop read
		args := make([]queue.SynthesizeArgs, len(users))
		for i, u := range users {
			args[i] = queue.SynthesizeArgs{UserID: u, Since: opts.since, Limit: opts.Limit, Params: opts.params()}
		}
		res, err = queue.Enqueue(ctx, client, args, queue.PriorityFor(!opts.AllUsers, opts.Priority))
	} else {
		batches, berr := queue.SynthesizeBatches(ctx, pool, users, synthstore.Filter{Since: opts.since, Limit: opts.Limit}, opts.UsersPerJob)
		if berr != nil {
			return berr
		}
		args := make([]queue.SynthesizeUsersArgs, len(batches))
		for i, b := range batches {
			args[i] = queue.SynthesizeUsersArgs{UserIDs: b, Since: opts.since, Limit: opts.Limit, Params: opts.params()}
		}
		res, err = queue.Enqueue(ctx, client, args, queue.PriorityFor(!opts.AllUsers, opts.Priority))
	}
	if err != nil {
		return err
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, res)
	}
	_, err = fmt.Fprintln(opts.IO.Out, res.Summary())
	return err
}

// report tallies the outcomes, writes the output and returns the run's
// error: runErr (interrupted, the database unreachable) as it is, one
// user's failure as the --user-id run's, some users' as partial (exit 3).
func report(ctx context.Context, opts *Options, rep *Report, users []uuid.UUID, unchanged int, out []queue.UserOutcome, runErr error) error {
	if runErr != nil {
		return runErr
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	counts, failed, errs := queue.SynthesisCounts(out)
	if opts.AllUsers {
		counts["unchanged"] = unchanged
	}
	for _, o := range out {
		r := UserResult{UserID: o.User, Memories: o.Memories, Patterns: o.Patterns}
		switch {
		case o.Skipped:
			rep.Skipped = append(rep.Skipped, o.User.String())
		case o.Err != nil:
			r.Error = o.Err.Error()
			rep.Failed = append(rep.Failed, r)
		case o.Reached():
			rep.Users = append(rep.Users, r)
		}
	}
	if !opts.AllUsers && len(rep.Users) == 1 && rep.Users[0].Memories == 0 {
		what := "memories"
		if !opts.since.IsZero() || opts.Limit > 0 {
			what = "memories in the --since/--limit window"
		}
		w := fmt.Sprintf("user %s has no %s: nothing to synthesize (check the --user-id)", rep.Users[0].UserID, what)
		rep.Warnings = append(rep.Warnings, w)
		opts.F.Logger().Warn(w)
	}
	rep.Counts = counts

	var err error
	switch {
	case len(failed) > 0 && !opts.AllUsers:
		return fmt.Errorf("synthesize %s: %w", users[0], out[0].Err)
	case len(failed) > 0:
		err = &cmdutil.PartialError{Failed: failed, Total: len(users), Errs: errs}
	}
	if perr := write(opts, rep); perr != nil {
		return perr
	}
	return err
}

// work synthesizes users through queue.SynthesizeUsers, the unit a worker
// runs too: with --all-users one query streams every user's memories while
// --concurrency goroutines analyse and write the users already read, each
// under the user's lock. The users' states are states (taken by the scan
// that chose them) or, with --full, taken beside the stream. run is nil for
// a dry run.
func work(ctx context.Context, pool *pgxpool.Pool, opts *Options, users []uuid.UUID, states map[uuid.UUID]*synthstore.State, run *jobrun.Run) ([]queue.UserOutcome, error) {
	s := queue.Synthesis{Pool: pool, Users: users, Filter: synthstore.Filter{Since: opts.since, Limit: opts.Limit},
		Params: opts.params(), Concurrency: opts.Concurrency, Now: opts.F.Now}
	if run != nil {
		s.RunID = &run.ID
	}
	if !opts.AllUsers {
		s.Concurrency, s.LockWait = 1, opts.LockWait
		if run != nil {
			s.Conn = run.Conn
		}
		return queue.SynthesizeUsers(ctx, s)
	}
	mode := progress.ChooseMode(opts.IO.IsStderrTTY(), opts.F.Global.JSON())
	bar := progress.New(opts.IO.ErrOut, mode, opts.F.Logger(), "synthesize", len(users))
	defer bar.Finish()
	s.State = synthstore.StateOf(states)
	if states == nil {
		ahead, err := synthstore.SnapshotsAhead(ctx, pool, users, s.Filter, s.Params)
		if err != nil {
			return nil, fmt.Errorf("read memories: %w", err)
		}
		defer ahead.Wait()
		s.State = ahead.State
	}
	s.Step = func(o queue.UserOutcome) { bar.Step(o.User.String(), o.Err != nil && !o.Skipped) }
	return queue.SynthesizeUsers(ctx, s)
}

func write(opts *Options, rep *Report) error {
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, rep)
	}
	tp := tableprinter.New(opts.IO.Out, opts.IO.IsStdoutTTY())
	if opts.AllUsers {
		tp.Header("USER", "TYPE", "CONFIDENCE", "MEMORIES", "PATTERN")
	} else {
		tp.Header("TYPE", "CONFIDENCE", "MEMORIES", "PATTERN")
	}
	for _, u := range rep.Users {
		for _, p := range u.Patterns {
			row := []string{p.Type, fmt.Sprintf("%.3f", p.Confidence), strconv.Itoa(len(p.MemoryIDs)), p.Content}
			if opts.AllUsers {
				row = append([]string{u.UserID.String()}, row...)
			}
			tp.Row(row...)
		}
	}
	if rep.Counts["patterns"] > 0 {
		if err := tp.Render(); err != nil {
			return err
		}
	}
	verb := "wrote"
	if rep.DryRun {
		verb = "dry run: would write"
	}
	if rep.Counts["users"] == 0 {
		// not "0 patterns for 0 of 0 users from 0 memories"
		cmdutil.Fprintf(opts.IO.ErrOut, "%s no patterns: no user to synthesize%s\n", verb, skipped(rep.Counts["unchanged"]))
	} else {
		cmdutil.Fprintf(opts.IO.ErrOut, "%s %s for %d of %s from %s%s\n",
			verb, cmdutil.Count(rep.Counts["patterns"], "pattern", ""), rep.Counts["done"], cmdutil.Count(rep.Counts["users"], "user", ""),
			cmdutil.Count(rep.Counts["memories"], "memory", "memories"), skipped(rep.Counts["unchanged"]))
	}
	if n := len(rep.Skipped); n > 0 {
		cmdutil.Fprintf(opts.IO.ErrOut, "skipped %s another run was synthesizing\n", cmdutil.Count(n, "user", ""))
	}
	return nil
}

func skipped(unchanged int) string {
	if unchanged == 0 {
		return ""
	}
	return fmt.Sprintf("; %s skipped", cmdutil.Count(unchanged, "unchanged user", ""))
}
