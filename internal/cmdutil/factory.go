// Package cmdutil is the plumbing every command shares: the Factory of lazy
// dependencies, typed errors that map to exit codes, and output helpers.
package cmdutil

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/iostreams"
)

// Factory hands commands their dependencies. Every func is lazy and cached by
// the default implementation; tests replace the fields they need.
type Factory struct {
	AppVersion string
	IOStreams  *iostreams.IOStreams
	// Global holds the root's persistent flags, resolved before any command runs.
	Global *GlobalOptions

	Config func() (*config.Config, error)
	DB     func(ctx context.Context) (*pgxpool.Pool, error)
	// DBLost reports whether the run opened the database and it no longer
	// answers: a job that failed because PostgreSQL died mid-run sees only
	// an "unexpected EOF", and cli.Main makes that exit 4 (retry later).
	DBLost     func(ctx context.Context) bool
	Now        func() time.Time
	Logger     func() *slog.Logger
	HTTPClient func() (*http.Client, error)
	// JobTree returns a fresh copy of helix's command tree, to check a
	// scheduled job's command line against (schedule add, and the worker
	// before each fire).
	JobTree func() *cobra.Command
}

// GlobalOptions are the flags every command has.
type GlobalOptions struct {
	ConfigFile string
	Output     string // text or json
	LogLevel   string
	LogFormat  string
	// Command is the running command's path without the binary name, e.g. "decay run";
	// it names the database session (application_name=helix-decay-run).
	Command string
	// Started is set when the command's own code begins (the root's
	// PersistentPreRunE): an error before it is a usage error of cobra's
	// (unknown command or flag, bad arguments, required or exclusive flags).
	Started bool
	// SchemaOptional: the command (migrate, doctor) opens the database without
	// needing helix's schema; for every other, DB refuses an unmigrated one.
	SchemaOptional bool
}

// JSON reports whether results go out as one JSON document.
func (g *GlobalOptions) JSON() bool { return g != nil && g.Output == "json" }
