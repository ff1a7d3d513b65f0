// Package db opens helix's PostgreSQL pool and holds the helpers every job
// shares: transactions, advisory locks and the job_runs record.
package db

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Querier is satisfied by *pgxpool.Pool, *pgxpool.Conn, *pgx.Conn and pgx.Tx,
// so write functions can run inside a caller's (test's) transaction.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error)
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Options tune a pool; zero values keep the defaults.
type Options struct {
	AppName                  string // application_name, e.g. helix-decay-run
	StatementTimeout         time.Duration
	IdleInTransactionTimeout time.Duration
	ConnectTimeout           time.Duration
	MaxConns                 int32
}

// ErrNoURL is returned when no database URL is configured.
var ErrNoURL = errors.New("no database URL: set HELIX_DATABASE_URL or DATABASE_URL (or database-url in the config file)")

// Open connects a pool and pings it. Settings the URL already carries win over Options.
func Open(ctx context.Context, url string, o Options) (*pgxpool.Pool, error) {
	if url == "" {
		return nil, ErrNoURL
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message can echo the URL; never print a password.
		return nil, &ConfigError{Err: errors.New("invalid database URL: check its syntax (postgres://user@host:port/db?sslmode=disable)")}
	}
	rp := cfg.ConnConfig.RuntimeParams
	setDefault := func(k, v string) {
		if _, ok := rp[k]; !ok && v != "" {
			rp[k] = v
		}
	}
	setDefault("application_name", o.AppName)
	// The platform writes some instants as timestamp without time zone, in
	// UTC (Supabase's default): read and compare them as UTC whatever the
	// server's or the role's TimeZone is.
	setDefault("TimeZone", "UTC")
	if o.StatementTimeout > 0 {
		setDefault("statement_timeout", fmt.Sprint(o.StatementTimeout.Milliseconds()))
	}
	if o.IdleInTransactionTimeout > 0 {
		setDefault("idle_in_transaction_session_timeout", fmt.Sprint(o.IdleInTransactionTimeout.Milliseconds()))
	}
	if o.ConnectTimeout > 0 && cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = o.ConnectTimeout
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		var pe *pgconn.PgError
		if errors.As(err, &pe) && !IsUnavailable(err) {
			// The server answered and refused: a wrong password, database or
			// session parameter (?statement_timeout=abc). Retrying cannot help.
			return nil, &ConfigError{Err: fmt.Errorf("database refused the connection: %s (SQLSTATE %s)", pe.Message, pe.Code)}
		}
		return nil, err
	}
	return pool, nil
}

// ConfigError is a database setting that is wrong (the URL, a session
// parameter, credentials): fix it, do not retry.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// IsUnavailable reports whether err means the database could not be reached
// (refused, timed out, DNS, dropped connection, server shutting down): worth a retry later.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// class 08: connection exception; 57P01-57P03: admin shutdown, crash, cannot connect now.
		// Checked before ConnectError, which also wraps a server's refusal of bad settings.
		return len(pe.Code) == 5 && (pe.Code[:2] == "08" || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03")
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	if errors.Is(err, pgconn.ErrConnClosed) {
		return true
	}
	// The server went away mid-query: pgconn read an end of stream. Only an
	// end read by pgconn counts; a truncated input file is bad input, not this.
	if (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) && fromPgconn(err) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, os.ErrDeadlineExceeded) || pgconn.Timeout(err)
}

// fromPgconn reports whether pgconn produced an error in err's chain.
func fromPgconn(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if t := reflect.TypeOf(e); t.Kind() == reflect.Pointer && t.Elem().PkgPath() == "github.com/jackc/pgx/v5/pgconn" {
			return true
		}
	}
	return false
}

// InTx runs fn in a transaction, committing when fn returns nil and rolling
// back otherwise. The rollback does not depend on ctx: a cancelled run still cleans up.
func InTx(ctx context.Context, q Querier, fn func(tx pgx.Tx) error) error {
	tx, err := q.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
