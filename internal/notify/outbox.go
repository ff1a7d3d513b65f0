package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/netguard"
)

// DeliverArgs is one event for one webhook: the outbox. The webhook is
// named by its ID, never its URL (which is a secret for Slack and Discord).
type DeliverArgs struct {
	Target string `json:"target"` // Target.ID
	Format string `json:"format"`
	Event  Event  `json:"event"`
}

// Kind names the job in river_job.kind.
func (DeliverArgs) Kind() string { return jobs.KindNotifyDeliver }

// InsertOpts puts the job on the notify queue with the table's attempts.
func (DeliverArgs) InsertOpts() river.InsertOpts {
	j := jobs.MustLookup(jobs.KindNotifyDeliver)
	return river.InsertOpts{Queue: j.Queue, MaxAttempts: j.Attempts}
}

// Outbox inserts notification jobs: one per event and webhook. The zero
// Outbox (no webhooks) inserts nothing.
type Outbox struct {
	Targets []Target
	Log     *slog.Logger
}

// OutboxOf is the outbox of s.
func OutboxOf(s Settings, log *slog.Logger) *Outbox { return &Outbox{Targets: s.Targets, Log: log} }

func (o *Outbox) params(ev Event) []river.InsertManyParams {
	ps := make([]river.InsertManyParams, len(o.Targets))
	for i, t := range o.Targets {
		ps[i] = river.InsertManyParams{Args: DeliverArgs{Target: t.ID(), Format: t.Format, Event: ev}}
	}
	return ps
}

// InsertTx inserts ev's jobs inside tx, in a savepoint: they commit with the
// event, and a failure to insert them is logged, never the event's failure
// (a notification must not fail the job that caused it).
func (o *Outbox) InsertTx(ctx context.Context, tx pgx.Tx, ev Event) {
	if o == nil || len(o.Targets) == 0 {
		return
	}
	err := func() error {
		sp, err := tx.Begin(ctx)
		if err != nil {
			return err
		}
		// A client without a pool inserts only in the transactions given it.
		c, err := river.NewClient(riverpgxv5.New(nil), &river.Config{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			_ = sp.Rollback(ctx)
			return err
		}
		if _, err := c.InsertManyTx(ctx, sp, o.params(ev)); err != nil {
			_ = sp.Rollback(ctx)
			return err
		}
		return sp.Commit(ctx)
	}()
	if err != nil {
		o.logger().Warn("notification not queued", "kind", ev.Kind, "subject", ev.Subject, "err", err)
	}
}

// Insert inserts ev's jobs in a transaction of their own (an event that has
// none: a job discarded, a broken audit chain).
func (o *Outbox) Insert(ctx context.Context, pool *pgxpool.Pool, ev Event) error {
	if o == nil || len(o.Targets) == 0 {
		return nil
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	c, err := river.NewClient(riverpgxv5.New(nil), &river.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	if _, err := c.InsertManyTx(ctx, tx, o.params(ev)); err != nil {
		return fmt.Errorf("queue notification %s: %w", ev.Kind, err)
	}
	return tx.Commit(ctx)
}

func (o *Outbox) logger() *slog.Logger {
	if o.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Log
}

// DeliverWorker works DeliverArgs: one POST. A 2xx completes the job, so a
// receiver is sent an event once; a 5xx, 408, 429 or network error is
// retried (NextRetry); a refused address, a 4xx or a webhook no longer
// configured cancels it.
type DeliverWorker struct {
	river.WorkerDefaults[DeliverArgs]
	// Settings are the worker's notify.* settings (read when a job runs).
	Settings func() (Settings, error)
	// HTTP, if set, replaces netguard.Client (tests).
	HTTP func(allowPrivate bool, timeout time.Duration) *http.Client
	Log  *slog.Logger
	// RetryBase is NextRetry's first delay; 0: the settings' (5s default).
	RetryBase time.Duration
}

// NextRetry: RetryBase, doubled each attempt, capped at 30 minutes.
func (w *DeliverWorker) NextRetry(job *river.Job[DeliverArgs]) time.Time {
	base := w.RetryBase
	if base <= 0 && w.Settings != nil {
		if s, err := w.Settings(); err == nil {
			base = s.RetryBase
		}
	}
	if base <= 0 {
		base = defaultRetryBase
	}
	return time.Now().Add(Backoff(base, job.Attempt))
}

// Backoff is the delay before retry attempt (1-based): base·2^(attempt-1), capped.
func Backoff(base time.Duration, attempt int) time.Duration {
	d := base
	for i := 1; i < attempt && d < maxRetryDelay; i++ {
		d *= 2
	}
	return min(d, maxRetryDelay)
}

// Timeout bounds one delivery.
func (w *DeliverWorker) Timeout(*river.Job[DeliverArgs]) time.Duration { return time.Minute }

// Work delivers one event to one webhook.
func (w *DeliverWorker) Work(ctx context.Context, job *river.Job[DeliverArgs]) error {
	if w.Settings == nil {
		return river.JobCancel(fmt.Errorf("notify: this worker has no notify settings"))
	}
	s, err := w.Settings()
	if err != nil {
		return err
	}
	t, ok := s.Target(job.Args.Target)
	if !ok {
		return river.JobCancel(fmt.Errorf("webhook %s is no longer in notify.webhook-url", job.Args.Target))
	}
	hc := s.Client()
	if w.HTTP != nil {
		hc = w.HTTP(s.AllowPrivate, s.Timeout)
	}
	status, err := Send(ctx, hc, t, job.Args.Event)
	if err != nil {
		if netguard.Permanent(err) {
			return river.JobCancel(err)
		}
		return err
	}
	if w.Log != nil {
		w.Log.Info("notification delivered", "kind", job.Args.Event.Kind, "webhook", t.Display(), "status", status)
	}
	return nil
}

// Middleware gives every job the outbox (WithOutbox: the manifest store's
// events), and tells the webhooks of a job River will discard: its last
// attempt failed (not cancelled, not snoozed). The event is queued after the
// attempt, in a transaction of its own: River records the discard itself,
// outside any transaction of the job. A notify_deliver job discarded is only
// logged (no notification of a notification).
func (o *Outbox) Middleware(pool *pgxpool.Pool, now func() time.Time) rivertype.WorkerMiddleware {
	return &discarded{o: o, pool: pool, now: now}
}

type discarded struct {
	river.MiddlewareDefaults
	o    *Outbox
	pool *pgxpool.Pool
	now  func() time.Time
}

func (d *discarded) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	err := doInner(WithOutbox(ctx, d.o))
	if err == nil || job.Kind == jobs.KindNotifyDeliver || job.Attempt < job.MaxAttempts {
		return err
	}
	var cancel *river.JobCancelError
	var snooze *river.JobSnoozeError
	if errors.As(err, &cancel) || errors.As(err, &snooze) {
		return err
	}
	ev := New(KindJobDiscarded, fmt.Sprintf("job %d (%s)", job.ID, job.Kind),
		fmt.Sprintf("discarded after %d attempts: %v", job.Attempt, err), d.now())
	if ierr := d.o.Insert(context.WithoutCancel(ctx), d.pool, ev); ierr != nil {
		d.o.logger().Warn("notification not queued", "kind", ev.Kind, "subject", ev.Subject, "err", ierr)
	}
	return err
}
