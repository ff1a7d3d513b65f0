package manifest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/pgtest"
)

func auditTrail(t *testing.T, q db.Querier, name string) []string {
	t.Helper()
	rows, err := q.Query(context.Background(), `
		SELECT m.version, a.actor, a.from_state, a.to_state
		FROM tool_audit a JOIN tool_manifests m ON m.id = a.tool_id
		WHERE m.name = $1 ORDER BY a.id`, name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var v, who, from, to string
		if err := rows.Scan(&v, &who, &from, &to); err != nil {
			t.Fatal(err)
		}
		out = append(out, v+" "+who+" "+from+"→"+to)
	}
	return out
}

func states(t *testing.T, q db.Querier, name string) string {
	t.Helper()
	var s string
	err := q.QueryRow(context.Background(), `
		SELECT string_agg(version || '=' || state, ' ' ORDER BY version) FROM tool_manifests WHERE name = $1`, name).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }

	// import → proposed
	ch, err := manifest.Record(ctx, pool, candidates(t, "tools/weather-1.0.0.yaml"), manifest.ImportOptions{Actor: "importer", Now: at(0)})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 || ch[0].Action != "created" || ch[0].State != manifest.Proposed {
		t.Fatalf("first import: %+v", ch)
	}
	// identical re-import: no-op
	ch, err = manifest.Record(ctx, pool, candidates(t, "tools/weather-1.0.0.yaml"), manifest.ImportOptions{Actor: "importer", Now: at(1)})
	if err != nil || ch[0].Action != "unchanged" {
		t.Fatalf("identical re-import: %+v %v", ch, err)
	}
	// approve
	if _, err := manifest.Approve(ctx, pool, "weather", "1.0.0", "alice", "", at(2)); err != nil {
		t.Fatal(err)
	}
	// a widened new version lands proposed, the approved one stays approved
	ch, err = manifest.Record(ctx, pool, candidates(t, "tools/weather-1.1.0.yaml"), manifest.ImportOptions{Actor: "importer", AutoApproveNarrower: true, Now: at(3)})
	if err != nil {
		t.Fatal(err)
	}
	if ch[0].State != manifest.Proposed || !strings.Contains(ch[0].Reason, "new host tiles.weather.example") || !strings.Contains(ch[0].Reason, "memory 128 MiB → 512 MiB") {
		t.Errorf("widened version: %+v", ch[0])
	}
	if got := states(t, pool, "weather"); got != "1.0.0=approved 1.1.0=proposed" {
		t.Errorf("states %s", got)
	}
	// approving it supersedes the older one
	if _, err := manifest.Approve(ctx, pool, "weather", "1.1.0", "bob", "hosts reviewed", at(4)); err != nil {
		t.Fatal(err)
	}
	if got := states(t, pool, "weather"); got != "1.0.0=superseded 1.1.0=approved" {
		t.Errorf("states %s", got)
	}
	// approving twice is refused
	var se *manifest.StateError
	if _, err := manifest.Approve(ctx, pool, "weather", "1.1.0", "bob", "", at(4)); !errors.As(err, &se) {
		t.Errorf("second approval: %v", err)
	}
	// revoke
	rv, err := manifest.Revoke(ctx, pool, "weather", "1.1.0", "carol", "provider leaked keys", at(5))
	if err != nil || len(rv) != 1 {
		t.Fatalf("revoke: %+v %v", rv, err)
	}
	if got := states(t, pool, "weather"); got != "1.0.0=superseded 1.1.0=revoked" {
		t.Errorf("states %s", got)
	}
	want := []string{
		"1.0.0 importer discovered→proposed",
		"1.0.0 alice proposed→approved",
		"1.1.0 importer discovered→proposed",
		"1.1.0 bob proposed→approved",
		"1.0.0 bob approved→superseded",
		"1.1.0 carol approved→revoked",
	}
	got := auditTrail(t, pool, "weather")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit trail:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	tool, err := manifest.Show(ctx, pool, "weather", "")
	if err != nil {
		t.Fatal(err)
	}
	if tool.Version != "1.1.0" || tool.State != manifest.Revoked || len(tool.Audit) != 3 || tool.Audit[2].Reason != "provider leaked keys" || !tool.Audit[2].At.Equal(at(5)) {
		t.Errorf("show: %+v", tool)
	}
	if tool.Manifest.Permissions.Network[1] != "tiles.weather.example" {
		t.Errorf("manifest round trip: %+v", tool.Manifest.Permissions)
	}
	// revoking again finds nothing live
	if _, err := manifest.Revoke(ctx, pool, "weather", "", "carol", "again", at(6)); !errors.As(err, &se) {
		t.Errorf("revoke of a revoked tool: %v", err)
	}
}

func TestAutoApproveNarrower(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	if _, err := manifest.Record(ctx, pool, candidates(t, "tools/weather-1.1.0.yaml"), manifest.ImportOptions{Actor: "i", Now: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Approve(ctx, pool, "weather", "1.1.0", "alice", "", now); err != nil {
		t.Fatal(err)
	}
	// 1.2.0 drops a host and asks less memory than 1.1.0: narrower.
	ch, err := manifest.Record(ctx, pool, candidates(t, "tools/weather-1.2.0.yaml"), manifest.ImportOptions{Actor: "i", Now: now})
	if err != nil || ch[0].State != manifest.Proposed {
		t.Fatalf("without the flag a narrower version is still proposed: %+v %v", ch, err)
	}
	pool2 := pgtest.New(t)
	if _, err := manifest.Record(ctx, pool2, candidates(t, "tools/weather-1.1.0.yaml"), manifest.ImportOptions{Actor: "i", Now: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Approve(ctx, pool2, "weather", "1.1.0", "alice", "", now); err != nil {
		t.Fatal(err)
	}
	ch, err = manifest.Record(ctx, pool2, candidates(t, "tools/weather-1.2.0.yaml"), manifest.ImportOptions{Actor: "i", AutoApproveNarrower: true, Now: now})
	if err != nil || ch[0].State != manifest.Approved || !strings.Contains(ch[0].Reason, "auto-approved") {
		t.Fatalf("narrower with --auto-approve-narrower: %+v %v", ch, err)
	}
	if got := states(t, pool2, "weather"); got != "1.1.0=superseded 1.2.0=approved" {
		t.Errorf("states %s", got)
	}
}

func TestRecordIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	if _, err := manifest.Record(ctx, pool, candidates(t, "tools/weather-1.0.0.yaml"), manifest.ImportOptions{Actor: "i", Now: now}); err != nil {
		t.Fatal(err)
	}
	// Same name and version, other content, after a batch of valid tools: nothing is written.
	changed := candidates(t, "oai-v3.0-petstore.yaml", "tools/weather-1.0.0.yaml")
	m := *changed[len(changed)-1].Manifest
	m.Description = "changed without a new version"
	changed[len(changed)-1].Manifest = &m
	_, err := manifest.Record(ctx, pool, changed, manifest.ImportOptions{Actor: "i", Now: now})
	var ce *manifest.ConflictError
	if !errors.As(err, &ce) || ce.Name != "weather" {
		t.Fatalf("conflict: %v", err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM tool_manifests) + (SELECT count(*) FROM tool_audit) + (SELECT count(*) FROM tool_permissions)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	// weather@1.0.0: one manifest, one audit row, host+cpu+memory+timeout permissions.
	if n != 1+1+4 {
		t.Errorf("%d rows after a failed import, want only the first import's 6", n)
	}
}

func TestRecordOpenAI(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	cands := candidates(t, "openai-openapi.yaml.gz")
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	ch, err := manifest.Record(ctx, pool, cands, manifest.ImportOptions{Actor: "i", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 288 {
		t.Errorf("%d changes", len(ch))
	}
	tools, err := manifest.List(ctx, pool, manifest.Proposed)
	if err != nil || len(tools) != 288 {
		t.Fatalf("list: %d %v", len(tools), err)
	}
	var creds int
	if err := pool.QueryRow(ctx, `SELECT count(DISTINCT tool_id) FROM tool_permissions WHERE kind = 'credential'`).Scan(&creds); err != nil {
		t.Fatal(err)
	}
	if creds == 0 {
		t.Error("no required credentials recorded")
	}
	// A second import is a no-op.
	ch, err = manifest.Record(ctx, pool, cands, manifest.ImportOptions{Actor: "i", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ch {
		if c.Action != "unchanged" {
			t.Fatalf("re-import changed %+v", c)
		}
	}
}

// Large manifests are compressed with lz4 where the server has it: pglz was
// most of the import's INSERT time.
func TestRecordCompressesWithLZ4(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	var lz4 bool
	if err := pool.QueryRow(ctx, `SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'`).Scan(&lz4); err != nil || !lz4 {
		t.Skipf("the server has no lz4 (%v)", err)
	}
	if _, err := manifest.Record(ctx, pool, candidates(t, openAIFile), manifest.ImportOptions{Actor: "t", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	var methods string
	if err := pool.QueryRow(ctx, `
		SELECT string_agg(DISTINCT pg_column_compression(manifest), ',') FROM tool_manifests`).Scan(&methods); err != nil {
		t.Fatal(err)
	}
	if methods != "lz4" {
		t.Errorf("manifests compressed with %q, want lz4", methods)
	}
}
