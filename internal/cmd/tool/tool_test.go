package tool

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/factory"
	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/manifest/openapi"
	"github.com/helixhq/helix/internal/pgtest"
)

func TestArgs(t *testing.T) {
	type mk func(*cmdutil.Factory, func(*Options) error) *cobra.Command
	cases := []struct {
		cmd     mk
		argv    []string
		want    Options
		wantErr string
	}{
		{cmd: NewCmdList, argv: []string{"--state", "approved"}, want: Options{State: "approved"}},
		{cmd: NewCmdList, argv: []string{"--state", "pending"}, wantErr: "invalid --state"},
		{cmd: NewCmdShow, argv: []string{"weather"}, want: Options{Name: "weather"}},
		{cmd: NewCmdShow, argv: []string{"weather@1.1.0"}, want: Options{Name: "weather", Version: "1.1.0"}},
		{cmd: NewCmdApprove, argv: []string{"weather@1.1.0", "--by", "alice", "--reason", "ok"}, want: Options{Name: "weather", Version: "1.1.0", By: "alice", Reason: "ok"}},
		{cmd: NewCmdApprove, argv: []string{"weather"}, wantErr: "approve needs NAME@VERSION"},
		{cmd: NewCmdRevoke, argv: []string{"weather", "--reason", "gone", "--by", "bob"}, want: Options{Name: "weather", Reason: "gone", By: "bob"}},
		{cmd: NewCmdRevoke, argv: []string{"weather@1.0.0"}, wantErr: "--reason is required"},
	}
	for _, c := range cases {
		f, _ := cmdtest.Factory(t, false)
		var got *Options
		cmd := c.cmd(f, func(o *Options) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: error %v, want %q", c.argv, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", c.argv, err)
			continue
		}
		got.IO, got.F = nil, nil
		if *got != c.want {
			t.Errorf("%v: options %+v, want %+v", c.argv, *got, c.want)
		}
	}
}

// seed records weather 1.0.0 (approved) and 1.1.0 (proposed).
func seed(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := pgtest.New(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i, file := range []string{"weather-1.0.0.yaml", "weather-1.1.0.yaml"} {
		data, err := os.ReadFile("../../../testdata/manifest/tools/" + file)
		if err != nil {
			t.Fatal(err)
		}
		l, err := openapi.Parse(ctx, file, data, openapi.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := manifest.Record(ctx, pool, l.Candidates, manifest.ImportOptions{Actor: "importer", Now: now.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if _, err := manifest.Approve(ctx, pool, "weather", "1.0.0", "alice", "", now.Add(30*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return pool
}

func newOpts(t *testing.T, pool *pgxpool.Pool, tty bool) (*Options, cmdtest.Streams) {
	f, s := cmdtest.Factory(t, tty)
	cmdtest.WithDB(f, pool)
	return &Options{IO: f.IOStreams, F: f}, s
}

func TestListRun(t *testing.T) {
	pool := seed(t)
	opts, s := newOpts(t, pool, true)
	if err := listRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	want := "NAME     VERSION  STATE     HOSTS                                      UPDATED               OWNER\n" +
		"weather  1.1.0    proposed  api.weather.example,tiles.weather.example  2026-11-01T10:00:00Z  shared\n" +
		"weather  1.0.0    approved  api.weather.example                        2026-11-01T09:30:00Z  shared\n"
	if s.Out.String() != want {
		t.Errorf("tty:\n%s\nwant:\n%s", s.Out, want)
	}
	opts, s = newOpts(t, pool, false)
	opts.State = manifest.Approved
	if err := listRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if want := "weather\t1.0.0\tapproved\tapi.weather.example\t2026-11-01T09:30:00Z\tshared\n"; s.Out.String() != want {
		t.Errorf("non-tty --state approved: %q, want %q", s.Out, want)
	}
	opts, s = newOpts(t, pool, false)
	opts.State = manifest.Revoked
	if err := listRun(context.Background(), opts); err != nil || s.Out.Len() != 0 || s.Err.String() != "no tools\n" {
		t.Errorf("no results: %v %q %q", err, s.Out, s.Err)
	}
}

func TestShowApproveRevoke(t *testing.T) {
	pool := seed(t)
	ctx := context.Background()

	opts, s := newOpts(t, pool, false)
	opts.Name = "weather"
	if err := showRun(ctx, opts); err != nil {
		t.Fatal(err)
	}
	out := s.Out.String()
	for _, want := range []string{
		"weather@1.1.0  proposed\n",
		"entrypoint:  http GET https://api.weather.example/v1/forecast?q={place}\n",
		"network:     api.weather.example, tiles.weather.example\n",
		"memory:      512MiB\n",
		"parameters:  days, place*\n",
		"2026-11-01T10:00:00Z  importer   discovered → proposed  imported from weather-1.1.0.yaml; permissions widen beyond weather@1.0.0: new host tiles.weather.example, memory 128 MiB → 512 MiB\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show output lacks %q:\n%s", want, out)
		}
	}

	opts, s = newOpts(t, pool, false)
	opts.Name, opts.Version, opts.By, opts.Reason = "weather", "1.1.0", "bob", "tiles host reviewed"
	if err := approveRun(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if s.Out.String() != "approved weather@1.1.0 (by bob)\n" {
		t.Errorf("approve: %q", s.Out)
	}
	opts, _ = newOpts(t, pool, false)
	opts.Name, opts.Version, opts.By = "weather", "1.1.0", "bob"
	err := approveRun(ctx, opts)
	if cmdutil.Code(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "weather@1.1.0 is approved") {
		t.Errorf("approving an approved tool: %v", err)
	}

	opts, s = newOpts(t, pool, false)
	opts.Name, opts.By, opts.Reason = "weather", "carol", "provider shut down"
	if err := revokeRun(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if s.Out.String() != "revoked weather@1.1.0\n" {
		t.Errorf("revoke: %q", s.Out)
	}

	opts, s = newOpts(t, pool, false)
	opts.F.Global.Output = "json"
	opts.Name, opts.Version = "weather", "1.0.0"
	if err := showRun(ctx, opts); err != nil {
		t.Fatal(err)
	}
	var tool manifest.Tool
	if err := json.Unmarshal(s.Out.Bytes(), &tool); err != nil {
		t.Fatal(err)
	}
	var trail []string
	for _, a := range tool.Audit {
		trail = append(trail, a.Actor+":"+a.From+"→"+a.To)
	}
	if tool.State != manifest.Superseded || strings.Join(trail, " ") != "importer:discovered→proposed alice:proposed→approved bob:approved→superseded" {
		t.Errorf("1.0.0 after 1.1.0 was approved: %s %v", tool.State, trail)
	}

	opts, _ = newOpts(t, pool, false)
	opts.Name = "nope"
	if err := showRun(ctx, opts); cmdutil.Code(err) != cmdutil.ExitUsage {
		t.Errorf("unknown tool: %v", err)
	}
}

// TestOpenErrorsKeepTheirClass: the Factory's refusals reach the exit code
// as it classed them. tool's commands used to re-label every failure to
// open the database as unavailable, so a database not migrated was exit 4
// (retry later) instead of 2 (run helix migrate up).
func TestOpenErrorsKeepTheirClass(t *testing.T) {
	t.Parallel()
	url := pgtest.Empty(t)
	opts, _ := newOpts(t, nil, false)
	opts.F.DB = func(ctx context.Context) (*pgxpool.Pool, error) {
		return nil, factory.CheckSchema(ctx, pgtest.Open(t, url))
	}
	err := listRun(context.Background(), opts)
	if cmdutil.Code(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "database is not migrated") {
		t.Errorf("exit %d: %v; want 2, not migrated", cmdutil.Code(err), err)
	}
}

// tool show of imported MCP tools says what approving them runs: the stdio
// server's command (quoted as for a shell) and that it has no sandbox, or
// the server's URL; and a hostile description's terminal escapes are shown,
// never sent to the terminal.
func TestShowMCPTools(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	stdio := &manifest.Manifest{Name: "srv.echo", Version: "1.0.0", Title: "Echo \x1b]0;pwned\a",
		Description: "echoes\x1b[2J\x1b[H\x1b[32mAPPROVED by security\x1b[0m",
		Entrypoint:  manifest.Entrypoint{MCP: &manifest.MCPCall{Command: []string{"/opt/node", "/opt/my tools/index.js", "stdio"}, Tool: "echo"}},
		Parameters:  map[string]any{"type": "object"}, Tags: []string{"read-only", "idempotent"}}
	remote := &manifest.Manifest{Name: "remote.echo", Version: "1.0.0", Description: "echoes",
		Entrypoint: manifest.Entrypoint{MCP: &manifest.MCPCall{URL: "https://mcp.example.com/mcp", Tool: "echo"}},
		Parameters: map[string]any{"type": "object"}, Permissions: manifest.Permissions{Network: manifest.Network{"mcp.example.com"}}}
	if _, err := manifest.Record(ctx, pool, []manifest.Candidate{{Manifest: stdio, Source: "mcp:/opt/node"}, {Manifest: remote, Source: "mcp:https://mcp.example.com/mcp"}},
		manifest.ImportOptions{Actor: "t", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, tty := range []bool{true, false} {
		opts, s := newOpts(t, pool, tty)
		opts.Name = "srv.echo"
		if err := showRun(ctx, opts); err != nil {
			t.Fatal(err)
		}
		out := s.Out.String()
		for _, want := range []string{
			"title:       Echo \\x1b]0;pwned\\x07\n",
			"description: echoes\\x1b[2J\\x1b[H\\x1b[32mAPPROVED by security\\x1b[0m\n",
			"entrypoint:  mcp tool echo of the stdio MCP server this command starts\n",
			"command:     /opt/node '/opt/my tools/index.js' stdio\n",
			"sandbox:     none: the command runs as helix's user, with PATH and the granted credentials as its only environment\n",
			"network:     not limited: the command reaches what it wants\n",
			"tags:        read-only, idempotent\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("tty=%v: no %q in\n%s", tty, want, out)
			}
		}
		if strings.ContainsAny(out, "\x1b\a") || strings.Contains(out, "entrypoint:  skill") || strings.Contains(out, "network:     none") {
			t.Errorf("tty=%v: %q", tty, out)
		}
	}
	opts, s := newOpts(t, pool, false)
	opts.Name = "remote.echo"
	if err := showRun(ctx, opts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"entrypoint:  mcp tool echo of the Streamable HTTP MCP server at https://mcp.example.com/mcp\n", "network:     mcp.example.com\n"} {
		if !strings.Contains(s.Out.String(), want) {
			t.Errorf("no %q in\n%s", want, s.Out)
		}
	}
}

// TestShowExecutions: tool show lists a version's last runs with what each
// cost where helix measures it (a skill tool), "-" where it does not.
func TestShowExecutions(t *testing.T) {
	pool := seed(t)
	ctx := context.Background()
	_, err := pool.Exec(ctx, `
INSERT INTO tool_executions (tool_name, tool_version, kind, input_sha256, status, http_status, started_at, duration_ms, cpu_ms, peak_rss_bytes, error)
VALUES ('weather', '1.1.0', 'skill', 'x', 'ok', NULL, '2026-11-02T08:00:00Z', 40.25, 12.5, 2097152, NULL),
       ('weather', '1.1.0', 'http', 'y', 'http_error', 503, '2026-11-02T09:00:00Z', 80, NULL, NULL, E'GET /v1/forecast: 503\nmore')`)
	if err != nil {
		t.Fatal(err)
	}
	opts, s := newOpts(t, pool, false)
	opts.Name = "weather"
	if err := showRun(ctx, opts); err != nil {
		t.Fatal(err)
	}
	want := "recent executions (2):\n" +
		"2\thttp_error (503)\t2026-11-02T09:00:00Z\t80.0ms\t-\t-\t-\tGET /v1/forecast: 503\n" +
		"1\tok\t2026-11-02T08:00:00Z\t40.2ms\t12.5ms\t2 MiB\t-\t-\n"
	if out := s.Out.String(); !strings.HasSuffix(out, want) {
		t.Errorf("show output ends\n%s\nwant\n%s", out, want)
	}
	opts, s = newOpts(t, pool, false)
	opts.F.Global.Output = "json"
	opts.Name = "weather"
	if err := showRun(ctx, opts); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Name       string `json:"name"`
		Executions []struct {
			CPUMS        *float64 `json:"cpu_ms"`
			PeakRSSBytes *int64   `json:"peak_rss_bytes"`
		} `json:"executions"`
	}
	if err := json.Unmarshal(s.Out.Bytes(), &doc); err != nil || doc.Name != "weather" || len(doc.Executions) != 2 ||
		doc.Executions[0].CPUMS != nil || *doc.Executions[1].CPUMS != 12.5 || *doc.Executions[1].PeakRSSBytes != 2<<20 {
		t.Errorf("json: %s (%v)", s.Out, err)
	}
}
