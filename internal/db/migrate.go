package db

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/helixhq/helix/migrations"
)

// Migrator applies helix's embedded migrations. It wraps goose's Provider
// with a session lock, so two helix processes never migrate at once.
type Migrator struct {
	db   *sql.DB
	p    *goose.Provider
	fsys fs.FS
}

// NewMigrator builds a migrator over pool. Close it when done.
func NewMigrator(pool *pgxpool.Pool) (*Migrator, error) {
	return NewMigratorFS(pool, migrations.FS)
}

// NewMigratorFS builds a migrator over pool for the migrations in fsys (tests
// replay the migrations an earlier helix shipped).
func NewMigratorFS(pool *pgxpool.Pool, fsys fs.FS) (*Migrator, error) {
	return newMigrator(stdlib.OpenDBFromPool(pool), fsys)
}

func newMigrator(sqlDB *sql.DB, fsys fs.FS) (*Migrator, error) {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, fsys,
		goose.WithSessionLocker(locker), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	return &Migrator{db: sqlDB, p: p, fsys: fsys}, nil
}

// MigrationStatus is one migration and whether it is applied.
type MigrationStatus struct {
	Version   int64  `json:"version"`
	Name      string `json:"name"`
	Applied   bool   `json:"applied"`
	AppliedAt string `json:"applied_at,omitempty"`
}

// Up applies every pending migration and returns the versions applied.
func (m *Migrator) Up(ctx context.Context) ([]int64, error) {
	res, err := m.p.Up(ctx)
	return versions(res), err
}

// Down rolls back the most recent migration, or every one down to version to when to >= 0.
func (m *Migrator) Down(ctx context.Context, to int64) ([]int64, error) {
	if to >= 0 {
		res, err := m.p.DownTo(ctx, to)
		return versions(res), err
	}
	r, err := m.p.Down(ctx)
	if r == nil {
		return nil, err
	}
	return versions([]*goose.MigrationResult{r}), err
}

// Status lists every migration known to the binary and whether it is applied.
func (m *Migrator) Status(ctx context.Context) ([]MigrationStatus, error) {
	st, err := m.p.Status(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]MigrationStatus, 0, len(st))
	for _, s := range st {
		ms := MigrationStatus{Version: s.Source.Version, Name: baseName(s.Source.Path), Applied: s.State == goose.StateApplied}
		if ms.Applied {
			ms.AppliedAt = s.AppliedAt.UTC().Format("2006-01-02T15:04:05Z07:00")
		}
		out = append(out, ms)
	}
	return out, nil
}

// PlannedMigration is a pending migration and the SQL its Up section runs.
type PlannedMigration struct {
	Version int64  `json:"version"`
	Name    string `json:"name"`
	SQL     string `json:"sql"`
}

// Plan returns the pending migrations, in the order Up would apply them, with
// the SQL each would run; it changes nothing.
func (m *Migrator) Plan(ctx context.Context) ([]PlannedMigration, error) {
	st, err := m.p.Status(ctx)
	if err != nil {
		return nil, err
	}
	var plan []PlannedMigration
	for _, s := range st {
		if s.State == goose.StateApplied {
			continue
		}
		b, err := fs.ReadFile(m.fsys, baseName(s.Source.Path))
		if err != nil {
			return nil, err
		}
		plan = append(plan, PlannedMigration{Version: s.Source.Version, Name: baseName(s.Source.Path), SQL: upSection(string(b))})
	}
	return plan, nil
}

// upSection is the part of a goose SQL file between "-- +goose Up" and "-- +goose Down".
func upSection(s string) string {
	if i := strings.Index(s, "-- +goose Up"); i >= 0 {
		s = s[i+len("-- +goose Up"):]
	}
	if i := strings.Index(s, "-- +goose Down"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s) + "\n"
}

// Pending counts migrations not yet applied.
func (m *Migrator) Pending(ctx context.Context) (int, error) {
	st, err := m.Status(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range st {
		if !s.Applied {
			n++
		}
	}
	return n, nil
}

// Close releases the migrator's database handle (not the pool).
func (m *Migrator) Close() error { return m.db.Close() }

func versions(rs []*goose.MigrationResult) []int64 {
	var v []int64
	for _, r := range rs {
		if r != nil && r.Source != nil {
			v = append(v, r.Source.Version)
		}
	}
	return v
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
