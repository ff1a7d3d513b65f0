package synccmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/syncer"
)

const user = "8f14e45f-ceea-467f-a8f0-0b1a5e2c9d11"

// seed inserts the README's example: three devices editing memory m1, two
// editing skill s1 concurrently (manual), and one malformed change.
func seed(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `
		INSERT INTO sync_changes (entity_type, entity_id, user_id, device_id, clock, ts, op, doc, received_at) VALUES
		('memory', 'm1', $1, 'phone',  '{"phone":1}',            '2026-11-01T08:00:00Z', 'put',   '{"title":"Trip","tags":{"travel":true}}', '2026-11-01T09:00:00Z'),
		('memory', 'm1', $1, 'laptop', '{"phone":1,"laptop":1}', '2026-11-01T08:05:00Z', 'patch', '{"tags":{"work":false}}', '2026-11-01T09:00:00Z'),
		('memory', 'm1', $1, 'web',    '{"phone":1,"web":1}',    '2026-11-01T08:06:00Z', 'patch', '{"title":"Trip to Lisbon"}', '2026-11-01T09:00:00Z'),
		('skill',  's1', $1, 'phone',  '{"phone":1}',            '2026-11-01T08:00:00Z', 'put',   '{"name":"standup"}', '2026-11-01T09:30:00Z'),
		('skill',  's1', $1, 'laptop', '{"laptop":1}',           '2026-11-01T08:01:00Z', 'put',   '{"name":"daily standup"}', '2026-11-01T09:30:00Z'),
		('skill',  's2', $1, 'laptop', '{"phone":1}',            '2026-11-01T08:01:00Z', 'put',   '{"name":"x"}', '2026-11-01T09:30:00Z')`, user)
	if err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, cmd *cobra.Command, args ...string) error {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetFlagErrorFunc(cmdutil.WrapFlagError)
	cmd.SetOut(&strings.Builder{})
	cmd.SetErr(&strings.Builder{})
	return cmd.Execute()
}

func TestReconcileFlags(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	var got *ReconcileOptions
	capture := func(o *ReconcileOptions) error { got = o; return nil }
	if err := run(t, NewCmdReconcile(f, capture)); err != nil || got.Batch != syncer.DefaultBatch || got.EntityType != "" {
		t.Fatalf("defaults: %+v %v", got, err)
	}
	if err := run(t, NewCmdReconcile(f, capture), "--entity-type", "memory", "--user-id", user, "--batch-size", "50"); err != nil ||
		got.EntityType != "memory" || got.UserID.String() != user || got.Batch != 50 {
		t.Fatalf("flags: %+v %v", got, err)
	}
	var fe *cmdutil.FlagError
	for _, args := range [][]string{{"--batch-size", "0"}, {"--user-id", "bob"}, {"extra"}} {
		got = nil
		err := run(t, NewCmdReconcile(f, capture), args...)
		if got != nil || err == nil {
			t.Errorf("%v: ran or no error: %v", args, err)
		}
		if args[0] != "extra" && !errors.As(err, &fe) {
			t.Errorf("%v: %v is not a flag error", args, err)
		}
	}
}

func TestConflictsFlags(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	var got *ConflictsResolveOptions
	capture := func(o *ConflictsResolveOptions) error { got = o; return nil }
	if err := run(t, NewCmdConflictsResolve(f, capture), "12", "--take", "B"); err != nil || got.ID != 12 || got.Take != "B" {
		t.Fatalf("%+v %v", got, err)
	}
	got = nil
	if err := run(t, NewCmdConflictsResolve(f, capture), "12"); err == nil || got != nil {
		t.Errorf("missing --take accepted")
	}
	var fe *cmdutil.FlagError
	if err := run(t, NewCmdConflictsResolve(f, capture), "x", "--take", "A"); !errors.As(err, &fe) {
		t.Errorf("bad id: %v", err)
	}
	var lo *ConflictsListOptions
	if err := run(t, NewCmdConflictsList(f, func(o *ConflictsListOptions) error { lo = o; return nil }), "--include-resolved", "--entity-type", "skill"); err != nil || !lo.All || lo.EntityType != "skill" {
		t.Errorf("list: %+v %v", lo, err)
	}
	var so *ConflictsShowOptions
	if err := run(t, NewCmdConflictsShow(f, func(o *ConflictsShowOptions) error { so = o; return nil }), "7"); err != nil || so.ID != 7 {
		t.Errorf("show: %+v %v", so, err)
	}
}

func TestStrategiesFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("sync:\n  strategies:\n    skill: manual\n    setting: lww\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := shared.SyncStrategies(cfg)
	if err != nil || len(s) != 2 || s["skill"] != "manual" || s["setting"] != "lww" {
		t.Fatalf("%v %v", s, err)
	}
}

func TestStrategiesFromEnv(t *testing.T) {
	t.Setenv("HELIX_SYNC_STRATEGIES", "skill=manual, setting=lww")
	f, _ := cmdtest.Factory(t, false)
	cfg, _ := f.Config()
	s, err := shared.SyncStrategies(cfg)
	if err != nil || len(s) != 2 || s["skill"] != "manual" || s["setting"] != "lww" {
		t.Fatalf("%v %v", s, err)
	}
	t.Setenv("HELIX_SYNC_STRATEGIES", "skill=newest")
	f, _ = cmdtest.Factory(t, false)
	cfg, _ = f.Config()
	if _, err := shared.SyncStrategies(cfg); err == nil || !strings.Contains(err.Error(), "sync.strategies.skill") {
		t.Errorf("bad strategy: %v", err)
	}
}

// TestSyncWorkflow runs reconcile, status and the conflicts commands on one
// database, as a user would, and checks what each prints.
func TestSyncWorkflow(t *testing.T) {
	t.Setenv("HELIX_SYNC_STRATEGIES", "skill=manual")
	ctx := context.Background()
	pool := pgtest.New(t)
	seed(t, pool)

	f, io := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	if err := statusRun(ctx, &StatusOptions{F: f}); err != nil {
		t.Fatal(err)
	}
	wantStatus := "memory\tfield-lww\t3\t1\t2026-11-01T09:00:00Z\t0\nskill\tmanual\t3\t2\t2026-11-01T09:30:00Z\t0\n"
	if got := io.Out.String(); got != wantStatus {
		t.Errorf("status:\n%q\nwant\n%q", got, wantStatus)
	}

	io.Out.Reset()
	err := reconcileRun(ctx, &ReconcileOptions{F: f, Batch: 4})
	var pe *cmdutil.PartialError
	if !errors.As(err, &pe) || len(pe.Failed) != 1 || !strings.Contains(pe.Failed[0], `clock {"phone":1} has no entry for its own device "laptop"`) {
		t.Fatalf("reconcile error: %v", err)
	}
	if got, want := io.Out.String(), "reconciled 6 changes in 2 batches: 3 applied, 0 discarded, 1 merged, 1 conflicted, 1 invalid\n"; got != want {
		t.Errorf("reconcile stdout %q, want %q", got, want)
	}
	if got := io.Err.String(); !strings.Contains(got, `msg=progress job="sync reconcile" done=2 total=2 failed=1`) {
		t.Errorf("reconcile stderr %q", got)
	}
	var doc, status, counts string
	if err := pool.QueryRow(ctx, `SELECT doc::text FROM sync_state WHERE entity_id = 'm1'`).Scan(&doc); err != nil {
		t.Fatal(err)
	}
	if doc != `{"tags": {"work": false, "travel": true}, "title": "Trip to Lisbon"}` {
		t.Errorf("m1 = %s", doc)
	}
	if err := pool.QueryRow(ctx, `SELECT status, counts::text FROM job_runs WHERE job = 'sync reconcile'`).Scan(&status, &counts); err != nil {
		t.Fatal(err)
	}
	if status != "partial" || !strings.Contains(counts, `"invalid": 1`) {
		t.Errorf("job_runs: %s %s", status, counts)
	}

	io.Out.Reset()
	if err := statusRun(ctx, &StatusOptions{F: f}); err != nil {
		t.Fatal(err)
	}
	if got, want := io.Out.String(), "skill\tmanual\t0\t0\t-\t1\n"; got != want {
		t.Errorf("status after: %q, want %q", got, want)
	}
	if got := io.Err.String(); !strings.HasSuffix(got, "No pending changes.\n") {
		t.Errorf("status after, stderr %q: does not say nothing is pending", got)
	}

	io.Out.Reset()
	if err := conflictsListRun(ctx, &ConflictsListOptions{F: f}); err != nil {
		t.Fatal(err)
	}
	if got, want := io.Out.String(), "1\tskill\ts1\t"+user+"\t2\topen\t2026-11-01T12:00:00Z\n"; got != want {
		t.Errorf("list: %q, want %q", got, want)
	}

	io.Out.Reset()
	if err := conflictsShowRun(ctx, &ConflictsShowOptions{F: f, ID: 1}); err != nil {
		t.Fatal(err)
	}
	wantShow := `conflict 1 (open): skill s1 of user ` + user + `, updated 2026-11-01T12:00:00Z

A  device phone at 2026-11-01T08:00:00Z, clock {phone:1}
  {"name": "standup"}

B  device laptop at 2026-11-01T08:01:00Z, clock {laptop:1}
  {"name": "daily standup"}
`
	if got := io.Out.String(); got != wantShow {
		t.Errorf("show:\n%s\nwant\n%s", got, wantShow)
	}

	var ee *cmdutil.ExitError
	if err := conflictsResolveRun(ctx, &ConflictsResolveOptions{F: f, ID: 1, Take: "C"}); !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage {
		t.Errorf("take C: %v", err)
	}
	if err := conflictsShowRun(ctx, &ConflictsShowOptions{F: f, ID: 99}); !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage {
		t.Errorf("show 99: %v", err)
	}
	io.Out.Reset()
	if err := conflictsResolveRun(ctx, &ConflictsResolveOptions{F: f, ID: 1, Take: `{"name":"stand-up","minutes":15}`}); err != nil {
		t.Fatal(err)
	}
	if got, want := io.Out.String(), "resolved conflict 1 with json (change 7, clock {helix:1 laptop:1 phone:1})\n"; got != want {
		t.Errorf("resolve: %q, want %q", got, want)
	}
	if err := pool.QueryRow(ctx, `SELECT doc::text FROM sync_state WHERE entity_id = 's1'`).Scan(&doc); err != nil {
		t.Fatal(err)
	}
	if doc != `{"name": "stand-up", "minutes": 15}` {
		t.Errorf("s1 = %s", doc)
	}
	if err := conflictsResolveRun(ctx, &ConflictsResolveOptions{F: f, ID: 1, Take: "A"}); !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage {
		t.Errorf("resolving twice: %v", err)
	}

	// A phone that synced the resolution and edits on top of it: applied, no new conflict.
	if _, err := pool.Exec(ctx, `INSERT INTO sync_changes (entity_type, entity_id, user_id, device_id, clock, ts, op, doc)
		VALUES ('skill', 's1', $1, 'phone', '{"helix":1,"laptop":1,"phone":2}', '2026-11-01T13:00:00Z', 'put', '{"name":"stand-up","minutes":10}')`, user); err != nil {
		t.Fatal(err)
	}
	io.Out.Reset()
	if err := reconcileRun(ctx, &ReconcileOptions{F: f, Batch: 100, EntityType: "skill"}); err != nil {
		t.Fatal(err)
	}
	if got, want := io.Out.String(), "reconciled 1 change in 1 batch: 1 applied, 0 discarded, 0 merged, 0 conflicted\n"; got != want {
		t.Errorf("second reconcile: %q", got)
	}
}

func TestOutputsJSONAndTTY(t *testing.T) {
	t.Setenv("HELIX_SYNC_STRATEGIES", "skill=manual")
	ctx := context.Background()
	pool := pgtest.New(t)
	seed(t, pool)

	f, io := cmdtest.Factory(t, true)
	cmdtest.WithDB(f, pool)
	if err := statusRun(ctx, &StatusOptions{F: f}); err != nil {
		t.Fatal(err)
	}
	if got := io.Out.String(); !strings.HasPrefix(got, "ENTITY TYPE  STRATEGY   PENDING  ENTITIES  OLDEST                OPEN CONFLICTS\nmemory       field-lww  3        1         2026-11-01T09:00:00Z  0") {
		t.Errorf("tty status:\n%s", got)
	}
	_ = reconcileRun(ctx, &ReconcileOptions{F: f, Batch: 1000, UserID: cmdutil.UserID{ID: uuid.MustParse(user), Given: true}})
	if got := io.Err.String(); !strings.Contains(got, "\rsync reconcile [") || !strings.Contains(got, "] 1/1 (1 failed)") {
		t.Errorf("tty progress %q", got)
	}

	f.Global.Output = "json"
	io.Out.Reset()
	if err := conflictsListRun(ctx, &ConflictsListOptions{F: f}); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Conflicts []struct {
			ID       int64
			Siblings []struct {
				Label string
				Doc   map[string]any
			}
		}
	}
	if err := json.Unmarshal(io.Out.Bytes(), &list); err != nil || len(list.Conflicts) != 1 || len(list.Conflicts[0].Siblings) != 2 ||
		list.Conflicts[0].Siblings[1].Label != "B" || list.Conflicts[0].Siblings[1].Doc["name"] != "daily standup" {
		t.Fatalf("json list %s: %v", io.Out, err)
	}
	io.Out.Reset()
	if err := conflictsResolveRun(ctx, &ConflictsResolveOptions{F: f, ID: 1, Take: "b"}); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Resolution struct {
			Take string
			Doc  map[string]any
		}
	}
	if err := json.Unmarshal(io.Out.Bytes(), &res); err != nil || res.Resolution.Take != "B" || res.Resolution.Doc["name"] != "daily standup" {
		t.Errorf("json resolve %s: %v", io.Out, err)
	}
}

// No conflicts says so (stderr) and is [] in JSON, not silence or null (issue 49).
func TestConflictsListEmpty(t *testing.T) {
	pool := pgtest.New(t)
	f, io := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	if err := conflictsListRun(context.Background(), &ConflictsListOptions{F: f}); err != nil {
		t.Fatal(err)
	}
	if io.Out.String() != "" || io.Err.String() != "no open conflicts\n" {
		t.Errorf("stdout %q, stderr %q; want only \"no open conflicts\" on stderr", io.Out.String(), io.Err.String())
	}
	io.Out.Reset()
	f.Global.Output = "json"
	if err := conflictsListRun(context.Background(), &ConflictsListOptions{F: f}); err != nil {
		t.Fatal(err)
	}
	if io.Out.String() != "{\n  \"conflicts\": []\n}\n" && strings.TrimSpace(io.Out.String()) != `{"conflicts":[]}` {
		t.Errorf("json %q, want {\"conflicts\": []}", io.Out.String())
	}
}
