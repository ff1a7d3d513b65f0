package schedule

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/robfig/cron/v3"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/owner"
)

// OncePrefix starts the spec of a one-shot schedule (--once-at): "@at" and
// an RFC 3339 instant. It fires once; then it is completed.
const OncePrefix = "@at "

// once is the cron.Schedule of a one-shot spec: its instant, then none.
type once time.Time

func (o once) Next(t time.Time) time.Time {
	if t.Before(time.Time(o)) {
		return time.Time(o)
	}
	return time.Time{}
}

// OnceSpec is the spec of a schedule that fires once at at.
func OnceSpec(at time.Time) string { return OncePrefix + at.Format(time.RFC3339) }

func parseOnce(spec string) (cron.Schedule, bool, error) {
	rest, ok := strings.CutPrefix(spec, OncePrefix)
	if !ok {
		return nil, false, nil
	}
	at, err := time.Parse(time.RFC3339, strings.TrimSpace(rest))
	if err != nil {
		return nil, true, fmt.Errorf("invalid one-shot instant %q: use RFC 3339, e.g. 2026-12-24T09:00:00+01:00", rest)
	}
	return once(at), true, nil
}

// Limits bound what one user may schedule (the operator's shared schedules
// are not bound): schedule.max-per-user and schedule.min-interval.
type Limits struct {
	MaxPerUser  int
	MinInterval time.Duration
}

// DefaultLimits are the settings' defaults.
var DefaultLimits = Limits{MaxPerUser: 20, MinInterval: 5 * time.Minute}

// LimitError is a per-user schedule beyond a limit; it names the setting.
type LimitError struct {
	exitcode.InputClass
	Msg string
}

func (e *LimitError) Error() string { return e.Msg }

// MinGap is the shortest gap between two of the next instants of s after
// now (up to 1,000 of them, or a year): cron specs such as "*/5 1 * * *" are
// uneven, so the first gap alone says little. 0 means at most one instant.
func MinGap(s cron.Schedule, now time.Time) time.Duration {
	var gap time.Duration
	prev := s.Next(now)
	end := now.AddDate(1, 0, 0)
	for i := 0; i < 1000 && !prev.IsZero() && prev.Before(end); i++ {
		next := s.Next(prev)
		if next.IsZero() {
			break
		}
		if d := next.Sub(prev); gap == 0 || d < gap {
			gap = d
		}
		prev = next
	}
	return gap
}

// ActsFor checks that a per-user schedule's job line acts for user only:
// exactly one --user-id, naming user, and never --all-users. schedule add
// checks it before storing, and a fire again before it runs (a row may have
// been written through the API).
func ActsFor(argv []string, user uuid.UUID) error {
	var ids []string
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--all-users" || strings.HasPrefix(a, "--all-users="):
			return fmt.Errorf("a user's schedule cannot run --all-users: it acts for %s only", user)
		case a == "--user-id" && i+1 < len(argv):
			ids = append(ids, argv[i+1])
			i++
		case strings.HasPrefix(a, "--user-id="):
			ids = append(ids, strings.TrimPrefix(a, "--user-id="))
		}
	}
	if len(ids) != 1 {
		return fmt.Errorf("a user's schedule must run its job with --user-id %s (once): the job line %q has %d", user, strings.Join(argv, " "), len(ids))
	}
	if id, err := uuid.Parse(ids[0]); err != nil || id != user {
		return fmt.Errorf("a user's schedule acts for %s only, not --user-id %s", user, ids[0])
	}
	return nil
}

// Owned is the schedules as one owner sees them: a user's own and the
// shared ones to read, their own only to change; the operator, the shared
// ones. The package's functions without it (Get, Pause, ...) are the
// operator's.
type Owned struct{ o owner.Owner }

// For is the schedules as o sees them.
func For(o owner.Owner) Owned { return Owned{o} }

// Add stores a schedule of o's. A user's is bound by lim: at most
// MaxPerUser of theirs (completed ones included: remove them), no two fires
// closer than MinInterval, and a job line acting for them only.
func (w Owned) Add(ctx context.Context, q db.Querier, spec Spec, now time.Time, lim Limits) (*Schedule, error) {
	sched, err := spec.Validate()
	if err != nil {
		return nil, err
	}
	if w.o.Set {
		if err := ActsFor(spec.Argv, w.o.User); err != nil {
			return nil, &LimitError{Msg: err.Error()}
		}
		if gap := MinGap(sched, now); gap > 0 && gap < lim.MinInterval {
			return nil, &LimitError{Msg: fmt.Sprintf("schedule %s fires %s apart, under schedule.min-interval (%s) for a user's schedule", spec.Name, gap, lim.MinInterval)}
		}
	}
	next := sched.Next(now)
	if next.IsZero() {
		if _, isOnce, _ := parseOnce(spec.Cron); isOnce {
			return nil, &LimitError{Msg: fmt.Sprintf("--once-at %s has passed", strings.TrimPrefix(spec.Cron, OncePrefix))}
		}
		next = never
	}
	var onceAt *time.Time
	if o, ok := sched.(once); ok {
		t := time.Time(o)
		onceAt = &t
	}
	var s *Schedule
	err = db.InTx(ctx, q, func(tx pgx.Tx) error {
		if w.o.Set {
			// one user's adds in turn, so two cannot both take the last slot
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, db.LockKey("schedule:"+w.o.String())); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM helix_schedules WHERE user_id = $1`, w.o.Arg()).Scan(&n); err != nil {
				return err
			}
			if n >= lim.MaxPerUser {
				return &LimitError{Msg: fmt.Sprintf("user %s has %d schedules: schedule.max-per-user is %d (remove one first)", w.o, n, lim.MaxPerUser)}
			}
		}
		var err error
		s, err = scanSchedule(tx.QueryRow(ctx, `INSERT INTO helix_schedules (name, spec, timezone, jitter_ms, catch_up, argv, max_failures, next_tick, user_id, once_at, notify)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::uuid, $10, $11) RETURNING `+scheduleCols,
			spec.Name, spec.Cron, spec.Timezone, spec.Jitter.Milliseconds(), spec.CatchUp, spec.Argv, spec.MaxFailures, next, w.o.Arg(), onceAt, spec.policy()))
		return err
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return nil, fmt.Errorf("%w: %q (helix schedule remove %s --yes, then add it again)", ErrExists, spec.Name, spec.Name)
	}
	return s, err
}

// List is o's own schedules and the shared ones (the operator: shared only).
func (w Owned) List(ctx context.Context, q db.Querier) ([]*Schedule, error) {
	rows, err := q.Query(ctx, `SELECT `+scheduleCols+` FROM helix_schedules WHERE `+owner.Visible("user_id", 1)+`
		ORDER BY name, `+owner.OwnFirst("user_id"), w.o.Arg())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (*Schedule, error) { return scanSchedule(r) })
}

// Get resolves name for o: their own schedule, else the shared one; another
// user's is not found, like a missing one.
func (w Owned) Get(ctx context.Context, q db.Querier, name string) (*Schedule, error) {
	return one(q.QueryRow(ctx, `SELECT `+scheduleCols+` FROM helix_schedules WHERE name = $1 AND `+owner.Visible("user_id", 2)+`
		ORDER BY `+owner.OwnFirst("user_id")+` LIMIT 1`, name, w.o.Arg()), name)
}

// notOwned says why a change found nothing: a shared schedule a user may
// read but not change, or not found.
func (w Owned) notOwned(ctx context.Context, q db.Querier, name string) error {
	if s, err := w.Get(ctx, q, name); err == nil && s.Owner == nil && w.o.Set {
		return &LimitError{Msg: fmt.Sprintf("schedule %s is shared (the operator's): a user cannot change it", name)}
	}
	return &NotFoundError{Name: name}
}

func (w Owned) change(ctx context.Context, q db.Querier, name, set string) (*Schedule, error) {
	s, err := scanSchedule(q.QueryRow(ctx, `UPDATE helix_schedules SET `+set+`, updated_at = now()
		WHERE name = $1 AND `+owner.Owned("user_id", 2)+` RETURNING `+scheduleCols, name, w.o.Arg()))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, w.notOwned(ctx, q, name)
	}
	return s, err
}

// Pause is Pause of o's own schedule.
func (w Owned) Pause(ctx context.Context, q db.Querier, name string) (*Schedule, error) {
	return w.change(ctx, q, name, `paused = true`)
}

// Resume is Resume of o's own schedule.
func (w Owned) Resume(ctx context.Context, q db.Querier, name string) (*Schedule, error) {
	return w.change(ctx, q, name, `paused = false, disabled_reason = NULL, disabled_at = NULL, consecutive_failures = 0`)
}

// Remove is Remove of o's own schedule.
func (w Owned) Remove(ctx context.Context, q db.Querier, name string) (int, error) {
	var fires int
	err := q.QueryRow(ctx, `WITH s AS (DELETE FROM helix_schedules WHERE name = $1 AND `+owner.Owned("user_id", 2)+` RETURNING id)
		SELECT count(f.id) FROM s LEFT JOIN helix_schedule_fires f ON f.schedule_id = s.id GROUP BY s.id`, name, w.o.Arg()).Scan(&fires)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, w.notOwned(ctx, q, name)
	}
	return fires, err
}

// History is History of the schedule name resolves to for o.
func (w Owned) History(ctx context.Context, q db.Querier, name string, limit int) ([]*Fire, error) {
	s, err := w.Get(ctx, q, name)
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, fireSelect+`WHERE s.id = $1 ORDER BY f.tick DESC, f.id DESC LIMIT $2`, s.ID, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (*Fire, error) { return scanFire(r) })
}
