package patterns

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
)

const (
	userA = "11111111-1111-4111-8111-111111111111"
	userB = "22222222-2222-4222-8222-222222222222"
)

func TestListFlags(t *testing.T) {
	t.Parallel()
	f, _ := cmdtest.Factory(t, false)
	var got *ListOptions
	cmd := NewCmdList(f, func(o *ListOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--user-id", userA, "--type", "semantic_cluster", "--since", "30d", "--limit", "5"})
	if err := cmd.Execute(); err != nil || got.UserID.String() != userA || got.Type != "semantic_cluster" || got.Limit != 5 ||
		got.since.IsZero() || f.Now().Sub(got.since) != 30*24*time.Hour {
		t.Fatalf("list flags: %+v %v", got, err)
	}
	for _, args := range [][]string{{}, {"--user-id", "bob"}, {"--user-id", userA, "--since", "soon"}, {"--user-id", userA, "--limit", "-1"}} {
		cmd := NewCmdList(f, func(*ListOptions) error { return nil })
		cmd.SetArgs(args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		cmd.SetFlagErrorFunc(cmdutil.WrapFlagError)
		if err := cmd.Execute(); err == nil {
			t.Errorf("list %v: no error", args)
		}
	}
}

// TestListAndShow: both tables, newest first, filtered by type and time;
// another user's pattern is neither listed nor shown; outside text is
// escaped before the terminal.
func TestListAndShow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	if _, err := pool.Exec(ctx, `
		INSERT INTO memory_synthesis (id, user_id, pattern_type, memory_ids, synthesis_content, confidence_score, created_at, generator, evidence)
		VALUES ('aaaaaaaa-0000-4000-8000-000000000001', $1, 'semantic_cluster', ARRAY['00000000-0000-4000-8000-00000000000a']::uuid[],
		        'garden'||chr(27)||'[31m red', 0.9, now() - interval '2 days', 'helix', '{"algorithm": "dbscan"}'),
		       ('aaaaaaaa-0000-4000-8000-000000000002', $2, 'semantic_cluster', ARRAY[]::uuid[], 'other user', 0.8, now(), 'helix', '{}')`, userA, userB); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO memory_patterns (id, user_id, pattern_type, content, confidence, evidence, created_at, model)
		VALUES ('bbbbbbbb-0000-4000-8000-000000000001', $1, 'narrative_themes', '{"theme": "growth"}', 0.7, ARRAY['m1', 'm2'], now() - interval '1 day', 'anthropic/claude'),
		       ('bbbbbbbb-0000-4000-8000-000000000002', $1, 'narrative_themes', '{"theme": "old"}', 0.6, ARRAY['m3'], now() - interval '90 days', NULL)`, userA); err != nil {
		t.Fatal(err)
	}
	// the statistical pattern has been seen in 3 runs (issue 45)
	if _, err := pool.Exec(ctx, `INSERT INTO helix_pattern_lineages (id, user_id, source, kind, status, first_seen_at, last_seen_at, runs_seen,
			pattern_id, size, updated_at)
		VALUES ('cccccccc-0000-4000-8000-000000000001', $1, 'statistical', 'semantic_cluster', 'growing', '2026-11-01T00:00:00Z', now(), 3,
			'aaaaaaaa-0000-4000-8000-000000000001', 1, now())`, userA); err != nil {
		t.Fatal(err)
	}
	list := func(json bool, args ...string) string {
		t.Helper()
		f, s := cmdtest.Factory(t, false)
		cmdtest.WithDB(f, pool)
		if json {
			f.Global.Output = "json"
		}
		cmd := NewCmdList(f, nil)
		cmd.SetArgs(args)
		if err := cmd.ExecuteContext(ctx); err != nil {
			t.Fatal(err)
		}
		return s.Out.String()
	}
	var got struct {
		Patterns []struct {
			ID          string          `json:"id"`
			UserID      string          `json:"user_id"`
			Source      string          `json:"source"`
			Content     json.RawMessage `json:"content"`
			EvidenceIDs []string        `json:"evidence_ids"`
			Algorithm   *string         `json:"algorithm"`
			Lineage     *struct {
				ID       string `json:"id"`
				Status   string `json:"status"`
				RunsSeen int    `json:"runs_seen"`
			} `json:"lineage"`
		} `json:"patterns"`
	}
	if err := json.Unmarshal([]byte(list(true, "--user-id", userA)), &got); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range got.Patterns {
		ids = append(ids, p.ID[:10]+p.Source)
		if p.UserID != userA {
			t.Errorf("another user's pattern listed: %+v", p)
		}
	}
	if strings.Join(ids, " ") != "bbbbbbbb-0llm aaaaaaaa-0statistical bbbbbbbb-0llm" || *got.Patterns[0].Algorithm != "anthropic/claude" ||
		*got.Patterns[1].Algorithm != "dbscan" || len(got.Patterns[0].EvidenceIDs) != 2 || string(got.Patterns[0].Content) != `{"theme":"growth"}` {
		t.Errorf("list --user-id A: %s", list(true, "--user-id", userA))
	}
	if l := got.Patterns[1].Lineage; l == nil || l.ID != "cccccccc-0000-4000-8000-000000000001" || l.Status != "growing" || l.RunsSeen != 3 || got.Patterns[0].Lineage != nil {
		t.Errorf("lineages: the statistical pattern's %+v, the llm one's %+v", l, got.Patterns[0].Lineage)
	}
	if out := list(false, "--user-id", userA); !strings.Contains(out, "growing since 2026-11-01T00:00:00Z, 3 runs (cccccccc-0000-4000-8000-000000000001)") {
		t.Errorf("text list without the lineage: %s", out)
	}
	if out := list(true, "--user-id", userA, "--type", "narrative_themes", "--since", "30d"); strings.Count(out, `"id"`) != 1 || !strings.Contains(out, "growth") {
		t.Errorf("--type narrative_themes --since 30d: %s", out)
	}
	if out := list(false, "--user-id", userA); !strings.Contains(out, `garden\x1b[31m red`) || strings.Contains(out, "\x1b") {
		t.Errorf("text list must escape control characters: %q", out)
	}
	show := func(id, user string) (string, error) {
		f, s := cmdtest.Factory(t, false)
		cmdtest.WithDB(f, pool)
		cmd := NewCmdShow(f, nil)
		cmd.SetArgs([]string{id, "--user-id", user})
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.ExecuteContext(ctx)
		return s.Out.String(), err
	}
	if out, err := show("bbbbbbbb-0000-4000-8000-000000000001", userA); err != nil || !strings.Contains(out, "source:\tllm") || !strings.Contains(out, "m1 m2") {
		t.Errorf("show: %v %q", err, out)
	}
	if _, err := show("aaaaaaaa-0000-4000-8000-000000000002", userA); cmdutil.Code(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "no pattern") {
		t.Errorf("show of another user's pattern: %v, want not found (exit 2)", err)
	}
}
