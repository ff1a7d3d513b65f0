package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/owner"
)

// Queues. Tick passes get a queue of their own so that long fires (a nightly
// synthesis holds its slot for an hour) never delay the next tick pass.
const (
	QueueTick = jobs.QueueScheduleTick
	QueueFire = jobs.QueueSchedule
)

// TickInterval is how often every worker enqueues a tick pass (see Ticker).
const TickInterval = time.Second

// TickTimeout bounds a tick pass (one transaction over the due schedules,
// milliseconds): a pass stuck longer is cancelled, and the next one, a
// second later, does its work.
const TickTimeout = 30 * time.Second

// TickArgs is one tick pass over every schedule.
type TickArgs struct{}

// Kind names the job in river_job.kind.
func (TickArgs) Kind() string { return jobs.KindScheduleTick }

// InsertOpts keeps one tick pass a TickInterval: River's uniqueness always
// covers running jobs, so it is by period as well as by state, and a pass
// whose worker died blocks only its own second, not its successors (a pass
// is safe beside another: schedules are taken FOR UPDATE SKIP LOCKED and
// fires inserted ON CONFLICT DO NOTHING). A failed pass is not retried, the
// next one comes a second later; a dead worker's pass is discarded by a live
// worker's maintenance (queue.RescueOrphans) once its lease expires.
func (TickArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueTick, MaxAttempts: jobs.MustLookup(jobs.KindScheduleTick).Attempts, UniqueOpts: river.UniqueOpts{ByPeriod: TickInterval, ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning, rivertype.JobStateScheduled,
	}}}
}

// Inserter is the slice of a River client that enqueues a job.
type Inserter interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

// Ticker enqueues a tick pass every TickInterval until ctx ends. Every worker
// that works the tick queue runs it, not only River's elected leader: a
// killed leader's term (up to 15 s) then delays no schedule. Uniqueness
// makes the workers' inserts one pass a TickInterval.
func Ticker(ctx context.Context, ins Inserter, log *slog.Logger) {
	t := time.NewTicker(TickInterval)
	defer t.Stop()
	for {
		if _, err := ins.Insert(ctx, TickArgs{}, nil); err != nil && ctx.Err() == nil {
			log.Warn("enqueue a schedule tick pass", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// FireArgs runs one fire's job.
type FireArgs struct {
	FireID   int64     `json:"fire_id" river:"unique"`
	Schedule string    `json:"schedule"`
	Tick     time.Time `json:"tick"`
}

// Kind names the job in river_job.kind.
func (FireArgs) Kind() string { return jobs.KindScheduleFire }

// InsertOpts makes the job unique per fire (the fire row already is, per
// schedule and tick). Retries are for fires that were interrupted.
func (FireArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueFire, MaxAttempts: jobs.MustLookup(jobs.KindScheduleFire).Attempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// TxInserter is the slice of a River client that enqueues inside a transaction.
type TxInserter interface {
	InsertManyTx(ctx context.Context, tx pgx.Tx, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
}

// PassResult counts what a tick pass did.
type PassResult struct {
	Schedules int // due schedules looked at
	Fires     int // fires made (jobs enqueued)
	Missed    int // instants skipped as missed
}

type dueRow struct {
	id             int64
	name, spec, tz string
	catchUp        string
	jitter         time.Duration
	next           time.Time
}

// Pass is one tick pass: for every active schedule whose next instant has
// come, it inserts the due fires (ON CONFLICT (schedule_id, tick) DO NOTHING)
// and their River jobs and advances next_tick, all in one transaction, so a
// tick fires once however many passes run, concurrently or again after a crash.
func Pass(ctx context.Context, pool *pgxpool.Pool, ins TxInserter, now time.Time, grace time.Duration, log *slog.Logger) (PassResult, error) {
	var res PassResult
	err := db.InTx(ctx, pool, func(tx pgx.Tx) error {
		var err error
		res, err = pass(ctx, tx, "", now, grace, log, func(made []madeFire) error {
			return enqueue(ctx, tx, ins, len(made), func(i int) (FireArgs, time.Duration) {
				return FireArgs{FireID: made[i].id, Schedule: made[i].name, Tick: made[i].tick}, made[i].jitter
			}, now)
		})
		return err
	})
	return res, err
}

// madeFire is a fire a tick pass inserted.
type madeFire struct {
	id     int64
	name   string
	tick   time.Time
	kind   string
	jitter time.Duration
}

// pass is the tick pass of Pass inside tx, over every due schedule (only
// schedule name's, if not ""): made gets the fires it inserted, still in tx,
// to enqueue them (the workers) or to run them (Local).
func pass(ctx context.Context, tx pgx.Tx, name string, now time.Time, grace time.Duration, log *slog.Logger,
	made func([]madeFire) error) (PassResult, error) {
	var res PassResult
	var only *string
	if name != "" {
		only = &name
	}
	rows, err := tx.Query(ctx, `SELECT id, name, spec, timezone, catch_up, jitter_ms, next_tick FROM helix_schedules
		WHERE NOT paused AND disabled_reason IS NULL AND next_tick <= $1 AND ($2::text IS NULL OR name = $2)
		ORDER BY id FOR UPDATE SKIP LOCKED`, now, only)
	if err != nil {
		return res, err
	}
	due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*dueRow, error) {
		var d dueRow
		var jitter int64
		err := r.Scan(&d.id, &d.name, &d.spec, &d.tz, &d.catchUp, &jitter, &d.next)
		d.jitter = time.Duration(jitter) * time.Millisecond
		return &d, err
	})
	if err != nil || len(due) == 0 {
		return res, err
	}
	res.Schedules = len(due)
	var (
		fSched []int64
		fTick  []time.Time
		fKind  []string
		uID    []int64
		uNext  []time.Time
		uLast  []*time.Time
		uDis   []*string
	)
	byID := map[int64]*dueRow{}
	for _, d := range due {
		byID[d.id] = d
		sched, err := Parse(d.spec, d.tz)
		if err != nil {
			// A spec that parsed when added no longer does (a zone dropped
			// from tzdata): stop ticking it, visibly, rather than fail every pass.
			msg := "spec: " + err.Error()
			log.Warn("schedule disabled: its spec no longer parses", "schedule", d.name, "err", err)
			uID, uNext, uLast, uDis = append(uID, d.id), append(uNext, d.next), append(uLast, nil), append(uDis, &msg)
			continue
		}
		fires, next := Due(sched, d.next, now, grace, d.catchUp)
		if next.IsZero() {
			next = never
		}
		var last *time.Time
		for _, f := range fires {
			fSched, fTick, fKind = append(fSched, d.id), append(fTick, f.At), append(fKind, f.Kind)
			at := f.At
			last = &at
		}
		if n := missedCount(sched, d.next, next, fires); n > 0 {
			res.Missed += n
			log.Info("schedule missed instants while no worker ticked", "schedule", d.name, "missed", n,
				"catch_up", d.catchUp, "from", d.next.UTC().Format(time.RFC3339))
		}
		uID, uNext, uLast, uDis = append(uID, d.id), append(uNext, next), append(uLast, last), append(uDis, nil)
	}
	if len(fSched) > 0 {
		rows, err := tx.Query(ctx, `INSERT INTO helix_schedule_fires (schedule_id, tick, kind)
			SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::text[])
			ON CONFLICT (schedule_id, tick) DO NOTHING RETURNING id, schedule_id, tick, kind`, fSched, fTick, fKind)
		if err != nil {
			return res, err
		}
		fires, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (madeFire, error) {
			var x madeFire
			var sched int64
			err := r.Scan(&x.id, &sched, &x.tick, &x.kind)
			if d := byID[sched]; d != nil {
				x.name, x.jitter = d.name, d.jitter
			}
			return x, err
		})
		if err != nil {
			return res, err
		}
		if len(fires) > 0 {
			if err := made(fires); err != nil {
				return res, err
			}
		}
		res.Fires = len(fires)
	}
	_, err = tx.Exec(ctx, `UPDATE helix_schedules s SET next_tick = u.next, last_tick = coalesce(u.last, s.last_tick),
		disabled_reason = coalesce(u.dis, s.disabled_reason), disabled_at = CASE WHEN u.dis IS NULL THEN s.disabled_at ELSE now() END,
		updated_at = now()
		FROM unnest($1::bigint[], $2::timestamptz[], $3::timestamptz[], $4::text[]) u(id, next, last, dis) WHERE s.id = u.id`,
		uID, uNext, uLast, uDis)
	return res, err
}

// missedCount is how many instants from next up to newNext the pass neither
// fired on time nor caught up (for the log line only; bounded).
func missedCount(s interface{ Next(time.Time) time.Time }, next, newNext time.Time, fires []Tick) int {
	fired := map[time.Time]bool{}
	for _, f := range fires {
		fired[f.At] = true
	}
	n := 0
	for t, i := next, 0; !t.IsZero() && t.Before(newNext) && i < maxSteps; t, i = s.Next(t), i+1 {
		if !fired[t] {
			n++
		}
	}
	return n
}

// enqueue inserts n fire jobs in tx and records each job's id on its fire.
// A fire with jitter is scheduled a random delay up to it after its tick.
func enqueue(ctx context.Context, tx pgx.Tx, ins TxInserter, n int, args func(int) (FireArgs, time.Duration), now time.Time) error {
	if n == 0 {
		return nil
	}
	ps := make([]river.InsertManyParams, n)
	ids := make([]int64, n)
	for i := range n {
		a, jitter := args(i)
		ids[i] = a.FireID
		ps[i] = river.InsertManyParams{Args: a}
		if jitter > 0 {
			if at := a.Tick.Add(rand.N(jitter)); at.After(now) {
				ps[i].InsertOpts = &river.InsertOpts{ScheduledAt: at}
			}
		}
	}
	rs, err := ins.InsertManyTx(ctx, tx, ps)
	if err != nil {
		return fmt.Errorf("enqueue schedule fires: %w", err)
	}
	jobs := make([]int64, n)
	for i, r := range rs {
		jobs[i] = r.Job.ID
	}
	_, err = tx.Exec(ctx, `UPDATE helix_schedule_fires f SET river_job_id = u.job
		FROM unnest($1::bigint[], $2::bigint[]) u(id, job) WHERE f.id = u.id`, ids, jobs)
	return err
}

// RunNow enqueues an immediate fire of a schedule, paused or disabled too;
// its tick is now.
func RunNow(ctx context.Context, pool *pgxpool.Pool, ins TxInserter, name string, now time.Time) (*Fire, error) {
	return RunNowFor(ctx, pool, ins, name, owner.Shared, now)
}

// RunNowFor is RunNow of o's own schedule (a user cannot run a shared one).
func RunNowFor(ctx context.Context, pool *pgxpool.Pool, ins TxInserter, name string, o owner.Owner, now time.Time) (*Fire, error) {
	var fire *Fire
	err := db.InTx(ctx, pool, func(tx pgx.Tx) error {
		var id int64
		var tick time.Time
		err := tx.QueryRow(ctx, `INSERT INTO helix_schedule_fires (schedule_id, tick, kind)
			SELECT id, $2, 'run_now' FROM helix_schedules WHERE name = $1 AND `+owner.Owned("user_id", 3)+`
			ON CONFLICT (schedule_id, tick) DO NOTHING RETURNING id, tick`, name, now, o.Arg()).Scan(&id, &tick)
		if errors.Is(err, pgx.ErrNoRows) {
			if s, gerr := For(o).Get(ctx, tx, name); gerr != nil {
				return gerr
			} else if (s.Owner == nil) == o.Set {
				return For(o).notOwned(ctx, tx, name)
			}
			return fmt.Errorf("schedule %s already has a fire at %s: try again", name, now.UTC().Format(time.RFC3339Nano))
		}
		if err != nil {
			return err
		}
		if err := enqueue(ctx, tx, ins, 1, func(int) (FireArgs, time.Duration) {
			return FireArgs{FireID: id, Schedule: name, Tick: tick}, 0
		}, now); err != nil {
			return err
		}
		fire, err = getFire(ctx, tx, id)
		return err
	})
	return fire, err
}
