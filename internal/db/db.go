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
	"sort"
	"strings"
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
	// PoolMode is what stands between helix and PostgreSQL: "auto" (or ""),
	// "direct", "session" or "transaction" (pool_mode of a PgBouncer or
	// Supabase's pooler on port 6543). auto probes (see Path).
	PoolMode string
	// LockTTL is how long a lock outlives its holder's last heartbeat
	// (0: DefaultLockTTL).
	LockTTL time.Duration
	// URLSource says where the URL came from ("env HELIX_DATABASE_URL",
	// "file PATH:LINE"), for messages about its parameters.
	URLSource string
}

// ErrNoURL is returned when no database URL is configured.
var ErrNoURL = errors.New("no database URL: set HELIX_DATABASE_URL, DATABASE_URL or SUPABASE_DB_URL (or database-url in the config file)")

// Open connects a pool and pings it. Settings the URL already carries win over Options.
//
// No setting travels as a startup parameter: PgBouncer (and Supabase's
// poolers) refuse the connection outright for any it does not track
// (FATAL: unsupported startup parameter). They are applied once per
// connection right after it is made, on its first use, as set_config calls
// — except through a transaction pooler, where a session setting would land
// on whichever server connection ran it and outlive helix there: then only
// the settings PgBouncer itself carries from server to server
// (application_name, TimeZone) are set, and the timeouts are the pooler's
// and the role's (README, Connecting to Supabase).
func Open(ctx context.Context, url string, o Options) (*pgxpool.Pool, error) {
	if url == "" {
		return nil, ErrNoURL
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message can echo the URL; never print a password.
		return nil, &ConfigError{Err: errors.New("invalid database URL: check its syntax (postgres://user@host:port/db?sslmode=disable)")}
	}
	mode, err := ParsePoolMode(o.PoolMode)
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	ttl := o.LockTTL
	switch {
	case ttl == 0:
		ttl = DefaultLockTTL
	case ttl < MinLockTTL || ttl > MaxLockTTL:
		return nil, &ConfigError{Err: fmt.Errorf("setting db.lock-ttl = %s: must be from %s to %s", ttl, MinLockTTL, MaxLockTTL)}
	}
	where := ""
	if o.URLSource != "" {
		where = " (" + o.URLSource + ")"
	}
	settings := cfg.ConnConfig.RuntimeParams
	cfg.ConnConfig.RuntimeParams = map[string]string{}
	origin := map[string]string{} // setting → where it comes from, for the server's refusals
	for k := range settings {
		origin[k] = "?" + k + "= in the database URL" + where
	}
	// libpq's options (?options=-c x=y, PGOPTIONS) is a startup parameter
	// poolers refuse: its settings are applied after connecting, as the
	// URL's others are. A setting the URL also gives by name wins.
	if opt, ok := settings["options"]; ok {
		delete(settings, "options")
		delete(origin, "options")
		parsed, err := ParseOptions(opt)
		if err != nil {
			return nil, &ConfigError{Err: fmt.Errorf("the database URL's options parameter%s: %w", where, err)}
		}
		for k, v := range parsed {
			if _, ok := settings[k]; !ok {
				settings[k], origin[k] = v, "options=-c "+k+"=… in the database URL"+where
			}
		}
	}
	var fromURL []string // the URL's own settings: through a transaction pooler, refused
	for k := range settings {
		if !trackedByPoolers[k] {
			fromURL = append(fromURL, k)
		}
	}
	sort.Strings(fromURL)
	untransportable := func() error {
		named := make([]string, len(fromURL))
		for i, k := range fromURL {
			named[i] = k
			if strings.HasPrefix(origin[k], "options=") {
				named[i] = "options=-c " + k
			}
		}
		return &ConfigError{Err: fmt.Errorf("the database URL%s sets %s, which a transaction pooler cannot keep (each transaction may run on another server connection): set it on the role (ALTER ROLE … SET %s = …) and remove it from the URL, or use the session pooler or direct URL",
			where, strings.Join(named, ", "), fromURL[0])}
	}
	// pgx took default_query_exec_mode out of the parameters: read what the
	// URL itself said, to judge it for the path (checkExecMode).
	var execMode string
	if pc, err := pgconn.ParseConfig(url); err == nil {
		execMode = pc.RuntimeParams["default_query_exec_mode"]
	}
	badMode := func(p Path) error {
		if err := checkExecMode(execMode, p, where); err != nil {
			return &ConfigError{Err: err}
		}
		return nil
	}
	how := "db.pool-mode " + string(mode)
	if mode == PathUnknown && cfg.ConnConfig.Port == SupabaseTransactionPort {
		mode = PathTransaction // Supabase's transaction pooler: no need to probe
		how = fmt.Sprintf("port %d, Supabase's transaction pooler (db.pool-mode auto)", SupabaseTransactionPort)
	}
	if err := badMode(mode); err != nil {
		return nil, err
	}
	if mode == PathTransaction && len(fromURL) > 0 {
		return nil, untransportable()
	}
	setDefault := func(k, v string) {
		if _, ok := settings[k]; !ok && v != "" {
			settings[k] = v
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
	for k, from := range map[string]string{"statement_timeout": "db.statement-timeout", "idle_in_transaction_session_timeout": "db.idle-in-transaction-timeout",
		"application_name": "helix", "TimeZone": "helix"} {
		if _, ok := origin[k]; !ok {
			origin[k] = from
		}
	}
	coalesceReads(&cfg.ConnConfig.Config)
	if o.ConnectTimeout > 0 && cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = o.ConnectTimeout
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	}
	usePath(cfg, mode)
	p := &path{mode: mode}
	if mode != PathUnknown {
		p.known.Store(true)
	}
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		registerUUID(c.TypeMap())
		return nil
	}
	cfg.PrepareConn = func(ctx context.Context, c *pgx.Conn) (bool, error) {
		if !p.known.Load() || c.PgConn().CustomData()[settingsApplied] != nil {
			return true, nil
		}
		if err := applySettings(ctx, c, settings, origin, p.mode); err != nil {
			return false, err
		}
		c.PgConn().CustomData()[settingsApplied] = true
		return true, nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*pgxpool.Pool, error) {
		pool.Close()
		if ce := refusal(err); ce != nil {
			return nil, ce
		}
		return nil, err
	}
	probed := false // the pool holds the probe's connection, which the server has just answered
	if mode == PathUnknown {
		m, found, err := probe(ctx, pool, cfg.ConnConfig)
		if err != nil {
			return fail(err)
		}
		p.mode, how = m, found
		if err := badMode(m); err != nil {
			pool.Close()
			return nil, err
		}
		if m == PathTransaction && len(fromURL) > 0 {
			pool.Close()
			return nil, untransportable()
		}
		if m == PathTransaction || m == PathSession {
			// The probe's connections were made for a session; the
			// statement cache of named statements must go (transaction), or
			// idle connections be given back (session).
			pool.Close()
			usePath(cfg, m)
			if pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
				return nil, err
			}
		} else {
			probed = true
		}
		p.known.Store(true)
	}
	// Acquiring applies the session settings (PrepareConn), so a setting
	// the server refuses is reported here, as one; a probe that kept its
	// pool was just answered on this connection, so only an unprobed pool
	// is pinged.
	c, err := pool.Acquire(ctx)
	if err == nil && !probed {
		err = c.Ping(ctx)
	}
	if c != nil {
		c.Release()
	}
	if err != nil {
		return fail(err)
	}
	pools.Store(pool, poolInfo{path: p.mode, how: how, ttl: ttl})
	return pool, nil
}

// SupabaseTransactionPort is the port of Supabase's transaction pooler:
// db.pool-mode auto takes it as one without probing.
const SupabaseTransactionPort = 6543

// settingsApplied marks (in pgconn's CustomData) a connection whose session
// settings were applied.
const settingsApplied = "helix.settings"

// trackedByPoolers are the settings PgBouncer keeps per client and replays on
// whichever server connection it lends the client (its "tracked" parameters).
var trackedByPoolers = map[string]bool{"application_name": true, "TimeZone": true, "timezone": true,
	"client_encoding": true, "DateStyle": true, "datestyle": true, "standard_conforming_strings": true}

// applySettings sets a connection's session settings in one round trip. A
// setting the server refuses is named with where it came from (origin).
func applySettings(ctx context.Context, c *pgx.Conn, settings, origin map[string]string, mode Path) error {
	var sel []string
	var args []any
	var names []string
	for k, v := range settings {
		if mode == PathTransaction && !trackedByPoolers[k] {
			continue
		}
		args = append(args, k, v)
		names = append(names, k)
		sel = append(sel, fmt.Sprintf("set_config($%d, $%d, false)", len(args)-1, len(args)))
	}
	if len(sel) == 0 {
		return nil
	}
	if _, err := c.Exec(ctx, "SELECT "+strings.Join(sel, ", "), args...); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && (pe.Code == "42P05" || pe.Code == "26000") {
			// Not the setting: a named statement met another client's on a
			// server connection shared per transaction.
			return &ConfigError{Err: fmt.Errorf("%s (SQLSTATE %s): the database URL goes through a transaction pooler, which db.pool-mode = %s does not allow for: set db.pool-mode to transaction (or auto)", pe.Message, pe.Code, mode)}
		}
		if errors.As(err, &pe) {
			from := "check db.* settings and the URL's parameters"
			for _, k := range names {
				if strings.Contains(strings.ToLower(pe.Message), `"`+strings.ToLower(k)+`"`) {
					from = "it comes from " + origin[k]
				}
			}
			return &ConfigError{Err: fmt.Errorf("database refused a session setting: %s (SQLSTATE %s): %s", pe.Message, pe.Code, from)}
		}
		return err
	}
	return nil
}

// usePath configures cfg for the pooler on path p, if any.
func usePath(cfg *pgxpool.Config, p Path) {
	switch p {
	case PathTransaction:
		useTransactionPooler(cfg)
	case PathSession:
		useSessionPooler(cfg)
	}
}

// useTransactionPooler makes cfg safe through a transaction pooler: no named
// prepared statements (another client's server connection may hold the same
// name: 42P05), but each statement's description cached so every type helix
// sends (uuid[], json, maps) is encoded as the server expects. The unnamed
// statement is parsed, bound and run in one message sequence, so it never
// outlives the server connection it was sent to.
func useTransactionPooler(cfg *pgxpool.Config) {
	if cfg.ConnConfig.DefaultQueryExecMode != pgx.QueryExecModeDescribeExec { // the URL's choice, also safe there
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	}
	cfg.ConnConfig.StatementCacheCapacity = 0
}

// SessionIdleRelease is how long a connection stays idle in a pool through
// a session pooler before it is closed.
const SessionIdleRelease = 5 * time.Second

// useSessionPooler makes cfg share a session pooler: an idle connection in
// helix's pool still holds one of the pooler's few server connections (15
// on Supabase's smallest), which the other processes (a worker's schedule
// fires among them) wait for; it is closed after SessionIdleRelease.
func useSessionPooler(cfg *pgxpool.Config) {
	cfg.MaxConnIdleTime = SessionIdleRelease
	cfg.HealthCheckPeriod = time.Second
}

// refusal is the *ConfigError for a connection the server or a pooler
// refused for a reason retrying cannot fix, or nil.
func refusal(err error) *ConfigError {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return ce
	}
	msg := err.Error()
	if strings.Contains(msg, "server refused TLS connection") {
		return &ConfigError{Err: errors.New("database refused the connection: the server does not accept TLS, which sslmode=require (or verify-ca, verify-full) demands: use the endpoint that speaks TLS, or sslmode=disable for a local server")}
	}
	if strings.Contains(msg, "x509: ") || strings.Contains(msg, "tls: failed to verify") {
		return &ConfigError{Err: fmt.Errorf("database refused the connection: TLS certificate not trusted (%s): check sslrootcert and sslmode", oneCause(msg))}
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return nil
	}
	switch {
	case pe.Code == "08P01" && (strings.Contains(pe.Message, "unsupported startup parameter") ||
		strings.Contains(pe.Message, "no such database") || strings.Contains(pe.Message, "no such user") ||
		strings.Contains(pe.Message, "does not exist") ||
		strings.Contains(pe.Message, "authentication failed")):
		// PgBouncer's refusals of a parameter, database or user it does not
		// know, and the server's it passes on (all as 08P01).
		return &ConfigError{Err: fmt.Errorf("database refused the connection: %s (SQLSTATE %s)", pe.Message, pe.Code)}
	case pe.Code == "53300", pe.Code == "53400", IsUnavailable(err):
		return nil // too many connections, or class 08: retry later
	}
	// The server answered and refused: a wrong password, role or database,
	// or a setting (?statement_timeout=abc). Retrying cannot help.
	return &ConfigError{Err: fmt.Errorf("database refused the connection: %s (SQLSTATE %s)", pe.Message, pe.Code)}
}

func oneCause(s string) string {
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		return s[i+2:]
	}
	return s
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
