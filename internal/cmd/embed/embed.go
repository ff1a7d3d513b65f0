// Package embed implements `helix embed`: fill memories' missing embeddings
// through an OpenAI-compatible embeddings server.
package embed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/catalog"
	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/embed"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/progress"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/tableprinter"
)

// Options are the inputs of `embed`.
type Options struct {
	IO         *iostreams.IOStreams
	JSON       bool
	Config     func() (*config.Config, error)
	DB         func(ctx context.Context) (*pgxpool.Pool, error)
	HTTPClient func() (*http.Client, error)
	Logger     func() *slog.Logger
	Now        func() time.Time
	// Sleep replaces the wait between retries (tests).
	Sleep func(ctx context.Context, d time.Duration) error

	UserID         cmdutil.UserID
	AllUsers       bool
	Model          string
	Reembed        bool
	BatchSize      int
	BatchTokens    int
	MaxInputTokens int
	Concurrency    int
	Enqueue        bool
	Priority       int
	DryRun         bool

	user uuid.UUID
}

// NewCmdEmbed builds `helix embed`.
func NewCmdEmbed(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Config: f.Config, DB: f.DB, HTTPClient: f.HTTPClient, Logger: f.Logger, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "embed (--user-id UUID | --all-users)",
		Short: "Fill memories' missing embeddings through an embeddings server",
		Long: `Embed the memories that have no embedding, and those helix recorded as made
by another model, through any server that speaks OpenAI's POST /v1/embeddings
(OpenAI, Ollama, vLLM, LM Studio, a gateway to Voyage…). Each row records the
model (memories.embedding_model) and dimension (memories.embedding_dim) that
made it. --reembed also replaces embeddings whose maker is not recorded (the
platform's own). A re-run finds nothing to do and sends nothing.

Content is scrubbed before it is sent (API keys, tokens, emails, phone and
card numbers, other high-entropy strings), with the scrubber synthesize --llm
uses. Memories without text are skipped and counted.

Requests carry at most --batch-size inputs and --batch-tokens estimated
tokens (one per three bytes, an over-estimate for English), --concurrency at
a time. 429, 5xx and network errors are retried (embed.retries) with
exponential backoff, or after the server's Retry-After. An input estimated
above --max-input-tokens is cut to that length before it is sent; if the
server still answers 400 that an input is too long, its batch is split in two
and resent, and a single input is cut to half its length until accepted: its
embedding then stands for the start of the text (counted as truncated).

Each user is written in one transaction after all of the user's inputs are
embedded: a failure or an interruption writes nothing for that user. The
dimension must agree with the column (pgvector's vector(n)) or, for real[],
with the dimension most of the user's remaining embeddings have; the first
answer that disagrees stops the user with a clear error.

The provider comes from the config file or the environment, never flags:
embed.base-url (HELIX_EMBED_BASE_URL), embed.api-key (HELIX_EMBED_API_KEY or
OPENAI_API_KEY), embed.dimensions, embed.timeout, embed.retries.

EXAMPLES
  HELIX_EMBED_BASE_URL=http://localhost:11434/v1 helix embed --user-id 6f1c… --model nomic-embed-text
  OPENAI_API_KEY=sk-… helix embed --all-users --concurrency 8
  helix embed --user-id 6f1c… --reembed --output json
  helix embed --all-users --reembed --dry-run   # rows, tokens, estimated cost
  helix embed --all-users --enqueue          # one job per user; then: helix worker --queues embed

--dry-run reads what a run would embed and prints the rows, the estimated
tokens and the estimated cost at the pinned model catalog's input price for
--model (null when the catalog has no price for it); nothing is sent, nothing
is written, and no provider setting is needed.

--enqueue queues one job per user with pending rows for helix worker and
returns at once; the worker's own embed.* settings reach the provider, so
the enqueuing host needs none.

` + cmdutil.ExitStatusPartialJob,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.JSON = f.Global.JSON()
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return embedRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	cmdutil.UserIDVar(fl, &opts.UserID, "embed this user's memories (UUID)")
	fl.BoolVar(&opts.AllUsers, "all-users", false, "embed every user's memories, one user after another")
	fl.StringVar(&opts.Model, "model", shared.DefaultEmbedModel, "embedding model, recorded per row; memory search uses the same key (embed.model)")
	fl.BoolVar(&opts.Reembed, "reembed", false, "also replace embeddings whose model is not recorded")
	fl.IntVar(&opts.BatchSize, "batch-size", 128, "inputs per request")
	fl.IntVar(&opts.BatchTokens, "batch-tokens", 100000, "estimated tokens per request")
	fl.IntVar(&opts.MaxInputTokens, "max-input-tokens", 8191, "cut an input estimated longer than this before sending it")
	fl.IntVar(&opts.Concurrency, "concurrency", 4, "requests in flight")
	fl.BoolVar(&opts.Enqueue, "enqueue", false, "queue one job per user for helix worker and return at once")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "count the rows and tokens a run would send and estimate its cost; send nothing")
	cmd.MarkFlagsMutuallyExclusive("dry-run", "enqueue")
	shared.PriorityFlag(cmd, &opts.Priority)
	return cmd
}

func (o *Options) validate() error {
	switch {
	case !o.UserID.Given && !o.AllUsers:
		return cmdutil.FlagErrorf("give --user-id UUID or --all-users")
	case o.UserID.Given && o.AllUsers:
		return cmdutil.FlagErrorf("--user-id and --all-users cannot be used together")
	case o.BatchSize < 1 || o.BatchSize > 2048:
		return cmdutil.FlagErrorf("invalid --batch-size %d: use 1 to 2048 (OpenAI's limit per request)", o.BatchSize)
	case o.BatchTokens < 1:
		return cmdutil.FlagErrorf("invalid --batch-tokens %d", o.BatchTokens)
	case o.MaxInputTokens < 1:
		return cmdutil.FlagErrorf("invalid --max-input-tokens %d", o.MaxInputTokens)
	case o.Concurrency < 1 || o.Concurrency > 64:
		return cmdutil.FlagErrorf("invalid --concurrency %d: use 1 to 64", o.Concurrency)
	}
	o.user = o.UserID.ID
	return nil
}

// Report is the command's JSON document.
type Report struct {
	RunID  *int64         `json:"run_id"`
	Model  string         `json:"model"`
	Users  []embed.Result `json:"users"`
	Counts map[string]int `json:"counts"`
	Failed []FailedUser   `json:"failed"`
	Took   float64        `json:"seconds"`
}

// FailedUser is a user whose run failed.
type FailedUser struct {
	UserID uuid.UUID `json:"user_id"`
	Error  string    `json:"error"`
}

func embedRun(ctx context.Context, opts *Options) error {
	if opts.Enqueue {
		return enqueue(ctx, opts)
	}
	if opts.DryRun {
		return dryRun(ctx, opts)
	}
	start := time.Now()
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	hc, err := opts.HTTPClient()
	if err != nil {
		return err
	}
	client := shared.EmbedClient(cfg, hc, opts.Model)
	if client == nil {
		return cmdutil.InputError(shared.ErrNoEmbedProvider)
	}
	client.Sleep = opts.Sleep
	pool, users, err := runUsers(ctx, opts, client.Model)
	if err != nil {
		return err
	}
	total, err := embed.CountPending(ctx, pool, users, client.Model, opts.Reembed)
	if err != nil {
		return err
	}
	var status string
	var runErr error
	var rep *Report
	// The run record holds the job's typed args, as a worker's does (the
	// user empty when the run covers all of them).
	job := jobs.MustLookup(jobs.KindEmbed)
	args := queue.EmbedArgs{Model: client.Model, Reembed: opts.Reembed, BatchSize: opts.BatchSize,
		BatchTokens: opts.BatchTokens, MaxInputTokens: opts.MaxInputTokens, Concurrency: opts.Concurrency}
	if !opts.AllUsers {
		args.UserID = opts.UserID.ID
	}
	params := queue.RunParams{Args: args, Units: len(users), Options: map[string]any{"all_users": opts.AllUsers}}
	err = jobrun.Do(ctx, pool, jobrun.Spec{Job: job.Run, Params: params, Lock: job.Lock.Run, RecordSkipped: true, Now: opts.Now}, func(ctx context.Context, run *jobrun.Run) (any, error) {
		log := opts.Logger()
		bar := progress.New(opts.IO.ErrOut, progress.ChooseMode(opts.IO.IsStderrTTY(), opts.JSON), log, "embed", total)
		eo := embed.Options{Model: client.Model, Reembed: opts.Reembed, Batch: embed.BatchOptions{
			BatchSize: opts.BatchSize, BatchTokens: opts.BatchTokens, MaxInputTokens: opts.MaxInputTokens,
			Concurrency: opts.Concurrency, OnBatch: func(n int) { bar.StepN("batch", n, false) },
		}}
		rep = &Report{RunID: &run.ID, Model: client.Model, Users: []embed.Result{}, Failed: []FailedUser{}}
		counts := map[string]int{"users": len(users)}
		var failed []string
		var firstErr error
		var errs []error
		for _, u := range users {
			if ctx.Err() != nil {
				break
			}
			res, err := embed.User(ctx, pool, client, u, eo)
			counts["requests"] += res.Requests
			counts["tokens"] += res.Tokens
			if err != nil {
				if ctx.Err() != nil {
					break
				}
				if firstErr == nil {
					firstErr = err
				}
				failed = append(failed, u.String()+": "+err.Error())
				errs = append(errs, err)
				rep.Failed = append(rep.Failed, FailedUser{UserID: u, Error: err.Error()})
				continue
			}
			rep.Users = append(rep.Users, res)
			counts["pending"] += res.Pending
			counts["embedded"] += res.Embedded
			counts["truncated"] += res.Truncated
			counts["skipped_empty"] += res.SkippedEmpty
			counts["scrubbed"] += res.Scrubbed.Total()
		}
		bar.Finish()
		counts["failed"] = len(failed)
		rep.Counts = counts
		rep.Took = time.Since(start).Seconds()

		status = db.RunOK
		switch {
		case ctx.Err() != nil:
			runErr, status = ctx.Err(), db.RunInterrupted
		case len(failed) > 0 && !opts.AllUsers:
			runErr, status = fmt.Errorf("embed %s: %w", users[0], firstErr), db.RunFailed
		case len(failed) > 0:
			runErr, status = &cmdutil.PartialError{Failed: failed, Total: len(users), Errs: errs}, db.RunPartial
		}
		run.SetStatus(status)
		return counts, runErr
	})
	if status == "" {
		return err // never ran: the lock is held, or the run could not be recorded
	}
	if status == db.RunInterrupted || status == db.RunFailed {
		return runErr
	}
	if err := write(opts, rep); err != nil {
		return err
	}
	return runErr
}

// runUsers opens the database and lists the users a run works on:
// --user-id's, or with --all-users every user with rows to embed for model.
func runUsers(ctx context.Context, opts *Options, model string) (*pgxpool.Pool, []uuid.UUID, error) {
	pool, err := opts.DB(ctx)
	if err != nil {
		return nil, nil, err
	}
	if !opts.AllUsers {
		return pool, []uuid.UUID{opts.user}, nil
	}
	users, err := embed.UsersPending(ctx, pool, model, opts.Reembed)
	return pool, users, err
}

// enqueue queues one embed job per user with pending rows; a user whose job
// is still pending or running is not queued twice.
func enqueue(ctx context.Context, opts *Options) error {
	pool, users, err := runUsers(ctx, opts, opts.Model)
	if err != nil {
		return err
	}
	args := make([]queue.EmbedArgs, len(users))
	for i, u := range users {
		args[i] = queue.EmbedArgs{UserID: u, Model: opts.Model, Reembed: opts.Reembed, BatchSize: opts.BatchSize,
			BatchTokens: opts.BatchTokens, MaxInputTokens: opts.MaxInputTokens, Concurrency: opts.Concurrency}
	}
	res, err := queue.Insert(ctx, pool, args, queue.PriorityFor(!opts.AllUsers, opts.Priority))
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, res)
	}
	_, err = fmt.Fprintln(opts.IO.Out, res.Summary())
	return err
}

func write(opts *Options, rep *Report) error {
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, rep)
	}
	tp := tableprinter.New(opts.IO.Out, opts.IO.IsStdoutTTY())
	tp.Header("USER", "PENDING", "EMBEDDED", "DIMENSION", "REQUESTS", "TRUNCATED", "SKIPPED_EMPTY", "SCRUBBED")
	rows := 0
	for _, u := range rep.Users {
		if u.Pending == 0 && u.SkippedEmpty == 0 {
			continue // nothing to do: the summary line says so
		}
		rows++
		tp.Row(u.UserID.String(), strconv.Itoa(u.Pending), strconv.Itoa(u.Embedded), strconv.Itoa(u.Dimension),
			strconv.Itoa(u.Requests), strconv.Itoa(u.Truncated), strconv.Itoa(u.SkippedEmpty), strconv.Itoa(u.Scrubbed.Total()))
	}
	if rows > 0 {
		if err := tp.Render(); err != nil {
			return err
		}
	}
	c := rep.Counts
	cmdutil.Fprintf(opts.IO.ErrOut, "embedded %s of %s with %s in %s (%.1fs)\n",
		cmdutil.Count(c["embedded"], "memory", "memories"), cmdutil.Count(c["users"]-c["failed"], "user", ""), rep.Model, cmdutil.Count(c["requests"], "request", ""), rep.Took)
	return nil
}

// DryRunReport is what `embed --dry-run` prints: what a run would send.
type DryRunReport struct {
	DryRun bool   `json:"dry_run"`
	Model  string `json:"model"`
	Users  int    `json:"users"`
	Rows   int    `json:"rows"`
	Tokens int    `json:"estimated_tokens"`
	// Cost is Tokens at the catalog's input price; nil when the pinned
	// catalog has no price for the model (a local server's, say).
	Cost *float64 `json:"estimated_cost_usd"`
	// PriceUSDPerMTok is the price used, and Priced names its catalog entry.
	PriceUSDPerMTok *float64 `json:"price_usd_per_mtok"`
	Priced          string   `json:"priced_as,omitempty"`
}

// dryRun counts and prices what a run would embed; it sends nothing.
func dryRun(ctx context.Context, opts *Options) error {
	pool, users, err := runUsers(ctx, opts, opts.Model)
	if err != nil {
		return err
	}
	rep := DryRunReport{DryRun: true, Model: opts.Model, Users: len(users)}
	if rep.Rows, rep.Tokens, err = embed.EstimatePending(ctx, pool, users, opts.Model, opts.Reembed, opts.MaxInputTokens); err != nil {
		return err
	}
	price, key, err := inputPrice(ctx, pool, opts.Model)
	if err != nil {
		return err
	}
	if key != "" {
		cost := float64(rep.Tokens) * price / 1e6
		rep.Cost, rep.PriceUSDPerMTok, rep.Priced = &cost, &price, key
	}
	if opts.JSON {
		return cmdutil.WriteJSON(opts.IO.Out, rep)
	}
	cost := "no price for " + opts.Model + " in the pinned catalog"
	if rep.Cost != nil {
		cost = fmt.Sprintf("estimated %s at $%g per million tokens (%s)", cmdutil.Money(*rep.Cost), price, key)
	}
	_, err = fmt.Fprintf(opts.IO.Out, "dry run: would embed %s of %s with %s, about %s; %s\n",
		cmdutil.Count(rep.Rows, "memory", "memories"), cmdutil.Count(rep.Users, "user", ""), opts.Model, cmdutil.Count(rep.Tokens, "token", ""), cost)
	if err == nil {
		cmdutil.Fprintf(opts.IO.ErrOut, "nothing was sent\n")
	}
	return err
}

// inputPrice finds model's input price (USD per million tokens) in the
// pinned catalog, or the embedded one when none is pinned: under openai
// first (embed's default provider), else the first provider listing it.
func inputPrice(ctx context.Context, pool *pgxpool.Pool, model string) (float64, string, error) {
	var cat catalog.Catalog
	snap, err := catalog.Pinned(ctx, pool)
	switch {
	case errors.Is(err, catalog.ErrNoSnapshot):
		if cat, err = catalog.Fallback(); err != nil {
			return 0, "", err
		}
	case err != nil:
		return 0, "", fmt.Errorf("read the pinned catalog: %w", err)
	default:
		if cat, err = catalog.Load(ctx, pool, snap.ID); err != nil {
			return 0, "", err
		}
	}
	providers := slices.Sorted(maps.Keys(cat))
	if i := slices.Index(providers, "openai"); i > 0 {
		providers = append([]string{"openai"}, slices.Delete(providers, i, i+1)...)
	}
	for _, p := range providers {
		if m := cat[p].Models[model]; m != nil && m.Cost != nil && m.Cost.Input != nil {
			return *m.Cost.Input, p + "/" + model, nil
		}
	}
	return 0, "", nil
}
