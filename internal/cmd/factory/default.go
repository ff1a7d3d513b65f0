// Package factory builds the production Factory: real streams, the resolved
// configuration, a lazily opened database pool and an HTTP client.
package factory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/iostreams"
)

// New returns the Factory and a cleanup func that closes what it opened.
func New(version string) (*cmdutil.Factory, func()) {
	f := &cmdutil.Factory{
		AppVersion: version,
		IOStreams:  iostreams.System(),
		Global:     &cmdutil.GlobalOptions{Output: "text", LogLevel: "info", LogFormat: "text"},
		Now:        time.Now,
	}
	var (
		cfgOnce sync.Once
		cfg     *config.Config
		cfgErr  error
	)
	f.Config = func() (*config.Config, error) {
		cfgOnce.Do(func() { cfg, cfgErr = config.Load(f.Global.ConfigFile) })
		return cfg, cfgErr
	}
	var (
		logOnce sync.Once
		logger  *slog.Logger
	)
	f.Logger = func() *slog.Logger {
		logOnce.Do(func() { logger = NewLogger(f.IOStreams, f.Global) })
		return logger
	}
	var (
		poolMu sync.Mutex
		pool   *pgxpool.Pool
	)
	f.DB = func(ctx context.Context) (*pgxpool.Pool, error) {
		poolMu.Lock()
		defer poolMu.Unlock()
		if pool != nil {
			return pool, nil
		}
		c, err := f.Config()
		if err != nil {
			return nil, err
		}
		p, err := OpenDB(ctx, c, f.Global.Command)
		if err != nil {
			return nil, err
		}
		if !f.Global.SchemaOptional {
			if err := CheckSchema(ctx, p); err != nil {
				p.Close()
				return nil, err
			}
		}
		pool = p
		return pool, nil
	}
	f.DBLost = func(ctx context.Context) bool {
		poolMu.Lock()
		p := pool
		poolMu.Unlock()
		if p == nil {
			return false
		}
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		// A new connection, not the pool's: a pooled connection the server
		// dropped fails with a bare EOF whatever the server's state.
		c, err := pgx.ConnectConfig(ctx, p.Config().ConnConfig.Copy())
		if err != nil {
			return db.IsUnavailable(err)
		}
		defer c.Close(context.WithoutCancel(ctx))
		err = c.Ping(ctx)
		return err != nil && db.IsUnavailable(err)
	}
	f.HTTPClient = func() (*http.Client, error) {
		return &http.Client{Timeout: 5 * time.Minute}, nil
	}
	return f, func() {
		poolMu.Lock()
		defer poolMu.Unlock()
		if pool != nil {
			pool.Close()
		}
	}
}

// OpenDB opens a pool with the configured URL and session defaults. An
// unreachable server is an UnavailableError (exit 4) with a one-line message.
func OpenDB(ctx context.Context, c *config.Config, command string) (*pgxpool.Pool, error) {
	url := c.String("database-url")
	if url == "" {
		return nil, cmdutil.InputError(db.ErrNoURL)
	}
	if err := db.CheckURL(url); err != nil {
		// say where the URL came from and which part is wrong
		return nil, cmdutil.InputError(fmt.Errorf("invalid database URL (%s): %w", c.Source("database-url"), err))
	}
	opts := db.Options{
		AppName:                  appName(command),
		StatementTimeout:         duration(c, "db.statement-timeout"),
		IdleInTransactionTimeout: duration(c, "db.idle-in-transaction-timeout"),
		ConnectTimeout:           duration(c, "db.connect-timeout"),
		MaxConns:                 int32(c.Int("db.max-conns")),
		PoolMode:                 c.String("db.pool-mode"),
		LockTTL:                  duration(c, "db.lock-ttl"),
		URLSource:                c.Source("database-url"),
	}
	pool, err := db.Open(ctx, url, opts)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		var ce *db.ConfigError
		if errors.As(err, &ce) {
			return nil, cmdutil.InputError(err)
		}
		if db.IsUnavailable(err) {
			return nil, cmdutil.UnavailableError(fmt.Errorf("database unavailable (retry later): %s", oneLine(err)))
		}
		return nil, fmt.Errorf("database: %s", oneLine(err))
	}
	return pool, nil
}

// CheckSchema refuses a database whose helix schema is not this helix's:
// not migrated (or partly) and migrated by a newer helix are usage errors
// (exit 2), before the command does anything.
func CheckSchema(ctx context.Context, pool *pgxpool.Pool) error {
	err := db.CheckSchema(ctx, pool)
	var nm *db.NotMigratedError
	var ns *db.NewerSchemaError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &nm), errors.As(err, &ns):
		return cmdutil.InputError(err)
	case db.IsUnavailable(err):
		return cmdutil.UnavailableError(fmt.Errorf("database unavailable (retry later): %s", oneLine(err)))
	}
	return fmt.Errorf("database: check the schema: %w", err)
}

func appName(command string) string {
	if command == "" {
		return "helix"
	}
	return "helix-" + strings.ReplaceAll(command, " ", "-")
}

func duration(c *config.Config, key string) time.Duration {
	d, _ := time.ParseDuration(c.String(key))
	return d
}

// oneLine keeps the innermost useful part of pgx's connect errors, which repeat
// the target once per attempted address.
func oneLine(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, "dial error: "); i >= 0 {
		s = s[i+len("dial error: "):]
	}
	return strings.ReplaceAll(s, "\n", " ")
}

// errKey renames a log attribute "error" to "err", whoever logs it (River,
// cron, a dependency): on stderr the key "error" belongs to the final error
// object alone, so a program that sees it knows the run is over.
func errKey(_ []string, a slog.Attr) slog.Attr {
	if a.Key == "error" {
		a.Key = "err"
	}
	return a
}

// NewLogger builds the stderr logger from --log-level and --log-format.
func NewLogger(io *iostreams.IOStreams, g *cmdutil.GlobalOptions) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(g.LogLevel))
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: errKey}
	// With --output json every stderr line is a JSON object, logs included.
	if g.LogFormat == "json" || g.JSON() {
		return slog.New(slog.NewJSONHandler(io.ErrOut, opts))
	}
	return slog.New(slog.NewTextHandler(io.ErrOut, opts))
}
