package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/helixhq/helix/migrations"
)

// Migrator applies helix's embedded migrations, then River's (the job queue
// of `helix worker`, issue 15) through River's own rivermigrate. It wraps
// goose's Provider with a session lock, so two helix processes never migrate at once.
type Migrator struct {
	db    *sql.DB
	p     *goose.Provider
	fsys  fs.FS
	river *rivermigrate.Migrator[pgx.Tx]
	pool  *pgxpool.Pool
	// LockWait is how long Up and Down wait for another migration's lock
	// (MigrateLockWait unless changed).
	LockWait time.Duration
}

// NewMigrator builds a migrator over pool. Close it when done.
func NewMigrator(pool *pgxpool.Pool) (*Migrator, error) {
	m, err := NewMigratorFS(pool, migrations.FS)
	if err != nil {
		return nil, err
	}
	// rivermigrate logs to stdout by default; stdout carries results only.
	m.river, err = rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, fmt.Errorf("load river migrations: %w", err)
	}
	return m, nil
}

// RiverVersion is the River module helix pins; its migrations are part of
// helix's schema (pgtest keys its template on it).
const RiverVersion = "v0.51.1"

// riverVersionBase offsets River's migration versions in the list helix
// prints, so they never collide with helix's own numbers.
const riverVersionBase = 1_000_000

// RiverTables are the tables River's migrations create in public. helix
// secures them like its own internal tables: anon and authenticated get nothing.
func riverTables(ctx context.Context, q Querier) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname LIKE 'river\_%' ORDER BY c.relname`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (m *Migrator) riverUp(ctx context.Context) ([]int64, error) {
	if m.river == nil {
		return nil, nil
	}
	// Up holds the migration lock.
	res, err := m.river.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return nil, fmt.Errorf("river migrations: %w", err)
	}
	tables, err := riverTables(ctx, m.pool)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		if _, err := m.pool.Exec(ctx, `SELECT helix_secure_table($1::regclass, NULL)`, pgx.Identifier{t}.Sanitize()); err != nil {
			return nil, fmt.Errorf("secure %s: %w", t, err)
		}
	}
	var v []int64
	for _, mv := range res.Versions {
		v = append(v, riverVersionBase+int64(mv.Version))
	}
	return v, nil
}

func (m *Migrator) riverDownAll(ctx context.Context) ([]int64, error) {
	if m.river == nil {
		return nil, nil
	}
	res, err := m.river.Migrate(ctx, rivermigrate.DirectionDown, &rivermigrate.MigrateOpts{TargetVersion: -1})
	if err != nil {
		return nil, fmt.Errorf("river migrations: %w", err)
	}
	// helix_secure_table recorded River's tables among helix's; they are gone.
	if _, err := m.pool.Exec(ctx, `DO $$ BEGIN
		IF to_regclass('helix_tables') IS NOT NULL THEN DELETE FROM helix_tables WHERE name LIKE 'river\_%'; END IF; END $$`); err != nil {
		return nil, err
	}
	var v []int64
	for _, mv := range res.Versions {
		v = append(v, riverVersionBase+int64(mv.Version))
	}
	return v, nil
}

// NewMigratorFS builds a migrator over pool for the migrations in fsys (tests
// replay the migrations an earlier helix shipped); River's are not included.
func NewMigratorFS(pool *pgxpool.Pool, fsys fs.FS) (*Migrator, error) {
	sqlDB := stdlib.OpenDBFromPool(pool)
	// No goose locker: goose's session advisory lock would stay on a
	// transaction pooler's server connection. Up and Down hold helix's
	// migration lease instead (MigrateLockWait).
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, fsys, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	return &Migrator{db: sqlDB, p: p, fsys: fsys, pool: pool, LockWait: MigrateLockWait}, nil
}

// MigrateLockWait is how long a migration waits for another one to finish
// before giving up (exit 5, naming the holder), unless the Migrator's
// LockWait says otherwise.
const MigrateLockWait = 2 * time.Minute

// MigrateLock names the lease migrations hold.
const MigrateLock = "migrate"

// lock takes the migration lease, creating helix_locks first on a database
// helix has not migrated yet.
func (m *Migrator) lock(ctx context.Context) (*Lock, error) {
	if err := ensureLockTable(ctx, m.pool); err != nil {
		return nil, err
	}
	return WaitLock(ctx, m.pool, MigrateLock, m.LockWait)
}

// ensureLockTable creates helix_locks as migration 00090 does, secured by
// hand (helix_secure_table may not exist yet): row-level security on, nothing
// for Supabase's API roles.
func ensureLockTable(ctx context.Context, q Querier) error {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('helix_locks') IS NOT NULL`).Scan(&exists); err != nil || exists {
		return err
	}
	_, err := q.Exec(ctx, `CREATE UNLOGGED TABLE IF NOT EXISTS helix_locks (
			name text PRIMARY KEY, token text NOT NULL, holder text NOT NULL,
			acquired_at timestamptz NOT NULL, expires_at timestamptz NOT NULL);
		CREATE INDEX IF NOT EXISTS helix_locks_token_idx ON helix_locks (token);
		ALTER TABLE helix_locks ENABLE ROW LEVEL SECURITY;
		DO $$ DECLARE r text; BEGIN
			FOREACH r IN ARRAY ARRAY['anon', 'authenticated'] LOOP
				IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
					EXECUTE format('REVOKE ALL ON helix_locks FROM %I', r);
				END IF;
			END LOOP; END $$`)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "23505" || pe.Code == "42P07") {
		return nil // another helix created it at the same moment
	}
	return err
}

// MigrationStatus is one migration and whether it is applied.
type MigrationStatus struct {
	Version   int64  `json:"version"`
	Source    string `json:"source"` // helix or river
	Name      string `json:"name"`
	Applied   bool   `json:"applied"`
	AppliedAt string `json:"applied_at,omitempty"`
}

// Up applies every pending migration, helix's then River's, and returns the
// versions applied (River's offset by 1,000,000: see IsRiver).
func (m *Migrator) Up(ctx context.Context) (_ []int64, err error) {
	l, err := m.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, l.Release(ctx)) }()
	// helix's migrations from afterRiver on touch River's tables: River's
	// are applied between them.
	res, err := m.p.UpTo(ctx, afterRiver-1)
	v := versions(res)
	if err != nil {
		return v, err
	}
	rv, err := m.riverUp(ctx)
	if v = append(v, rv...); err != nil {
		return v, err
	}
	res, err = m.p.Up(ctx)
	return append(v, versions(res)...), err
}

// afterRiver is the first helix migration applied after River's: 00280
// indexes river_job.
const afterRiver = 280

// IsRiver reports whether a version returned by Up, Down or Status is one of
// River's, and River's own number for it.
func IsRiver(v int64) (int, bool) {
	if v > riverVersionBase {
		return int(v - riverVersionBase), true
	}
	return 0, false
}

// Down rolls back the most recent helix migration, or every one down to
// version to when to >= 0. to == 0 removes River's tables too.
func (m *Migrator) Down(ctx context.Context, to int64) (_ []int64, err error) {
	l, err := m.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, l.Release(ctx)) }()
	if to >= 0 {
		var rv []int64
		if to == 0 {
			var err error
			if rv, err = m.riverDownAll(ctx); err != nil {
				return rv, err
			}
		}
		res, err := m.p.DownTo(ctx, to)
		return append(rv, versions(res)...), err
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
		ms := MigrationStatus{Version: s.Source.Version, Source: "helix", Name: baseName(s.Source.Path), Applied: s.State == goose.StateApplied}
		if ms.Applied {
			ms.AppliedAt = s.AppliedAt.UTC().Format(time.RFC3339)
		}
		out = append(out, ms)
	}
	if m.river == nil {
		return out, nil
	}
	existing := map[int]time.Time{}
	var exists bool
	if err := m.pool.QueryRow(ctx, `SELECT to_regclass('river_migration') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, err
	}
	if exists {
		ev, err := m.river.ExistingVersions(ctx)
		if err != nil {
			return nil, fmt.Errorf("river migrations: %w", err)
		}
		for _, e := range ev {
			existing[e.Version] = time.Time{}
		}
		rows, err := m.pool.Query(ctx, `SELECT version, created_at FROM river_migration WHERE line = 'main'`)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var v int
			var at time.Time
			if err := rows.Scan(&v, &at); err != nil {
				rows.Close()
				return nil, err
			}
			existing[v] = at
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	for _, rm := range m.river.AllVersions() {
		ms := MigrationStatus{Version: riverVersionBase + int64(rm.Version), Source: "river", Name: fmt.Sprintf("river_%03d_%s", rm.Version, strings.ReplaceAll(rm.Name, " ", "_"))}
		if at, ok := existing[rm.Version]; ok {
			ms.Applied = true
			if !at.IsZero() {
				ms.AppliedAt = at.UTC().Format(time.RFC3339)
			}
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
	if m.river == nil {
		return plan, nil
	}
	st2, err := m.Status(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range st2 {
		rv, ok := IsRiver(s.Version)
		if !ok || s.Applied {
			continue
		}
		mg, err := m.river.GetVersion(rv)
		if err != nil {
			return nil, err
		}
		plan = append(plan, PlannedMigration{Version: s.Version, Name: s.Name, SQL: strings.TrimSpace(mg.SQLUp) + "\n"})
	}
	if len(st2) > 0 {
		for _, p := range plan {
			if _, ok := IsRiver(p.Version); ok {
				plan = append(plan, PlannedMigration{Version: 0, Name: "secure River's tables",
					SQL: "SELECT helix_secure_table(t, NULL) -- for every river_* table\n"})
				break
			}
		}
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
