// Package cmdtest builds Factories for command tests: buffers for the
// streams, a fixed clock, and a real database when the test asks for one.
package cmdtest

import (
	"errors"
	"io"
	"os"
	"strings"

	"bytes"
	"context"
	"github.com/spf13/cobra"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/iostreams"
)

// Streams are the buffers behind a test Factory.
type Streams struct {
	In, Out, Err *bytes.Buffer
}

// Factory returns a Factory with buffered streams, the given TTY state, a
// config loaded from the environment (no file), and no database.
func Factory(t testing.TB, tty bool) (*cmdutil.Factory, Streams) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	ios.SetStdoutTTY(tty)
	ios.SetStderrTTY(tty)
	cfg, err := config.Load("")
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	f := &cmdutil.Factory{
		AppVersion: "test",
		IOStreams:  ios,
		Global:     &cmdutil.GlobalOptions{Output: "text", LogLevel: "info", LogFormat: "text"},
		Config:     func() (*config.Config, error) { return cfg, nil },
		DB: func(context.Context) (*pgxpool.Pool, error) {
			t.Fatal("cmdtest: this test has no database (use WithDB)")
			return nil, nil
		},
		Now:        func() time.Time { return time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC) },
		Logger:     func() *slog.Logger { return slog.New(slog.NewTextHandler(errOut, nil)) },
		HTTPClient: func() (*http.Client, error) { return http.DefaultClient, nil },
	}
	return f, Streams{In: in, Out: out, Err: errOut}
}

// WithDB gives f a database pool.
func WithDB(f *cmdutil.Factory, pool *pgxpool.Pool) *cmdutil.Factory {
	f.DB = func(context.Context) (*pgxpool.Pool, error) { return pool, nil }
	return f
}

// Parse runs a command's flag and argument handling on argv and returns the
// options its runF received (the zero value when parsing failed).
func Parse[O any](newCmd func(runF func(O) error) *cobra.Command, argv string) (O, error) {
	var got O
	cmd := newCmd(func(o O) error { got = o; return nil })
	cmd.SetArgs(strings.Fields(argv))
	cmd.SetFlagErrorFunc(cmdutil.WrapFlagError) // as under the root
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	return got, err
}

// WantFlagError fails t unless err is a usage error (a FlagError, exit 2)
// whose text contains want.
func WantFlagError(t testing.TB, err error, want string) {
	t.Helper()
	var fe *cmdutil.FlagError
	if err == nil || !strings.Contains(err.Error(), want) || !errors.As(err, &fe) {
		t.Fatalf("error %v, want a flag error containing %q", err, want)
	}
}

// UnsetHelixEnv takes every helix setting, and HELIX_CONFIG, out of the
// process environment: for a TestMain whose tests make their config file
// the only source.
func UnsetHelixEnv() {
	for _, k := range config.Keys {
		for _, n := range append([]string{config.EnvName(k.Name)}, k.Env...) {
			os.Unsetenv(n)
		}
	}
	os.Unsetenv("HELIX_CONFIG")
}
