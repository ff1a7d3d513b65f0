package synthesize

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/llmsynth"
	"github.com/helixhq/helix/internal/progress"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/synthesis/synthstore"
	"github.com/helixhq/helix/internal/tableprinter"
)

// LLMReport is the JSON document of `synthesize --llm`.
type LLMReport struct {
	RunID           *int64                `json:"run_id"`
	Model           string                `json:"model"`
	Listed          bool                  `json:"model_listed"`
	Prices          llmsynth.Prices       `json:"prices_per_million_tokens"`
	Types           []string              `json:"pattern_types"`
	MaxCost         float64               `json:"max_cost_usd"`
	SpentUSD        float64               `json:"spent_usd"`
	BudgetExhausted bool                  `json:"budget_exhausted"`
	Users           []llmsynth.UserResult `json:"users"`
	Failed          []llmsynth.UserResult `json:"failed"`
	NotStarted      []uuid.UUID           `json:"not_started"`
	Counts          map[string]int64      `json:"counts"`
	DryRun          []DryRunRequest       `json:"dry_run,omitempty"`
}

// DryRunRequest is one user's request as --dry-run prints it.
type DryRunRequest struct {
	UserID      uuid.UUID       `json:"user_id"`
	BriefSHA256 string          `json:"brief_sha256"`
	Memories    int             `json:"memories_sent"`
	Scrubbed    any             `json:"scrubbed"`
	URL         string          `json:"url"`
	Body        json.RawMessage `json:"body"`
}

func llmRun(ctx context.Context, opts *Options) error {
	f := opts.F
	if opts.Enqueue {
		return llmEnqueue(ctx, opts)
	}
	log := f.Logger()
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	client, err := f.HTTPClient()
	if err != nil {
		return err
	}
	warn := func(msg string) { log.Warn(msg) }
	filter := synthstore.Filter{Since: opts.since, Limit: opts.Limit}
	s, mi, url, err := shared.NewSynthesizer(ctx, cfg, pool, shared.LLMSettings{Model: opts.Model, ModelUnlisted: opts.ModelUnlisted,
		MaxCost: opts.MaxCost, Types: opts.types, Params: opts.params(), Filter: filter, DryRun: opts.DryRun}, client, f.Now, warn)
	if err != nil {
		return err
	}
	users := []uuid.UUID{opts.user}
	if opts.AllUsers {
		if users, err = synthstore.Users(ctx, pool, filter); err != nil {
			return err
		}
	}
	rep := &LLMReport{Model: mi.Key, Listed: mi.Listed, Prices: mi.Prices, Types: opts.types, MaxCost: opts.MaxCost,
		Users: []llmsynth.UserResult{}, Failed: []llmsynth.UserResult{}, NotStarted: []uuid.UUID{}}
	if opts.DryRun {
		return llmDryRun(ctx, pool, opts, s, url, users, rep)
	}

	var status string
	var runErr error
	// The run record holds the job's typed args, as a worker's does.
	job := jobs.MustLookup(jobs.KindSynthesizeLLM)
	args := queue.SynthesizeLLMArgs{Model: mi.Key, ModelUnlisted: opts.ModelUnlisted, Types: opts.types, Since: opts.since, Limit: opts.Limit, Params: opts.params()}
	if !opts.AllUsers {
		args.UserID = opts.user
	}
	params := queue.RunParams{Args: args, Units: len(users), Options: map[string]any{"all_users": opts.AllUsers, "max_cost": opts.MaxCost, "concurrency": opts.Concurrency}}
	err = jobrun.Do(ctx, pool, jobrun.Spec{Job: job.Run, Params: params, Lock: job.Lock.Run, RecordSkipped: true, Now: f.Now}, func(ctx context.Context, run *jobrun.Run) (any, error) {
		rep.RunID = &run.ID

		var bar *progress.Reporter
		if opts.AllUsers {
			bar = progress.New(opts.IO.ErrOut, progress.ChooseMode(opts.IO.IsStderrTTY(), f.Global.JSON()), log, "synthesize --llm", len(users))
		}
		results, errs, fatal, budgetErr := llmWork(ctx, pool, opts, s, users, run.ID, bar)
		bar.Finish()

		counts := map[string]int64{"users": int64(len(users))}
		var failed []string
		var failedErrs []error
		for i, r := range results {
			switch {
			case errs[i] == nil && r.UserID == uuid.Nil:
				rep.NotStarted = append(rep.NotStarted, users[i])
				continue
			case errs[i] != nil && errors.Is(errs[i], llmsynth.ErrBudget):
				rep.NotStarted = append(rep.NotStarted, users[i])
				continue
			case errs[i] != nil:
				r.Error = errs[i].Error()
				rep.Failed = append(rep.Failed, r)
				failed = append(failed, users[i].String()+": "+r.Error)
				failedErrs = append(failedErrs, errs[i])
			default:
				rep.Users = append(rep.Users, r)
				counts["done"]++
				counts["patterns"] += int64(r.StoredPatterns)
				if r.Reused {
					counts["reused"]++
				}
			}
			counts["calls"] += int64(r.Calls)
			counts["input_tokens"] += r.Usage.Input
			counts["output_tokens"] += r.Usage.Output
			counts["cache_read_tokens"] += r.Usage.CacheRead
			counts["cache_write_tokens"] += r.Usage.CacheWrite
			counts["dropped_evidence"] += int64(r.DroppedEvidence)
			counts["dropped_patterns"] += int64(r.DroppedPatterns)
			counts["scrubbed"] += int64(r.Scrubbed.Total())
		}
		counts["failed"] = int64(len(failed))
		counts["not_started"] = int64(len(rep.NotStarted))
		rep.Counts = counts
		rep.SpentUSD = s.Budget.Spent()
		rep.BudgetExhausted = budgetErr != nil

		status, runErr = shared.LLMOutcome{Fatal: fatal, Budget: budgetErr, MaxCost: opts.MaxCost, Spent: rep.SpentUSD,
			Done: int(counts["done"]), Total: len(users), Unit: "user", Failed: failed, FailedErrs: failedErrs,
			NotStarted: len(rep.NotStarted)}.Result(ctx)
		jobCounts := map[string]any{"spent_usd": rep.SpentUSD}
		for k, v := range counts {
			jobCounts[k] = v
		}
		run.SetStatus(status)
		return jobCounts, runErr
	})
	if status == "" {
		return err // never ran: the lock is held, or the run could not be recorded
	}
	if status == db.RunInterrupted {
		return runErr
	}
	if perr := writeLLM(opts, rep); perr != nil {
		return perr
	}
	return runErr
}

// llmWork runs users through s with opts.Concurrency workers. It stops
// handing out users at the first budget stop or fatal error (a rejected key,
// a provider unavailable after its retries): those would fail every user alike.
func llmWork(ctx context.Context, pool *pgxpool.Pool, opts *Options, s *llmsynth.Synthesizer, users []uuid.UUID, runID int64,
	bar *progress.Reporter) (results []llmsynth.UserResult, errs []error, fatal, budget error) {
	results = make([]llmsynth.UserResult, len(users))
	errs = make([]error, len(users))
	var mu sync.Mutex
	stop := false
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(opts.Concurrency, max(len(users), 1)) {
		wg.Go(func() {
			for i := range jobs {
				mu.Lock()
				halt := stop
				mu.Unlock()
				if halt {
					continue // handed out before the stop: not started
				}
				r, err := s.User(ctx, pool, users[i], &runID)
				if ctx.Err() != nil && err != nil {
					continue // interrupted, not failed
				}
				mu.Lock()
				results[i], errs[i] = r, err
				var api *httpretry.APIError
				switch {
				case err == nil:
				case errors.Is(err, llmsynth.ErrBudget):
					stop = true
					if budget == nil {
						budget = err
					}
				case errors.As(err, &api) && api.Auth():
					stop = true
					if fatal == nil {
						fatal = cmdutil.InputError(err)
					}
				case errors.Is(err, httpretry.ErrUnavailable): // exit 4: the error carries its class
					stop = true
					if fatal == nil {
						fatal = err
					}
				}
				mu.Unlock()
				// a user the budget stopped is not started, as the summary says
				bar.Step(users[i].String(), err != nil && !errors.Is(err, llmsynth.ErrBudget))
			}
		})
	}
	for i := range users {
		mu.Lock()
		halt := stop
		mu.Unlock()
		if halt || ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return results, errs, fatal, budget
}

func llmDryRun(ctx context.Context, pool *pgxpool.Pool, opts *Options, s *llmsynth.Synthesizer, url string, users []uuid.UUID, rep *LLMReport) error {
	for _, u := range users {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := s.Prepare(ctx, pool, u)
		if err != nil {
			return fmt.Errorf("user %s: %w", u, err)
		}
		body, err := s.Provider.Body(p.Request)
		if err != nil {
			return err
		}
		rep.DryRun = append(rep.DryRun, DryRunRequest{UserID: u, BriefSHA256: p.Brief.SHA256, Memories: p.Brief.Memories,
			Scrubbed: p.Brief.Scrubbed, URL: url, Body: body})
		if !opts.F.Global.JSON() {
			cmdutil.Fprintf(opts.IO.ErrOut, "dry run: user %s: POST %s (%d memories, %d scrubbed, brief %s)\n",
				u, url, p.Brief.Memories, p.Brief.Scrubbed.Total(), p.Brief.SHA256[:12])
			if _, err := opts.IO.Out.Write(append(body, '\n')); err != nil {
				return err
			}
		}
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, rep)
	}
	return nil
}

func writeLLM(opts *Options, rep *LLMReport) error {
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, rep)
	}
	tp := tableprinter.New(opts.IO.Out, opts.IO.IsStdoutTTY())
	tp.Header("USER", "TYPE", "CONFIDENCE", "EVIDENCE", "TITLE")
	rows := 0
	for _, u := range rep.Users {
		for _, p := range u.Patterns {
			tp.Row(u.UserID.String(), p.Type, fmt.Sprintf("%.2f", p.Confidence), strconv.Itoa(len(p.Evidence)), p.Title)
			rows++
		}
	}
	if rows > 0 {
		if err := tp.Render(); err != nil {
			return err
		}
	}
	c := rep.Counts
	limit := ""
	if rep.MaxCost > 0 {
		limit = " of --max-cost " + cmdutil.Money(rep.MaxCost)
	}
	cmdutil.Fprintf(opts.IO.ErrOut, "%s: %d of %s done (%d reused), %s, %s, %d input + %d output + %d cache-read + %d cache-write tokens, spent %s%s\n",
		rep.Model, c["done"], cmdutil.Count(c["users"], "user", ""), c["reused"], cmdutil.Count(c["patterns"], "pattern", ""), cmdutil.Count(c["calls"], "call", ""),
		c["input_tokens"], c["output_tokens"], c["cache_read_tokens"], c["cache_write_tokens"], cmdutil.Money(rep.SpentUSD), limit)
	return nil
}

// llmEnqueue queues one synthesize_llm job per user; the worker resolves the
// model and reaches the provider with its own llm.* settings.
func llmEnqueue(ctx context.Context, opts *Options) error {
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	filter := synthstore.Filter{Since: opts.since, Limit: opts.Limit}
	users := []uuid.UUID{opts.user}
	if opts.AllUsers {
		if users, err = synthstore.Users(ctx, pool, filter); err != nil {
			return err
		}
	}
	args := make([]queue.SynthesizeLLMArgs, len(users))
	for i, u := range users {
		args[i] = queue.SynthesizeLLMArgs{UserID: u, Model: opts.Model, ModelUnlisted: opts.ModelUnlisted, Types: opts.types,
			Since: opts.since, Limit: opts.Limit, Params: opts.params()}
	}
	res, err := queue.Insert(ctx, pool, args, queue.PriorityFor(!opts.AllUsers, opts.Priority))
	if err != nil {
		return err
	}
	if opts.F.Global.JSON() {
		return cmdutil.WriteJSON(opts.IO.Out, res)
	}
	_, err = fmt.Fprintln(opts.IO.Out, res.Summary())
	return err
}
