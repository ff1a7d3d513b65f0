package profilecmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/catalog"
	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/llmsynth"
	"github.com/helixhq/helix/internal/profile"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/tableprinter"
)

// UpdateOptions are the inputs of `profile update`.
type UpdateOptions struct {
	IO *iostreams.IOStreams
	F  *cmdutil.Factory

	UserID        cmdutil.UserID
	AllUsers      bool
	Model         string
	ModelUnlisted bool
	MaxCost       float64
	Enqueue       bool
	Priority      int
}

// NewCmdUpdate builds `helix profile update`.
func NewCmdUpdate(f *cmdutil.Factory, runF func(*UpdateOptions) error) *cobra.Command {
	opts := &UpdateOptions{IO: f.IOStreams, F: f}
	cmd := &cobra.Command{
		Use:   "update (--user-id UUID | --all-users)",
		Short: "Rebuild the profiles of users whose lineages or recommendations changed",
		Long: `Rebuild a user's profile (helix_profiles): the integrated summary of a
full_synthesis (synthesize --llm --types full_synthesis, asked here), the top
live lineages with their status and age, and the open recommendations.

Work follows change: a user whose lineages (helix_pattern_lineages) and
recommendations (helix_recommendations, statuses included) are as they were
when the profile was built is left alone: no model call, no write. A changed
user costs one full_synthesis call, or none when its brief was answered
before (a recommendation marked done changes the profile, not the brief).
--all-users looks at every user with lineages or recommendations. --enqueue
queues one profile_update job per changed user for helix worker (queue llm).
The model and its settings are synthesize --llm's (llm.*, --model,
--max-cost).

EXAMPLES
  helix profile update --user-id 11111111-1111-4111-8111-111111111111
  helix profile update --all-users --max-cost 2
  helix profile update --all-users --enqueue   # then: helix worker --queues llm
  helix schedule add profiles --cron '30 3 * * *' -- profile update --all-users

` + cmdutil.ExitStatusPartialJob,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return updateRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	cmdutil.UserIDVar(fl, &opts.UserID, "update this user's profile (UUID)")
	fl.BoolVar(&opts.AllUsers, "all-users", false, "update every user whose lineages or recommendations changed")
	fl.StringVar(&opts.Model, "model", llmsynth.DefaultModel, "PROVIDER/MODEL from the pinned catalog, for the full_synthesis")
	fl.BoolVar(&opts.ModelUnlisted, "model-unlisted", false, "allow a model the pinned catalog lacks (no prices: cost is reported as 0)")
	fl.Float64Var(&opts.MaxCost, "max-cost", 0, "stop before the run could spend more than this many USD (0: no limit)")
	fl.BoolVar(&opts.Enqueue, "enqueue", false, "queue one profile_update job per changed user for helix worker and return at once")
	shared.PriorityFlag(cmd, &opts.Priority)
	return cmd
}

func (o *UpdateOptions) validate() error {
	switch {
	case !o.UserID.Given && !o.AllUsers:
		return cmdutil.FlagErrorf("give --user-id UUID or --all-users")
	case o.UserID.Given && o.AllUsers:
		return cmdutil.FlagErrorf("--user-id and --all-users cannot be used together")
	case o.MaxCost < 0:
		return cmdutil.FlagErrorf("invalid --max-cost %v: want 0 (no limit) or more", o.MaxCost)
	case o.Enqueue && o.MaxCost > 0:
		return cmdutil.FlagErrorf("--max-cost bounds one run and cannot span queued jobs: leave it out with --enqueue")
	}
	if _, _, ok := catalog.ParseKey(o.Model); !ok {
		return cmdutil.FlagErrorf("invalid --model %q: want PROVIDER/MODEL, e.g. %s", o.Model, llmsynth.DefaultModel)
	}
	return nil
}

// UpdateReport is the JSON document of `profile update`.
type UpdateReport struct {
	RunID      *int64           `json:"run_id"`
	Model      string           `json:"model"`
	SpentUSD   float64          `json:"spent_usd"`
	Users      []profile.Result `json:"users"`
	Failed     []profile.Result `json:"failed"`
	NotStarted []uuid.UUID      `json:"not_started"`
	Counts     map[string]int64 `json:"counts"`
}

func updateRun(ctx context.Context, opts *UpdateOptions) error {
	f := opts.F
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	users := []uuid.UUID{opts.UserID.ID}
	if opts.AllUsers {
		if users, err = profile.Users(ctx, pool); err != nil {
			return err
		}
	}
	changed, err := profile.Changed(ctx, pool, users)
	if err != nil {
		return err
	}
	if opts.Enqueue {
		args := make([]queue.ProfileUpdateArgs, len(changed))
		for i, u := range changed {
			args[i] = queue.ProfileUpdateArgs{UserID: u, Model: opts.Model, ModelUnlisted: opts.ModelUnlisted}
		}
		res, err := queue.Insert(ctx, pool, args, queue.PriorityFor(!opts.AllUsers, opts.Priority))
		if err != nil {
			return err
		}
		if f.Global.JSON() {
			return cmdutil.WriteJSON(opts.IO.Out, res)
		}
		_, err = fmt.Fprintln(opts.IO.Out, res.Summary())
		return err
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	client, err := f.HTTPClient()
	if err != nil {
		return err
	}
	log := f.Logger()
	a := queue.ProfileSynthArgs(opts.Model, opts.ModelUnlisted)
	s, mi, _, err := shared.NewSynthesizer(ctx, cfg, pool, shared.LLMSettings{Model: a.Model, ModelUnlisted: a.ModelUnlisted,
		MaxCost: opts.MaxCost, Types: a.Types, Params: synthesis.DefaultParams()}, client, f.Now, func(m string) { log.Warn(m) })
	if err != nil {
		return err
	}
	up := &profile.Updater{Synth: s, Now: f.Now}
	rep := &UpdateReport{Model: mi.Key, Users: []profile.Result{}, Failed: []profile.Result{}, NotStarted: []uuid.UUID{}}
	job := jobs.MustLookup(jobs.KindProfileUpdate)
	args := queue.ProfileUpdateArgs{Model: mi.Key, ModelUnlisted: opts.ModelUnlisted}
	if !opts.AllUsers {
		args.UserID = opts.UserID.ID
	}
	params := queue.RunParams{Args: args, Units: len(changed), Options: map[string]any{"all_users": opts.AllUsers, "max_cost": opts.MaxCost}}
	var status string
	var runErr error
	err = jobrun.Do(ctx, pool, jobrun.Spec{Job: job.Run, Params: params, Lock: job.Lock.Run, RecordSkipped: true, Now: f.Now}, func(ctx context.Context, run *jobrun.Run) (any, error) {
		rep.RunID = &run.ID
		counts := map[string]int64{"users": int64(len(users)), "changed": int64(len(changed)), "unchanged": int64(len(users) - len(changed))}
		var failed []string
		var failedErrs []error
		var fatal, budget error
		for i, u := range changed {
			if ctx.Err() != nil {
				break
			}
			r, err := up.User(ctx, pool, u, &run.ID, nil)
			counts["calls"] += int64(r.Calls)
			var api *httpretry.APIError
			switch {
			case err == nil && r.Unchanged: // changed by the time it came: another run did it
				counts["unchanged"]++
				counts["changed"]--
			case err == nil:
				rep.Users = append(rep.Users, r)
				counts["updated"]++
				if r.Reused {
					counts["reused"]++
				}
			case ctx.Err() != nil:
			case errors.Is(err, llmsynth.ErrBudget):
				budget = err
				rep.NotStarted = append(rep.NotStarted, changed[i:]...)
			case errors.As(err, &api) && api.Auth():
				fatal = cmdutil.InputError(err)
			case errors.Is(err, httpretry.ErrUnavailable):
				fatal = err
			default:
				r.Error = err.Error()
				rep.Failed = append(rep.Failed, r)
				failed = append(failed, u.String()+": "+r.Error)
				failedErrs = append(failedErrs, err)
			}
			if budget != nil || fatal != nil {
				break
			}
		}
		counts["failed"] = int64(len(failed))
		counts["not_started"] = int64(len(rep.NotStarted))
		rep.Counts, rep.SpentUSD = counts, s.Budget.Spent()
		status, runErr = shared.LLMOutcome{Fatal: fatal, Budget: budget, MaxCost: opts.MaxCost, Spent: rep.SpentUSD,
			Done: int(counts["updated"]), Total: len(changed), Unit: "changed user", Failed: failed, FailedErrs: failedErrs,
			NotStarted: len(rep.NotStarted)}.Result(ctx)
		jobCounts := map[string]any{"cost_usd": rep.SpentUSD}
		for k, v := range counts {
			jobCounts[k] = v
		}
		run.SetStatus(status)
		return jobCounts, runErr
	})
	if status == "" {
		return err
	}
	if status == db.RunInterrupted {
		return runErr
	}
	if perr := writeUpdate(opts, rep); perr != nil {
		return perr
	}
	return runErr
}

func writeUpdate(opts *UpdateOptions, rep *UpdateReport) error {
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, rep)
	}
	if len(rep.Users) > 0 {
		tp := tableprinter.New(opts.IO.Out, opts.IO.IsStdoutTTY())
		tp.Header("USER", "LINEAGES", "RECOMMENDATIONS", "SUMMARY", "CALLS")
		for _, r := range rep.Users {
			sum := "no"
			if r.Summary {
				sum = "yes"
			}
			tp.Row(r.UserID.String(), fmt.Sprint(r.Lineages), fmt.Sprint(r.Recommendations), sum, fmt.Sprint(r.Calls))
		}
		if err := tp.Render(); err != nil {
			return err
		}
	}
	c := rep.Counts
	cmdutil.Fprintf(opts.IO.ErrOut, "%s: %d of %s changed, %s updated (%d full_synthesis reused), %d unchanged, %s, spent %s\n",
		rep.Model, c["changed"], cmdutil.Count(c["users"], "user", ""), cmdutil.Count(c["updated"], "profile", ""), c["reused"], c["unchanged"],
		cmdutil.Count(c["calls"], "call", ""), cmdutil.Money(rep.SpentUSD))
	return nil
}
