// Package worker implements `helix worker`: a long-running process that works
// helix's River jobs; any number of them, on any hosts, share one database.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/embed"
	"github.com/helixhq/helix/internal/jobrun"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/llmsynth"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/notify"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/retention"
	"github.com/helixhq/helix/internal/schedule"
	"github.com/helixhq/helix/internal/syncer"
	"github.com/helixhq/helix/internal/synthesis/synthstore"
	"github.com/helixhq/helix/internal/voice/stt"
)

// Options are the inputs of `worker`.
type Options struct {
	F *cmdutil.Factory

	Queues          []string
	Concurrency     int
	ShutdownTimeout time.Duration
	Once            bool
	JobTimeout      time.Duration
	RescueAfter     time.Duration
	PollInterval    time.Duration
	FetchCooldown   time.Duration
	ScheduleGrace   time.Duration
	ScheduleTimeout time.Duration
	Listen          string
	MetricsKinds    int
}

// DefaultMetricsKinds bounds the kinds helix_queue_jobs shows: helix's own
// job kinds (about fifteen) fit, with room for others sharing the table.
const DefaultMetricsKinds = 25

// NewCmdWorker builds `helix worker`.
func NewCmdWorker(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f}
	cmd := &cobra.Command{
		Annotations: map[string]string{cmdutil.AnnotationService: "true"},
		Use:         "worker",
		Short:       "Work queued jobs (River) until stopped",
		Long: `Work the jobs that fan-out commands enqueue (synthesize --all-users --enqueue):
one job per unit of work, stored in River's tables in helix's database. Any
number of workers, on any number of hosts, share the queue; each job is
worked by one of them, and a job completes in the transaction that writes
its results.

Job kinds (queue: unit; the README's job table has their run names and
locks): synthesize (synthesize: one user), synthesize_users (synthesize: a
batch of users), synthesize_llm
(llm: one user), embed (embed: one user), decay (decay: one id range),
voice_transcribe (voice: one recording), sync_reconcile (sync: one
partition of the entities), catalog_fetch (catalog: one source),
manifest_import (manifest: one URL), notify_deliver (notify: one event for
one webhook of notify.webhook-url). Providers, keys and limits are this
worker's settings (config file, HELIX_* environment), never the job's; a
bad notify.* setting is exit 2 at startup. A job discarded after its
retries is told to the webhooks (README, Notifications).

helix schedule: every worker of queue schedule_tick enqueues a tick pass
every second (one is queued at a time, whoever inserts it) that turns due
ticks into fires (schedule_fire, queue schedule), each running its job as a
child process of this binary with this environment; --schedule-grace
bounds how late a tick may fire.

SIGTERM or SIGINT stops fetching; running jobs get --shutdown-timeout to
finish, then are cancelled and given back to the queue (retried later);
the worker then exits 0. A worker killed outright (SIGKILL, SIGPIPE, a
lost host) frees its liveness lock with its connection; every live worker
looks every 2 s and gives such a worker's running jobs back to the queue
(a schedule fire after 30 s, the time its SIGTERMed job has to stop; a tick
pass is discarded, the next comes a second later), forgets it as River's
leader, and closes its job_runs rows. So a crash delays the schedules by a
few seconds at most. Workers of older helix versions hold no such lock:
River rescues their jobs after --rescue-after.

--listen serves /healthz (alive), /readyz (database answers, schema
current, client started and not draining: 503 from the moment SIGTERM
arrives) and /metrics (Prometheus) on loopback (PORT) or HOST:PORT; see
"Running the fleet" in the README.

--once works until the queues are empty, then exits (tests, cron-only setups).
--concurrency is per queue. Each running job holds one connection (a
synthesize_users job two: one streams its users' memories), River 3 more;
with db.max-conns unset the worker's pool is that size (44 with the
defaults: connections are opened as jobs run, not up front), and the
worker says at startup how many it needs and has.
Through a session pooler each of these is one of the pooler's server
connections: the pooler's pool size must cover db.max-conns of every worker
plus whatever else uses it. With db.max-conns unset, a worker whose session
pooler cannot lend it that many takes half of what it lends, running fewer
jobs at once, or refuses to start (exit 4) naming what it was lent. Through a transaction pooler River polls
(--poll-interval) instead of LISTEN.

EXAMPLES
  helix worker
  helix worker --queues synthesize --concurrency 8 --shutdown-timeout 2m
  helix synthesize --all-users --enqueue && helix worker --once
  helix worker --listen 9464                # http://127.0.0.1:9464/metrics

` + cmdutil.ServiceExitStatus(cmdutil.ExitFailed, cmdutil.ExitUsage, cmdutil.ExitUnavailable, cmdutil.ExitInterrupted),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return workerRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.Queues, "queues", queue.Queues, "queues to work, comma-separated")
	fl.IntVar(&opts.Concurrency, "concurrency", 4, "jobs worked at once per queue")
	fl.DurationVar(&opts.ShutdownTimeout, "shutdown-timeout", 30*time.Second, "on SIGTERM, how long running jobs get to finish before they are given back")
	fl.BoolVar(&opts.Once, "once", false, "work until the queues are empty, then exit")
	fl.DurationVar(&opts.JobTimeout, "job-timeout", 10*time.Minute, "a job running longer is cancelled and retried")
	fl.DurationVar(&opts.RescueAfter, "rescue-after", time.Hour, "a job running this long (its worker died) is given to another worker; must exceed --job-timeout")
	fl.DurationVar(&opts.PollInterval, "poll-interval", time.Second, "how often to look for jobs besides LISTEN/NOTIFY")
	// River's default (100 ms) caps a worker at 10 fetches a second, i.e. 10
	// jobs a second per free slot: far below a user's few milliseconds of work.
	fl.DurationVar(&opts.FetchCooldown, "fetch-cooldown", 2*time.Millisecond, "least time between two fetches of jobs")
	fl.DurationVar(&opts.ScheduleTimeout, "schedule-timeout", schedule.DefaultTimeout, "a scheduled job running longer is stopped and its fire failed; a dead worker's fire runs again after this")
	fl.StringVar(&opts.Listen, "listen", "", "serve /healthz, /readyz and /metrics on PORT (loopback) or HOST:PORT; off when empty")
	fl.IntVar(&opts.MetricsKinds, "metrics-kinds", DefaultMetricsKinds, "helix_queue_jobs shows this many kinds, those with the most jobs; the others are summed as kind=\"other\"")
	fl.DurationVar(&opts.ScheduleGrace, "schedule-grace", time.Minute, "a schedule's tick fired later than this (at most its period) was missed: see helix schedule add --catch-up")
	return cmd
}

func (o *Options) validate() error {
	for _, q := range o.Queues {
		if !slices.Contains(queue.Queues, q) {
			return cmdutil.FlagErrorf("unknown queue %q: helix has %s", q, strings.Join(queue.Queues, ", "))
		}
	}
	switch {
	case len(o.Queues) == 0:
		return cmdutil.FlagErrorf("--queues is empty")
	case o.Concurrency < 1:
		return cmdutil.FlagErrorf("invalid --concurrency %d: want 1 or more", o.Concurrency)
	case o.ShutdownTimeout < 0:
		return cmdutil.FlagErrorf("invalid --shutdown-timeout %s", o.ShutdownTimeout)
	case o.JobTimeout <= 0:
		return cmdutil.FlagErrorf("invalid --job-timeout %s", o.JobTimeout)
	case o.RescueAfter <= o.JobTimeout:
		return cmdutil.FlagErrorf("--rescue-after (%s) must exceed --job-timeout (%s)", o.RescueAfter, o.JobTimeout)
	case o.PollInterval < time.Millisecond:
		return cmdutil.FlagErrorf("invalid --poll-interval %s", o.PollInterval)
	case o.FetchCooldown < time.Millisecond || o.FetchCooldown > o.PollInterval:
		return cmdutil.FlagErrorf("invalid --fetch-cooldown %s: want 1ms to --poll-interval", o.FetchCooldown)
	case o.ScheduleTimeout < time.Second:
		return cmdutil.FlagErrorf("invalid --schedule-timeout %s: want 1s or more", o.ScheduleTimeout)
	case o.ScheduleGrace < time.Second:
		return cmdutil.FlagErrorf("invalid --schedule-grace %s: want 1s or more", o.ScheduleGrace)
	case o.MetricsKinds < 1 || o.MetricsKinds > 1000:
		return cmdutil.FlagErrorf("invalid --metrics-kinds %d: want 1 to 1000", o.MetricsKinds)
	}
	if o.Listen != "" {
		addr, err := listenAddr(o.Listen)
		if err != nil {
			return err
		}
		o.Listen = addr
	}
	return nil
}

func workerRun(ctx context.Context, opts *Options) error {
	f := opts.F
	log := f.Logger()
	// db.max-conns' general default (8) is a job's; a worker's need is its
	// queues' (44 with the defaults): unless db.max-conns is set, the
	// worker's pool is sized to it, so that its defaults agree.
	need := ConnsNeeded(opts.Queues, opts.Concurrency)
	sized := false
	if cfg, err := f.Config(); err == nil && cfg.Source("db.max-conns") == "default" {
		cfg.SetDefault("db.max-conns", need)
		sized = true
	}
	pool, err := f.DB(ctx)
	if err != nil {
		return err
	}
	var (
		slots    chan struct{} // jobs at once across queues, when the pool is smaller than need
		childEnv []string      // settings of the schedule fires' processes
	)
	if sized && db.PathOf(pool) == db.PathSession {
		b, err := sessionBudget(ctx, pool, opts.Queues, need, log)
		if err != nil {
			return err
		}
		// The fires' processes need not probe: this worker knows the path.
		childEnv = append(childEnv, "HELIX_DB_POOL_MODE=session")
		if b.maxConns < need {
			small, err := db.Resize(ctx, pool, int32(b.maxConns))
			if err != nil {
				return err
			}
			defer small.Close()
			pool = small
			slots = make(chan struct{}, b.jobs)
			childEnv = append(childEnv, fmt.Sprintf("HELIX_DB_MAX_CONNS=%d", fireConns))
		}
	}
	queues := map[string]river.QueueConfig{}
	for _, q := range opts.Queues {
		queues[q] = river.QueueConfig{MaxWorkers: opts.Concurrency}
	}
	var obs *observer
	if opts.Listen != "" {
		if obs, err = newObserver(opts.Listen, pool, opts.Queues, opts.MetricsKinds, log); err != nil {
			return err
		}
		defer obs.close()
	}
	ns, err := fromConfig(f, shared.NotifySettings)
	if err != nil {
		return err
	}
	keep, err := fromConfig(f, shared.Retention)
	if err != nil {
		return err
	}
	outbox := notify.OutboxOf(ns, log.With("component", "notify"))
	ws := workers(f, pool, ns)
	if err := addSchedules(ws, opts, pool, log, obs, outbox, childEnv); err != nil {
		return err
	}
	// Through a transaction pooler LISTEN is lost with the transaction that
	// ran it: River polls instead (said once, here).
	pollOnly := db.PathOf(pool) == db.PathTransaction
	if pollOnly {
		log.Info("transaction pooler: River polls for jobs every --poll-interval instead of LISTEN/NOTIFY", "poll_interval", opts.PollInterval.String())
	}
	if max := pool.Config().MaxConns; slots != nil {
		// sessionBudget said why, and what to change
	} else if int(max) < need {
		log.Warn("worker connection budget: db.max-conns is below what this worker needs, jobs will wait for connections",
			"needs", need, "max_conns", max, "hint", fmt.Sprintf("set HELIX_DB_MAX_CONNS=%d, or lower --concurrency or --queues (and leave the session pooler's pool_size room for it)", need))
	} else {
		how := "db.max-conns"
		if sized {
			how = "sized to the need (db.max-conns unset)"
		}
		log.Info("worker connection budget", "needs", need, "max_conns", max, "from", how, "path", db.PathOf(pool).String())
	}
	id := queue.NewClientID(time.Now())
	release, err := queue.Alive(ctx, pool, id, log)
	if err != nil {
		return err
	}
	defer release()
	cfg := &river.Config{
		ID:                   id,
		PollOnly:             pollOnly,
		Queues:               queues,
		Workers:              ws,
		JobTimeout:           opts.JobTimeout,
		RescueStuckJobsAfter: opts.RescueAfter,
		FetchPollInterval:    opts.PollInterval,
		FetchCooldown:        opts.FetchCooldown,
		Logger:               log.With("component", "river"),
		// River's job cleaner (on the leader) deletes its finished jobs.
		CompletedJobRetentionPeriod: retention.River(keep.CompletedJobs),
		CancelledJobRetentionPeriod: retention.River(keep.CancelledJobs),
		DiscardedJobRetentionPeriod: retention.River(keep.DiscardedJobs),
	}
	if obs != nil {
		cfg.Middleware = append(cfg.Middleware, obs.m.Middleware())
	}
	cfg.Middleware = append(cfg.Middleware, outbox.Middleware(pool, f.Now))
	if slots != nil {
		cfg.Middleware = append(cfg.Middleware, &jobSlots{slots: slots})
	}
	client, err := river.NewClient(riverpgxv5.New(pool), cfg)
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	if obs != nil {
		if err := obs.attach(client); err != nil {
			return err
		}
	}
	// River's services must outlive ctx: a signal should stop it gracefully
	// (Stop below), not tear it down mid-job.
	runCtx := context.WithoutCancel(ctx)
	if err := client.Start(runCtx); err != nil {
		return fmt.Errorf("worker: start: %w", err)
	}
	if obs != nil {
		obs.started(client.Stopped())
	}
	log.Info("worker started", "queues", strings.Join(opts.Queues, ","), "concurrency", opts.Concurrency)
	go maintain(runCtx, client.Stopped(), pool, log, keep)
	if !opts.Once && slices.Contains(opts.Queues, queue.QueueScheduleTick) {
		go schedule.Ticker(ctx, client, log.With("component", "schedule"))
	}

	if opts.Once {
		if err := drain(ctx, pool, opts.Queues, opts.PollInterval); err != nil && ctx.Err() == nil {
			_ = client.StopAndCancel(runCtx)
			return err
		}
	} else {
		<-ctx.Done()
	}
	if obs != nil {
		obs.drain() // not ready before anything else: routing stops first
	}
	log.Info("worker stopping", "shutdown_timeout", opts.ShutdownTimeout.String())
	stopCtx, cancel := context.WithTimeout(runCtx, opts.ShutdownTimeout)
	defer cancel()
	if err := client.Stop(stopCtx); err != nil {
		if !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("worker: stop: %w", err)
		}
		// Time is up: cancel what still runs; River records those jobs as
		// errored and retryable, so another worker takes them.
		log.Warn("shutdown timeout: giving running jobs back to the queue")
		hard, cancel := context.WithTimeout(runCtx, 30*time.Second)
		defer cancel()
		if err := client.StopAndCancel(hard); err != nil {
			return fmt.Errorf("worker: stop: %w", err)
		}
	}
	if _, err := jobrun.Reap(runCtx, pool); err != nil {
		log.Warn("reap job_runs", "err", err)
	}
	log.Info("worker stopped")
	return nil
}

// budget is what a worker takes of a session pooler.
type budget struct {
	maxConns int // its pool
	jobs     int // jobs at once across its queues (schedule_tick's passes aside)
}

// sessionBudget is what a worker whose db.max-conns is unset takes through
// a session pooler, where every connection helix holds, idle or not, is one
// of the pooler's few server connections: what its queues need when the
// pooler lends that many at its start, or else half of what it lends (the
// other half is left to another worker and the platform's other clients),
// its own pool and its schedule fires' processes (fireConns each) together. Less than one job's
// worth is a refusal naming the pooler, what it lends and the settings to
// change: the worker would otherwise start and stall, River's fetches
// timing out while the pooler's clients wait for each other.
func sessionBudget(ctx context.Context, pool *pgxpool.Pool, queues []string, need int, log *slog.Logger) (budget, error) {
	lent, err := db.Measured(ctx, pool, need, lendWait)
	if err != nil {
		return budget{}, err
	}
	if lent >= need {
		return budget{maxConns: need}, nil
	}
	overhead, perJob := riverConns, 1
	if slices.Contains(queues, queue.QueueScheduleTick) {
		overhead++ // one tick pass at a time
	}
	if slices.Contains(queues, queue.QueueSchedule) {
		perJob += fireConns // a job may be a fire, whose process connects too
	}
	jobs := (lent/2 - overhead) / perJob
	if jobs < 1 {
		return budget{}, cmdutil.UnavailableError(fmt.Errorf("worker: the session pooler lends %d server connections now (its pool size less what others hold); this worker takes at most half and needs %d for one job at a time (River's %d, %d a job with its schedule fire's process): raise the pooler's pool size (PgBouncer default_pool_size; Supabase: Database settings, pool size), set db.max-conns (HELIX_DB_MAX_CONNS) to take more, or use the transaction pooler (Supabase: port 6543)",
			lent, overhead+perJob, overhead, perJob))
	}
	b := budget{maxConns: overhead + jobs, jobs: jobs}
	if b.maxConns >= need {
		return budget{maxConns: need}, nil
	}
	log.Warn("worker connection budget: the session pooler lends fewer connections than this worker's queues need; it takes half and runs fewer jobs at once",
		"lent", lent, "needs", need, "max_conns", b.maxConns, "jobs_at_once", b.jobs, "fire_max_conns", fireConns,
		"hint", fmt.Sprintf("raise the pooler's pool size, or set db.max-conns (HELIX_DB_MAX_CONNS=%d) with a pool to fit", need))
	return b, nil
}

// fireConns is db.max-conns of a schedule fire's process when its worker
// runs on a share of a session pooler.
const fireConns = 2

// lendWait is how long sessionBudget waits for the pooler to lend each
// connection it asks for.
const lendWait = 2 * time.Second

// jobSlots caps the jobs a worker runs at once across its queues when its
// pool is smaller than its queues' need: a job waits here, not for a
// connection River's own fetches and completions need.
type jobSlots struct {
	river.MiddlewareDefaults
	slots chan struct{}
}

func (j *jobSlots) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	if job.Queue == queue.QueueScheduleTick {
		return doInner(ctx) // counted apart: one at a time, and fires wait for it
	}
	select {
	case j.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-j.slots }()
	return doInner(ctx)
}

// riverConns are the connections River's own services hold at once at most
// (leader election, fetching, completing, the maintenance services).
const riverConns = 3

// ConnsNeeded is how many pooled connections a worker with these queues and
// --concurrency uses at most: one per running job (two for the synthesize
// queue, whose synthesize_users jobs stream memories beside their writes),
// plus River's own.
func ConnsNeeded(queues []string, concurrency int) int {
	n := riverConns
	for _, q := range queues {
		switch q {
		case queue.QueueScheduleTick: // one small tick pass at a time
			n++
		case jobs.QueueNotify: // a delivery is one POST: it holds no connection

		case queue.QueueSynthesize:
			n += 2 * concurrency
		default:
			n += concurrency
		}
	}
	return n
}

// workers registers every job kind; providers and limits come from this
// process's settings (config file, HELIX_* environment), never from jobs.
func workers(f *cmdutil.Factory, pool *pgxpool.Pool, ns notify.Settings) *river.Workers {
	log := f.Logger()
	return queue.Workers(&queue.Deps{
		Pool: pool, Now: f.Now, Log: log, UserAgent: "helix/" + f.AppVersion,
		Notify:   func() (notify.Settings, error) { return ns, nil },
		HTTP:     netguard.Client,
		ExitCode: func(err error) int { return int(cmdutil.Code(err)) },
		Embedder: func(model string) (embed.Embedder, error) {
			cfg, hc, err := settings(f)
			if err != nil {
				return nil, err
			}
			c := shared.EmbedClient(cfg, hc, model)
			if c == nil {
				return nil, shared.ErrNoEmbedProvider
			}
			return c, nil
		},
		LLM: func(ctx context.Context, a queue.SynthesizeLLMArgs) (*llmsynth.Synthesizer, error) {
			cfg, hc, err := settings(f)
			if err != nil {
				return nil, err
			}
			s, _, _, err := shared.NewSynthesizer(ctx, cfg, pool, shared.LLMSettings{Model: a.Model, ModelUnlisted: a.ModelUnlisted,
				Types: a.Types, Params: a.Params, Filter: synthstore.Filter{Since: a.Since, Limit: a.Limit}}, hc, f.Now,
				func(msg string) { log.Debug(msg) })
			return s, err
		},
		STT: func(provider string) (stt.Provider, error) {
			cfg, hc, err := settings(f)
			if err != nil {
				return nil, err
			}
			return shared.STTProvider(cfg, hc, provider)
		},
		Strategies: func() (map[string]syncer.Strategy, error) {
			cfg, err := f.Config()
			if err != nil {
				return nil, err
			}
			return shared.SyncStrategies(cfg)
		},
		ManifestMaxima: func() (manifest.Maxima, error) {
			cfg, err := f.Config()
			if err != nil {
				return manifest.Maxima{}, err
			}
			return shared.ManifestMaxima(cfg)
		},
	})
}

// fromConfig reads one group of the worker's settings (notify.*,
// retention.*) with read; a bad one is exit 2.
func fromConfig[T any](f *cmdutil.Factory, read func(*config.Config) (T, error)) (T, error) {
	cfg, err := f.Config()
	if err != nil {
		var zero T
		return zero, cmdutil.InputError(err)
	}
	v, err := read(cfg)
	if err != nil {
		return v, cmdutil.InputError(err)
	}
	return v, nil
}

func settings(f *cmdutil.Factory) (*config.Config, *http.Client, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, nil, err
	}
	hc, err := f.HTTPClient()
	return cfg, hc, err
}

// drain waits until no job of the queues is available, running or due soon
// (a retry or snooze within a few seconds).
func drain(ctx context.Context, pool *pgxpool.Pool, queues []string, every time.Duration) error {
	t := time.NewTicker(max(every/4, 50*time.Millisecond))
	defer t.Stop()
	idle := 0
	for {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE queue = ANY($1)
			AND (state IN ('available', 'running', 'pending')
			     OR (state IN ('retryable', 'scheduled') AND scheduled_at < now() + interval '30 seconds'))`, queues).Scan(&n)
		if err != nil {
			return err
		}
		// Two empty looks in a row: a job between fetch and start is counted
		// as available or running, so one is enough; two is for the clock.
		if n == 0 {
			if idle++; idle >= 2 {
				return nil
			}
		} else {
			idle = 0
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// MaintainEvery is queue.MaintainEvery.
const MaintainEvery = queue.MaintainEvery

// maintain runs the worker's housekeeping every MaintainEvery while it
// runs: workers are where processes get killed, and every live one looks.
func maintain(ctx context.Context, stopped <-chan struct{}, pool *pgxpool.Pool, log *slog.Logger, keep retention.Policy) {
	// Each pass is bounded, and ends when the client stops: a housekeeping
	// query blocked (river_job locked by someone, say) must not keep one of
	// the pool's connections from the jobs and from the shutdown.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-stopped:
			cancel()
		case <-ctx.Done():
		}
	}()
	t := time.NewTicker(MaintainEvery)
	defer t.Stop()
	go prune(ctx, pool, log, keep)
	for {
		pass, done := context.WithTimeout(ctx, maintainTimeout)
		if orphans, err := queue.RescueOrphans(pass, pool); err != nil && ctx.Err() == nil {
			log.Warn("give back dead workers' jobs", "error", err)
		} else {
			for _, o := range orphans {
				log.Info("gave back a dead worker's job", "job", o.ID, "kind", o.Kind, "worker", o.Worker, "state", o.State)
			}
		}
		if gone, err := queue.ForgetDeadLeader(pass, pool); err != nil && ctx.Err() == nil {
			log.Warn("forget a dead leader", "error", err)
		} else if gone {
			log.Info("forgot the dead leader: the next election picks a live worker")
		}
		if n, err := jobrun.Reap(pass, pool); err != nil && ctx.Err() == nil {
			log.Warn("reap job_runs", "err", err)
		} else if n > 0 {
			log.Info("closed job_runs rows of dead processes", "rows", n)
		}
		done()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// PruneEvery is how often a worker deletes the job_runs rows and schedule
// fires older than retention.job-runs and retention.schedule-fires.
const PruneEvery = 5 * time.Minute

// prune deletes the run and fire history keep no longer keeps, every
// PruneEvery until ctx ends (River's job cleaner prunes River's jobs). It
// has its own goroutine: after a million-user night its batches may take
// longer than a housekeeping pass may.
func prune(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger, keep retention.Policy) {
	keep.CompletedJobs, keep.CancelledJobs, keep.DiscardedJobs = 0, 0, 0
	t := time.NewTicker(PruneEvery)
	defer t.Stop()
	for {
		pass, done := context.WithTimeout(ctx, PruneEvery)
		res, err := retention.Prune(pass, pool, keep, time.Now(), false)
		done()
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("prune job_runs and schedule fires", "err", err)
		case res.Total() > 0:
			log.Info("pruned finished job history", "job_runs", res.JobRuns, "schedule_fires", res.ScheduleFires)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// maintainTimeout bounds one housekeeping pass.
const maintainTimeout = 5 * MaintainEvery

// addSchedules registers helix schedule's workers (issue 16): fires run the
// job's command line with this binary and environment. A --once worker
// drains the queues and does not tick (schedule.Ticker): its tick passes
// would never let them empty.
func addSchedules(ws *river.Workers, opts *Options, pool *pgxpool.Pool, log *slog.Logger, obs *observer, outbox *notify.Outbox, childEnv []string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("worker: find the helix binary for scheduled jobs: %w", err)
	}
	env := os.Environ()
	if opts.F.Global.ConfigFile != "" {
		env = append(env, "HELIX_CONFIG="+opts.F.Global.ConfigFile)
	}
	env = append(env, childEnv...)
	sc := schedule.Config{Pool: pool, Now: opts.F.Now, Log: log.With("component", "schedule"),
		Grace: opts.ScheduleGrace, Timeout: opts.ScheduleTimeout, Exe: exe, Env: env, KillAfter: 25 * time.Second, Outbox: outbox,
		CheckJob: func(argv []string) error {
			if opts.F.JobTree == nil {
				return errors.New("no command tree to check the job line against")
			}
			_, err := shared.ValidateJob(opts.F.JobTree(), argv)
			return err
		}}
	if obs != nil {
		sc.Observe = obs.m.ScheduleFire
	}
	schedule.AddWorkers(ws, sc)
	return nil
}
