package db

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/helixhq/helix/migrations"
)

// NotMigratedError: the database lacks migrations this helix carries.
type NotMigratedError struct{ Pending int }

func (e *NotMigratedError) Error() string {
	return fmt.Sprintf("database is not migrated (%d pending): run helix migrate up", e.Pending)
}

// NewerSchemaError: the database was migrated by a newer helix, whose schema
// this one does not know.
type NewerSchemaError struct {
	Database, Known int64 // schema versions: the database's and the newest this helix carries
	Source          string
}

func (e *NewerSchemaError) Error() string {
	what := "schema version"
	if e.Source == "river" {
		what = "River schema version"
	}
	return fmt.Sprintf("database was migrated by a newer helix (%s %d; this helix knows up to %d): upgrade helix", what, e.Database, e.Known)
}

// CheckSchema reports whether pool's database carries exactly the migrations
// this helix knows: a *NotMigratedError when some are pending, a
// *NewerSchemaError when it has versions newer than any this helix carries,
// nil when it is up to date. One query while the schema exists; every
// command that needs the schema runs it once, when it opens the database.
func CheckSchema(ctx context.Context, pool *pgxpool.Pool) error {
	helix, err := embeddedVersions(migrations.FS)
	if err != nil {
		return err
	}
	var river []int64
	if rm, err := rivermigrate.New(riverpgxv5.New(nil), &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)}); err == nil {
		for _, v := range rm.AllVersions() {
			river = append(river, int64(v.Version))
		}
	} else {
		return fmt.Errorf("load river migrations: %w", err)
	}
	var appliedHelix, appliedRiver []int64
	err = pool.QueryRow(ctx, `SELECT
		(SELECT coalesce(array_agg(DISTINCT version_id), '{}') FROM goose_db_version WHERE is_applied AND version_id > 0),
		(SELECT coalesce(array_agg(version), '{}') FROM river_migration WHERE line = 'main')`).Scan(&appliedHelix, &appliedRiver)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" {
		// not migrated, or not all the way: ask only what exists, and create
		// nothing (goose's own status would create its table)
		appliedHelix, appliedRiver, err = appliedWhereExists(ctx, pool)
	}
	if err != nil {
		return err
	}
	if e := newer(appliedHelix, helix, "helix"); e != nil {
		return e
	}
	if e := newer(appliedRiver, river, "river"); e != nil {
		return e
	}
	if n := missing(helix, appliedHelix) + missing(river, appliedRiver); n > 0 {
		return &NotMigratedError{Pending: n}
	}
	return nil
}

func appliedWhereExists(ctx context.Context, pool *pgxpool.Pool) (helix, river []int64, err error) {
	var gooseTable, riverTable bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL, to_regclass('river_migration') IS NOT NULL`).Scan(&gooseTable, &riverTable); err != nil {
		return nil, nil, err
	}
	if gooseTable {
		if err := pool.QueryRow(ctx, `SELECT coalesce(array_agg(DISTINCT version_id), '{}') FROM goose_db_version WHERE is_applied AND version_id > 0`).Scan(&helix); err != nil {
			return nil, nil, err
		}
	}
	if riverTable {
		if err := pool.QueryRow(ctx, `SELECT coalesce(array_agg(version), '{}') FROM river_migration WHERE line = 'main'`).Scan(&river); err != nil {
			return nil, nil, err
		}
	}
	return helix, river, nil
}

func newer(applied, known []int64, source string) error {
	if len(applied) == 0 || len(known) == 0 {
		return nil
	}
	if a, k := slices.Max(applied), slices.Max(known); a > k {
		return &NewerSchemaError{Database: a, Known: k, Source: source}
	}
	return nil
}

func missing(known, applied []int64) int {
	n := 0
	for _, v := range known {
		if !slices.Contains(applied, v) {
			n++
		}
	}
	return n
}

// embeddedVersions are the versions of goose's files in fsys (00012_x.sql → 12).
func embeddedVersions(fsys fs.FS) ([]int64, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, n := range names {
		num, _, ok := strings.Cut(n, "_")
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			continue
		}
		out = append(out, v)
	}
	return out, nil
}
