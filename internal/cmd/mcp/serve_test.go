package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

const userID = "6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b"

func TestServeArgs(t *testing.T) {
	cases := []struct {
		argv, wantErr string
		listen        string
		poll          time.Duration
	}{
		{argv: "--user-id " + userID, poll: 2 * time.Second},
		{argv: "--user-id " + userID + " --listen 127.0.0.1:8765 --poll-interval 500ms", listen: "127.0.0.1:8765", poll: 500 * time.Millisecond},
		{argv: "", wantErr: "user-id"},
		{argv: "--user-id alice", wantErr: "not a UUID"},
		{argv: "--user-id " + userID + " --max-bytes lots", wantErr: "invalid --max-bytes"},
		{argv: "--user-id " + userID + " --poll-interval 0s", wantErr: "invalid --poll-interval"},
	}
	for _, c := range cases {
		f, _ := cmdtest.Factory(t, false)
		got, err := cmdtest.Parse(func(runF func(*ServeOptions) error) *cobra.Command { return NewCmdServe(f, runF) }, c.argv)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q: error %v, want %q", c.argv, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.argv, err)
			continue
		}
		if got.UserID.String() != userID || got.Listen != c.listen || got.PollInterval != c.poll || got.MaxResponse != "10MiB" {
			t.Errorf("%q: options %+v", c.argv, got)
		}
	}
}

func TestLoopbackOnly(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8765": true, "127.9.9.9:1": true, "[::1]:8765": true, "localhost:0": true, "LOCALHOST:1": true,
		"0.0.0.0:8765": false, ":8765": false, "[::]:1": false, "192.168.1.5:80": false, "example.com:80": false, "127.0.0.1": false,
	} {
		if got := LoopbackOnly(addr); got != want {
			t.Errorf("LoopbackOnly(%q) = %v, want %v", addr, got, want)
		}
	}
}

// helixEnv is the test's environment without helix settings, plus extra.
func helixEnv(t *testing.T, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HELIX_") && !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, append([]string{"XDG_CONFIG_HOME=" + t.TempDir()}, extra...)...)
}

func TestServeRefusesPublicListenWithoutToken(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		p := testbin.Start(t, helixEnv(t), "mcp", "serve", "--user-id", userID, "--listen", addr)
		if code := p.Wait(t, time.Minute); code != 2 {
			t.Errorf("--listen %s: exit %d, want 2; stderr %s", addr, code, p.Stderr.String())
		}
		if !strings.Contains(p.Stderr.String(), "no token is set") {
			t.Errorf("--listen %s: stderr %q", addr, p.Stderr.String())
		}
	}
}

// itemService answers GET /items/{id} and counts what it saw.
func itemService(t *testing.T) (*httptest.Server, func() []string) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"name": "lamp"}`)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { return slices.Clone(seen) }
}

func approvedItemTool(t *testing.T, pool *pgxpool.Pool, srv *httptest.Server) {
	t.Helper()
	u, _ := url.Parse(srv.URL)
	m := &manifest.Manifest{
		Name: "shop.getItem", Version: "1.0.0", Description: "one item",
		Entrypoint: manifest.Entrypoint{HTTP: &manifest.HTTPCall{Method: "GET", URL: srv.URL + "/items/{id}"}},
		Parameters: map[string]any{"type": "object", "required": []any{"id"},
			"properties": map[string]any{"id": map[string]any{"type": "string", "x-helix-in": "path"}}},
		Permissions: manifest.Permissions{Network: manifest.Network{u.Host}},
	}
	ctx := context.Background()
	if _, err := manifest.Record(ctx, pool, []manifest.Candidate{{Manifest: m, Source: "test"}}, manifest.ImportOptions{Actor: "t", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Approve(ctx, pool, m.Name, m.Version, "t", "test", time.Now()); err != nil {
		t.Fatal(err)
	}
}

func clientOf(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var client, status string
	if err := pool.QueryRow(context.Background(), `SELECT coalesce(client, ''), status FROM tool_executions ORDER BY id DESC LIMIT 1`).Scan(&client, &status); err != nil {
		t.Fatal(err)
	}
	return client + " " + status
}

// The real binary over stdio, as a desktop app spawns it.
func TestServeStdioSubprocess(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	srv, seen := itemService(t)
	approvedItemTool(t, pool, srv)

	cmd := exec.Command(testbin.Helix(t), "mcp", "serve", "--user-id", userID, "--allow-private", "--log-format", "json")
	cmd.Env = helixEnv(t, "DATABASE_URL="+dbURL)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"memory_search", "shop.getItem"}) {
		t.Fatalf("tools = %v", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shop.getItem", Arguments: map[string]any{"id": "7"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %+v, %v", res, err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shop.getItem", Arguments: map[string]any{"id": 7}}); err == nil {
		t.Error("an integer id passed the string schema")
	}
	if got := seen(); !slices.Equal(got, []string{"GET /items/7"}) {
		t.Errorf("service saw %v", got)
	}
	if got := clientOf(t, pool); got != "mcp:stdio-test invalid_input" {
		t.Errorf("last execution = %q", got)
	}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Streamable HTTP with a token: requests without it are turned away.
func TestServeHTTPWithToken(t *testing.T) {
	t.Setenv("HELIX_MCP_TOKEN", "s3cret-token")
	pool := pgtest.New(t)
	srv, _ := itemService(t)
	approvedItemTool(t, pool, srv)
	f, streams := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	ready := make(chan string, 1)
	opts := &ServeOptions{IO: f.IOStreams, F: f, LookupEnv: func(string) (string, bool) { return "", false },
		Ready: func(a string) { ready <- a }, Listen: "127.0.0.1:0", MaxResponse: "1MiB", PollInterval: time.Second, AllowPrivate: true}
	opts.UserID = cmdutil.UserID{ID: uuid.MustParse(userID), Given: true}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- serveRun(ctx, opts) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-errc:
		t.Fatalf("serve: %v", err)
	}
	endpoint := "http://" + addr + "/mcp"

	resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %s", resp.Status)
	}
	hc := &http.Client{Transport: bearer{"s3cret-token", http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shop.getItem", Arguments: map[string]any{"id": "9"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %+v, %v", res, err)
	}
	if got := clientOf(t, pool); got != "mcp:http-test ok" {
		t.Errorf("last execution = %q", got)
	}
	cs.Close()
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("serve ended with %v", err)
	}
	if strings.Contains(streams.Err.String(), "s3cret-token") {
		t.Errorf("the token was logged: %s", streams.Err.String())
	}
}

type (
	mcpCommand    = mcp.CommandTransport
	mcpCallParams = mcp.CallToolParams
)

func mcpClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "go-test", Version: "1"}, nil)
}

func toText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
