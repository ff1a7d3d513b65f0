package cmdutil_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
)

func TestCompleteColumn(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO helix_skills (name, version, engine, sha256, code) VALUES ('rank', '1', 'wasm', 'x', '\x00'), ('rank', '2', 'wasm', 'y', '\x00'), ('brief', '1', 'wasm', 'z', '\x00')`); err != nil {
		t.Fatal(err)
	}
	f := &cmdutil.Factory{DB: func(context.Context) (*pgxpool.Pool, error) { return pool, nil }}
	complete := cmdutil.CompleteFirstArg(cmdutil.CompleteColumn(f, "helix_skills", "name", true))
	got, dir := complete(&cobra.Command{}, nil, "")
	if !slices.Equal(got, []string{"brief", "rank"}) || dir != cobra.ShellCompDirectiveDefault {
		t.Errorf("all: %q %v", got, dir)
	}
	if got, _ := complete(&cobra.Command{}, nil, "ra"); !slices.Equal(got, []string{"rank"}) {
		t.Errorf("prefix ra: %q", got)
	}
	if got, _ := complete(&cobra.Command{}, []string{"rank"}, ""); got != nil {
		t.Errorf("second argument: %q", got)
	}

	// no database: quietly nothing, at once
	down := &cmdutil.Factory{DB: func(context.Context) (*pgxpool.Pool, error) { return nil, errors.New("connection refused") }}
	start := time.Now()
	if got, dir := cmdutil.CompleteColumn(down, "helix_skills", "name", false)(&cobra.Command{}, nil, ""); got != nil || dir != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("unreachable: %q %v", got, dir)
	}
	if time.Since(start) > time.Second {
		t.Errorf("unreachable database took %v", time.Since(start))
	}
}

func TestCompleteTimezone(t *testing.T) {
	got, _ := cmdutil.CompleteTimezone(nil, nil, "Europe/Be")
	if len(got) == 0 {
		t.Skip("no zoneinfo on this machine")
	}
	if !slices.Contains(got, "Europe/Berlin") || slices.Contains(got, "UTC") {
		t.Errorf("Europe/Be: %q", got)
	}
	if got, _ := cmdutil.CompleteTimezone(nil, nil, "U"); !slices.Contains(got, "UTC") {
		t.Errorf("U: %q", got)
	}
}
