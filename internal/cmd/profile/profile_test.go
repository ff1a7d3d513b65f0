package profilecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/llmsynth/llmtest"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/profile"
	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/synthesis/synthstore"
)

const (
	anthKey = "sk-ant-api03-TESTKEYabcdefghijklmnopqrstuvwxyz0123456789"
	ana     = "11111111-1111-4111-8111-111111111111"
	ben     = "22222222-2222-4222-8222-222222222222"
)

func TestNewCmdUpdateFlags(t *testing.T) {
	for argv, want := range map[string]string{
		"":                                       "give --user-id UUID or --all-users",
		"--user-id " + ana + " --all-users":      "cannot be used together",
		"--all-users --max-cost -1":              "invalid --max-cost",
		"--all-users --enqueue --max-cost 1":     "cannot span queued jobs",
		"--all-users --model claude":             "invalid --model",
		"--user-id nope":                         `invalid --user-id "nope": not a UUID`,
		"--all-users --model openai/gpt-4o-mini": "",
	} {
		f, _ := cmdtest.Factory(t, false)
		o, err := cmdtest.Parse(func(runF func(*UpdateOptions) error) *cobra.Command { return NewCmdUpdate(f, runF) }, argv)
		switch {
		case want == "" && (err != nil || !o.AllUsers || o.Model != "openai/gpt-4o-mini"):
			t.Errorf("%q: %v %+v", argv, err, o)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || cmdutil.Code(err) != cmdutil.ExitUsage):
			t.Errorf("%q: err %v (exit %d), want %q, exit 2", argv, err, cmdutil.Code(err), want)
		}
	}
	f, _ := cmdtest.Factory(t, false)
	if _, err := cmdtest.Parse(func(runF func(*ShowOptions) error) *cobra.Command { return NewCmdShow(f, runF) }, ""); err == nil {
		t.Error("show without --user-id accepted")
	}
}

// profileDB holds two users' memories, synthesized once (statistical
// lineages), as the nightly run leaves them.
func profileDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.New(t)
	for i, u := range []string{ana, ben} {
		user := uuid.MustParse(u)
		if _, err := memories.Insert(ctx, pool, synthesis.Synthetic(user, 40, 8, uint64(i+1))); err != nil {
			t.Fatal(err)
		}
		p := synthesis.DefaultParams()
		r, err := synthstore.Compute(ctx, user, synthstore.ReadUser(ctx, pool, user, synthstore.Filter{}, p), p)
		if err != nil {
			t.Fatal(err)
		}
		w := &synthstore.Write{Now: time.Date(2026, 11, 1, 3, 0, 0, 0, time.UTC), LockWait: time.Second}
		if err := w.One(ctx, pool, r); err != nil {
			t.Fatal(err)
		}
	}
	return pool
}

func run(t *testing.T, pool *pgxpool.Pool, srv *llmtest.Server, asJSON bool, cmd func(*cmdutil.Factory) *cobra.Command, argv string) (string, string, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte("llm:\n  anthropic:\n    base-url: "+srv.URL+"\n    api-key: "+anthKey+"\n  max-tokens: 1000\n  retries: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	f, s := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	f.Config = func() (*config.Config, error) { return cfg, nil }
	if asJSON {
		f.Global.Output = "json"
	}
	c := cmd(f)
	c.SetArgs(strings.Fields(argv))
	c.SetOut(&bytes.Buffer{})
	c.SetErr(&bytes.Buffer{})
	err = c.ExecuteContext(context.Background())
	return s.Out.String(), s.Err.String(), err
}

func update(f *cmdutil.Factory) *cobra.Command { return NewCmdUpdate(f, nil) }
func show(f *cmdutil.Factory) *cobra.Command   { return NewCmdShow(f, nil) }

func scalar[T any](t *testing.T, pool *pgxpool.Pool, sql string, args ...any) T {
	t.Helper()
	var v T
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestProfileUpdateFollowsChange: profile update --all-users builds both
// users' profiles (one full_synthesis call each); run again with nothing
// changed, it sends no request and writes nothing (the provider's request log
// and helix_profiles say so); a recommendation marked done changes that
// user's profile alone, without a call (its full_synthesis brief is the same).
func TestProfileUpdateFollowsChange(t *testing.T) {
	t.Parallel()
	pool := profileDB(t)
	srv := llmtest.NewAnthropic(t, anthKey, func(c llmtest.Call) llmtest.Reply {
		ids := llmtest.ShortIDs(c.Body)
		return llmtest.Reply{Body: llmtest.AnthropicToolUse("record_patterns", llmtest.Answer(llmtest.RequestedTypes(c), ids[0], ids[1], "m999"),
			llmtest.Usage{Input: 1000, Output: 200})}
	})
	out, errOut, err := run(t, pool, srv, true, update, "--all-users")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var rep UpdateReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(srv.Calls()) != 2 || rep.Counts["updated"] != 2 || rep.Counts["calls"] != 2 || len(rep.Users) != 2 || !rep.Users[0].Summary {
		t.Fatalf("first update: %d calls, report %+v", len(srv.Calls()), rep)
	}
	const table = `SELECT count(*) || ' ' || md5(string_agg(user_id::text || basis || profile::text || updated_at::text || coalesce(job_run_id, 0), ',' ORDER BY user_id)) FROM helix_profiles`
	before := scalar[string](t, pool, table)
	if !strings.HasPrefix(before, "2 ") {
		t.Fatalf("profiles: %s", before)
	}
	var p profile.Profile
	if err := json.Unmarshal([]byte(scalar[string](t, pool, `SELECT profile::text FROM helix_profiles WHERE user_id = $1`, ana)), &p); err != nil {
		t.Fatal(err)
	}
	if p.Summary == nil || !strings.HasPrefix(p.Summary.Text, "A person whose") || len(p.Findings) != 1 || p.Findings[0].Layer != "emotional_memory" ||
		len(p.Lineages) == 0 || p.Lineages[0].Status != "new" || len(p.Recommendations) != 1 || p.Recommendations[0].Text != "notice it" {
		t.Fatalf("profile %+v", p)
	}

	// nothing changed: no request, no write
	out, errOut, err = run(t, pool, srv, true, update, "--all-users")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	rep = UpdateReport{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(srv.Calls()) != 2 || rep.Counts["unchanged"] != 2 || rep.Counts["updated"] != 0 || rep.Counts["calls"] != 0 {
		t.Fatalf("second update: %d calls in all, report %+v", len(srv.Calls()), rep)
	}
	if after := scalar[string](t, pool, table); after != before {
		t.Fatalf("an update with nothing changed wrote profiles:\n before %s\n after  %s", before, after)
	}

	// Ana marks her recommendation done: her profile alone is rebuilt, with no call.
	const benRow = `SELECT profile::text || basis || coalesce(job_run_id, 0) FROM helix_profiles WHERE user_id = $1`
	benBefore := scalar[string](t, pool, benRow, ben)
	if _, err := pool.Exec(context.Background(), `UPDATE helix_recommendations SET status = 'done' WHERE user_id = $1`, ana); err != nil {
		t.Fatal(err)
	}
	_, errOut, err = run(t, pool, srv, false, update, "--all-users")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if len(srv.Calls()) != 2 || !strings.Contains(errOut, "1 of 2 users changed, 1 profile updated (1 full_synthesis reused), 1 unchanged, 0 calls") {
		t.Fatalf("after a status change: %d calls; %s", len(srv.Calls()), errOut)
	}
	if n := scalar[int](t, pool, `SELECT jsonb_array_length(profile->'recommendations') FROM helix_profiles WHERE user_id = $1`, ana); n != 0 {
		t.Fatalf("ana's profile lists %d open recommendations, want 0", n)
	}
	if got := scalar[string](t, pool, benRow, ben); got != benBefore {
		t.Fatal("ben's profile rewritten though nothing of his changed")
	}

	// show: the stored document, and a text view
	out, _, err = run(t, pool, srv, true, show, "--user-id "+ana)
	var st profile.Stored
	if err != nil || json.Unmarshal([]byte(out), &st) != nil || st.UserID.String() != ana || !bytes.Contains(st.Profile, []byte(`"summary"`)) {
		t.Fatalf("show -o json: %v %s", err, out)
	}
	out, _, err = run(t, pool, srv, false, show, "--user-id "+ana)
	if err != nil || !strings.Contains(out, "Summary (confidence 0.80):\n  A person whose") || !strings.Contains(out, "[emotional_memory] a full_synthesis pattern") ||
		!strings.Contains(out, "Open recommendations:\n  none") {
		t.Fatalf("show: %v\n%s", err, out)
	}
	_, _, err = run(t, pool, srv, false, show, "--user-id 33333333-3333-4333-8333-333333333333")
	if cmdutil.Code(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "no profile for user") {
		t.Fatalf("show of a user without a profile: %v", err)
	}
}
