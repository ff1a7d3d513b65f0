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
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/robfig/cron/v3"

	"github.com/helixhq/helix/internal/db"
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

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

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
}

// Validate checks everything but the job's command line (the CLI resolves
// that against its command tree) and returns the parsed spec.
func (s Spec) Validate() (cron.Schedule, error) {
	if !nameRE.MatchString(s.Name) {
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
	State               string     `json:"state"` // active, paused or disabled
	Paused              bool       `json:"paused"`
	DisabledReason      *string    `json:"disabled_reason"`
	DisabledAt          *time.Time `json:"disabled_at"`
	ConsecutiveFailures int        `json:"consecutive_failures"`
	MaxFailures         int        `json:"max_failures"`
	NextTick            *time.Time `json:"next_tick"`
	LastTick            *time.Time `json:"last_tick"`
	CreatedAt           time.Time  `json:"created_at"`
	UpdatedAt           time.Time  `json:"updated_at"`
}

const scheduleCols = `id, name, spec, timezone, jitter_ms, catch_up, argv, paused, disabled_reason, disabled_at,
	consecutive_failures, max_failures, next_tick, last_tick, created_at, updated_at`

func scanSchedule(r pgx.Row) (*Schedule, error) {
	var (
		s      Schedule
		jitter int64
		next   time.Time
	)
	err := r.Scan(&s.ID, &s.Name, &s.Cron, &s.Timezone, &jitter, &s.CatchUp, &s.Job, &s.Paused, &s.DisabledReason,
		&s.DisabledAt, &s.ConsecutiveFailures, &s.MaxFailures, &next, &s.LastTick, &s.CreatedAt, &s.UpdatedAt)
	if err != nil {
		return nil, err
	}
	s.Jitter = (time.Duration(jitter) * time.Millisecond).String()
	if next.Before(never) {
		s.NextTick = &next
	}
	switch {
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
	s, err := scanSchedule(q.QueryRow(ctx, `INSERT INTO helix_schedules (name, spec, timezone, jitter_ms, catch_up, argv, max_failures, next_tick)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING `+scheduleCols,
		spec.Name, spec.Cron, spec.Timezone, spec.Jitter.Milliseconds(), spec.CatchUp, spec.Argv, spec.MaxFailures, next))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return nil, fmt.Errorf("%w: %q (helix schedule remove %s --yes, then add it again)", ErrExists, spec.Name, spec.Name)
	}
	return s, err
}

// List returns every schedule by name.
func List(ctx context.Context, q db.Querier) ([]*Schedule, error) {
	rows, err := q.Query(ctx, `SELECT `+scheduleCols+` FROM helix_schedules ORDER BY name`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (*Schedule, error) { return scanSchedule(r) })
}

// Get returns one schedule.
func Get(ctx context.Context, q db.Querier, name string) (*Schedule, error) {
	return one(q.QueryRow(ctx, `SELECT `+scheduleCols+` FROM helix_schedules WHERE name = $1`, name), name)
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
	return one(q.QueryRow(ctx, `UPDATE helix_schedules SET paused = true, updated_at = now()
		WHERE name = $1 RETURNING `+scheduleCols, name), name)
}

// Resume restarts a paused or auto-disabled schedule and clears its failure
// count. Instants that passed meanwhile are missed: its catch-up policy says
// whether the latest of them runs.
func Resume(ctx context.Context, q db.Querier, name string) (*Schedule, error) {
	return one(q.QueryRow(ctx, `UPDATE helix_schedules SET paused = false, disabled_reason = NULL, disabled_at = NULL,
		consecutive_failures = 0, updated_at = now() WHERE name = $1 RETURNING `+scheduleCols, name), name)
}

// Remove deletes a schedule and its history; it returns how many fires went.
func Remove(ctx context.Context, q db.Querier, name string) (int, error) {
	var fires int
	err := q.QueryRow(ctx, `WITH s AS (DELETE FROM helix_schedules WHERE name = $1 RETURNING id)
		SELECT count(f.id) FROM s LEFT JOIN helix_schedule_fires f ON f.schedule_id = s.id GROUP BY s.id`, name).Scan(&fires)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, &NotFoundError{Name: name}
	}
	return fires, err
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
	if _, err := Get(ctx, q, name); err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, fireSelect+`WHERE s.name = $1 ORDER BY f.tick DESC, f.id DESC LIMIT $2`, name, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (*Fire, error) { return scanFire(r) })
}
