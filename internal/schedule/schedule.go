// Package schedule keeps durable cron schedules of helix job command lines in
// PostgreSQL and fires each tick once across every `helix worker` (River) and
// every single-process scheduler (Local: `helix decay schedule`).
package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/robfig/cron/v3"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/notify"
	"github.com/helixhq/helix/internal/owner"
)

// ErrNotFound is returned for a schedule name that is not stored.
var ErrNotFound = errors.New("no such schedule")

// ErrExists is returned by Add for a name already taken.
var ErrExists = errors.New("schedule already exists")

// NotFoundError names the missing schedule.
type NotFoundError struct{ Name string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no schedule %q (see helix schedule list)", e.Name)
}
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`) })

// never stands for "no instant after this one" in next_tick.
var never = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// Spec is what `schedule add` stores.
type Spec struct {
	Name        string
	Cron        string
	Timezone    string
	Jitter      time.Duration
	CatchUp     string
	MaxFailures int
	Argv        []string // the job's command line, without the binary name
	Notify      string   // notify policy: always, on-failure (""), never
}

func (s Spec) policy() string {
	if s.Notify == "" {
		return notify.PolicyOnFailure
	}
	return s.Notify
}

// Validate checks everything but the job's command line (the CLI resolves
// that against its command tree) and returns the parsed spec.
func (s Spec) Validate() (cron.Schedule, error) {
	if !nameRE().MatchString(s.Name) {
		return nil, fmt.Errorf("invalid schedule name %q: use 1-63 of a-z 0-9 . _ -, starting with a letter or digit", s.Name)
	}
	sched, err := Parse(s.Cron, s.Timezone)
	if err != nil {
		return nil, err
	}
	switch {
	case s.CatchUp != CatchUpNone && s.CatchUp != CatchUpOnce:
		return nil, fmt.Errorf("invalid catch-up %q: use none or once", s.CatchUp)
	case s.Jitter < 0:
		return nil, fmt.Errorf("invalid jitter %s: must not be negative", s.Jitter)
	case s.MaxFailures < 0:
		return nil, fmt.Errorf("invalid max-failures %d: use 0 (never disable) or more", s.MaxFailures)
	case len(s.Argv) == 0:
		return nil, errors.New("no job command line")
	case s.Notify != "" && !slices.Contains(notify.Policies, s.Notify):
		return nil, fmt.Errorf("invalid notify %q: use always, on-failure or never", s.Notify)
	}
	return sched, nil
}

// Schedule is a stored schedule.
type Schedule struct {
	ID                  int64      `json:"id"`
	Name                string     `json:"name"`
	Cron                string     `json:"cron"`
	Timezone            string     `json:"timezone"`
	Jitter              string     `json:"jitter"`
	CatchUp             string     `json:"catch_up"`
	Job                 []string   `json:"job"`
	State               string     `json:"state"` // active, paused, disabled or completed (a one-shot that fired)
	Paused              bool       `json:"paused"`
	DisabledReason      *string    `json:"disabled_reason"`
	DisabledAt          *time.Time `json:"disabled_at"`
	ConsecutiveFailures int        `json:"consecutive_failures"`
	MaxFailures         int        `json:"max_failures"`
	NextTick            *time.Time `json:"next_tick"`
	LastTick            *time.Time `json:"last_tick"`
	CreatedAt           time.Time  `json:"created_at"`
	UpdatedAt           time.Time  `json:"updated_at"`
	Owner               *uuid.UUID `json:"owner"`   // the user the schedule belongs to; null: shared
	OnceAt              *time.Time `json:"once_at"` // a one-shot's instant (--once-at)
	Notify              string     `json:"notify"`  // webhook policy: always, on-failure, never
}

const scheduleCols = `id, name, spec, timezone, jitter_ms, catch_up, argv, paused, disabled_reason, disabled_at,
	consecutive_failures, max_failures, next_tick, last_tick, created_at, updated_at, user_id, once_at, notify`

func scanSchedule(r pgx.Row) (*Schedule, error) {
	var (
		s      Schedule
		jitter int64
		next   time.Time
	)
	err := r.Scan(&s.ID, &s.Name, &s.Cron, &s.Timezone, &jitter, &s.CatchUp, &s.Job, &s.Paused, &s.DisabledReason,
		&s.DisabledAt, &s.ConsecutiveFailures, &s.MaxFailures, &next, &s.LastTick, &s.CreatedAt, &s.UpdatedAt, &s.Owner, &s.OnceAt, &s.Notify)
	if err != nil {
		return nil, err
	}
	s.Jitter = (time.Duration(jitter) * time.Millisecond).String()
	if next.Before(never) {
		s.NextTick = &next
	}
	switch {
	case s.OnceAt != nil && s.NextTick == nil:
		s.State = "completed"
	case s.DisabledReason != nil:
		s.State = "disabled"
	case s.Paused:
		s.State = "paused"
	default:
		s.State = "active"
	}
	return &s, nil
}

// Add stores a schedule; its first tick is the spec's first instant after now.
func Add(ctx context.Context, q db.Querier, spec Spec, now time.Time) (*Schedule, error) {
	sched, err := spec.Validate()
	if err != nil {
		return nil, err
	}
	next := sched.Next(now)
	if next.IsZero() {
		next = never
	}
	s, err := scanSchedule(q.QueryRow(ctx, `INSERT INTO helix_schedules (name, spec, timezone, jitter_ms, catch_up, argv, max_failures, next_tick, notify)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING `+scheduleCols,
		spec.Name, spec.Cron, spec.Timezone, spec.Jitter.Milliseconds(), spec.CatchUp, spec.Argv, spec.MaxFailures, next, spec.policy()))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return nil, fmt.Errorf("%w: %q (helix schedule remove %s --yes, then add it again)", ErrExists, spec.Name, spec.Name)
	}
	return s, err
}

// List returns every schedule by name.
func List(ctx context.Context, q db.Querier) ([]*Schedule, error) {
	return For(owner.Shared).List(ctx, q)
}

// Get returns one schedule.
func Get(ctx context.Context, q db.Querier, name string) (*Schedule, error) {
	return For(owner.Shared).Get(ctx, q, name)
}

func one(r pgx.Row, name string) (*Schedule, error) {
	s, err := scanSchedule(r)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &NotFoundError{Name: name}
	}
	return s, err
}

// Pause stops a schedule's ticks; fires already queued still run.
func Pause(ctx context.Context, q db.Querier, name string) (*Schedule, error) {
	return For(owner.Shared).Pause(ctx, q, name)
}

// Resume restarts a paused or auto-disabled schedule and clears its failure
// count. Instants that passed meanwhile are missed: its catch-up policy says
// whether the latest of them runs.
func Resume(ctx context.Context, q db.Querier, name string) (*Schedule, error) {
	return For(owner.Shared).Resume(ctx, q, name)
}

// Remove deletes a schedule and its history; it returns how many fires went.
func Remove(ctx context.Context, q db.Querier, name string) (int, error) {
	return For(owner.Shared).Remove(ctx, q, name)
}

// Fire is one fire of a schedule: a tick turned into a run of its job.
type Fire struct {
	ID         int64           `json:"id"`
	Schedule   string          `json:"schedule"`
	Tick       time.Time       `json:"tick"`
	Kind       string          `json:"kind"`
	JobID      *int64          `json:"job_id"` // river_job.id
	Status     string          `json:"status"`
	Attempts   int             `json:"attempts"`
	ExitCode   *int            `json:"exit_code"`
	CreatedAt  time.Time       `json:"created_at"`
	StartedAt  *time.Time      `json:"started_at"`
	FinishedAt *time.Time      `json:"finished_at"`
	DurationMS *int64          `json:"duration_ms"`
	Counts     json.RawMessage `json:"counts"`
	Error      *string         `json:"error"`
}

const fireSelect = `SELECT f.id, s.name, f.tick, f.kind, f.river_job_id, f.status, f.attempts, f.exit_code,
	f.created_at, f.started_at, f.finished_at, f.duration_ms, f.counts, f.error
	FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id `

func scanFire(r pgx.Row) (*Fire, error) {
	var f Fire
	var counts []byte
	err := r.Scan(&f.ID, &f.Schedule, &f.Tick, &f.Kind, &f.JobID, &f.Status, &f.Attempts, &f.ExitCode,
		&f.CreatedAt, &f.StartedAt, &f.FinishedAt, &f.DurationMS, &counts, &f.Error)
	if counts != nil {
		f.Counts = counts
	}
	return &f, err
}

func getFire(ctx context.Context, q db.Querier, id int64) (*Fire, error) {
	return scanFire(q.QueryRow(ctx, fireSelect+`WHERE f.id = $1`, id))
}

// History returns a schedule's latest fires, newest first.
func History(ctx context.Context, q db.Querier, name string, limit int) ([]*Fire, error) {
	return For(owner.Shared).History(ctx, q, name, limit)
}
