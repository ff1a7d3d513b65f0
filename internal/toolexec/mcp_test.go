package toolexec

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/pgtest"
)

// A Streamable HTTP MCP server (the Go SDK's) with one tool, add, behind a
// bearer token.
func mcpHTTPServer(t *testing.T, token string) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	s := mcp.NewServer(&mcp.Implementation{Name: "Adder Service", Version: "1.2.0"}, nil)
	type in struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	type out struct {
		Sum float64 `json:"sum"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "adds", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, out, error) {
			calls.Add(1)
			return nil, out{Sum: i.A + i.B}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestMCPHTTPTool(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	srv, calls := mcpHTTPServer(t, "tok")
	cs, err := ConnectMCP(ctx, MCPServer{URL: srv.URL, HTTP: &http.Client{Transport: credentialsTransport{
		creds: []credential{{Credential: manifest.Credential{Type: "http", HTTPScheme: "bearer"}, value: "tok"}}, next: http.DefaultTransport}}})
	if err != nil {
		t.Fatal(err)
	}
	cands, warns, err := manifest.FromMCP(ctx, cs.ClientSession, manifest.MCPOptions{URL: srv.URL, Timeout: "5s"})
	cs.Close()
	if err != nil || len(warns) != 0 || len(cands) != 1 {
		t.Fatalf("FromMCP: %v %v %d", err, warns, len(cands))
	}
	m := cands[0].Manifest
	u, _ := url.Parse(srv.URL)
	if m.Name != "adder_service.add" || m.Version != "1.2.0" || len(m.Permissions.Network) != 1 || m.Permissions.Network[0] != u.Host ||
		len(m.Tags) != 1 || m.Tags[0] != "read-only" {
		t.Fatalf("manifest %+v", m)
	}
	m.Credentials = [][]manifest.Credential{{{Scheme: "token", Type: "http", HTTPScheme: "bearer"}}}
	// The same tool recorded again with a host it may not reach.
	other := *m
	other.Name, other.Permissions.Network = "adder_service.elsewhere", manifest.Network{"example.com"}
	approveAll(t, pool, []manifest.Candidate{cands[0], {Manifest: &other, Source: "test"}})

	secrets := &Secrets{Env: env(map[string]string{"HELIX_TOOL_ADDER_SERVICE_TOKEN": "tok"})}
	r := &Runner{MCP: &MCPRunner{AllowPrivate: true, Secrets: secrets}}
	res, err := run(t, pool, r, "adder_service.add", `{"a": 2, "b": 3}`)
	if err != nil || res.Status != StatusOK || res.Kind != "mcp" || string(res.Output) != `{"sum":5}` {
		t.Fatalf("add: %+v, %v", res, err)
	}
	if res, err := run(t, pool, r, "adder_service.add", `{"a": "two"}`); err == nil || res.Status != StatusInvalidInput {
		t.Errorf("bad input: %+v, %v", res, err)
	}
	if res, err := run(t, pool, r, "adder_service.elsewhere", `{"a": 1, "b": 1}`); err == nil || res.Status != StatusRefused {
		t.Errorf("unlisted host: %+v, %v", res, err)
	}
	guarded := &Runner{MCP: &MCPRunner{Secrets: secrets}}
	if res, err := run(t, pool, guarded, "adder_service.add", `{"a": 1, "b": 1}`); err == nil || res.Status != StatusRefused {
		t.Errorf("loopback without --allow-private: %+v, %v", res, err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the server ran the tool %d times, want once", n)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM tool_executions WHERE kind = 'mcp'`).Scan(&n); err != nil || n != 4 {
		t.Errorf("%d mcp executions recorded (%v), want 4", n, err)
	}
}

// A stdio server that never answers is stopped at the tool's timeout.
func TestMCPStdioTimeout(t *testing.T) {
	pool := pgtest.New(t)
	m := &manifest.Manifest{Name: "silent.tool", Version: "1.0.0", Parameters: map[string]any{"type": "object"},
		Entrypoint:  manifest.Entrypoint{MCP: &manifest.MCPCall{Command: []string{"/bin/sleep", "30"}, Tool: "x"}},
		Permissions: manifest.Permissions{Timeout: "300ms"}}
	approveAll(t, pool, []manifest.Candidate{{Manifest: m, Source: "test"}})
	start := time.Now()
	res, err := run(t, pool, &Runner{MCP: &MCPRunner{}}, "silent.tool", `{}`)
	if err == nil || res.Status != StatusTimeout || !strings.Contains(res.Error, "300ms") {
		t.Errorf("%+v, %v", res, err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("took %s", el)
	}
}

func TestParseCommand(t *testing.T) {
	for line, want := range map[string][]string{
		`node /opt/srv/index.js stdio`:                       {"node", "/opt/srv/index.js", "stdio"},
		`  node   a  `:                                       {"node", "a"},
		`'/opt/my tools/node' "/srv dir/index.js" x`:         {"/opt/my tools/node", "/srv dir/index.js", "x"},
		`/opt/my\ tools/node --flag='a b' ""`:                {"/opt/my tools/node", "--flag=a b", ""},
		`srv --token $TOKEN "$HOME" '$(id)' $(id) ` + "`id`": {"srv", "--token", "$TOKEN", "$HOME", "$(id)", "$(id)", "`id`"},
		`srv 'semi;colon' "a|b" x\>y`:                        {"srv", "semi;colon", "a|b", "x>y"},
		`sérvér 'ünïcode'`:                                   {"sérvér", "ünïcode"},
	} {
		got, err := ParseCommand(line)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseCommand(%q) = %q, %v; want %q", line, got, err, want)
		}
	}
	for line, wantErr := range map[string]string{
		``:                 "no command",
		`   `:              "no command",
		`node 'unclosed`:   "unbalanced",
		`node "unclosed`:   "unbalanced",
		`node trailing\`:   "unbalanced",
		`node a; rm -rf /`: `operator at "; rm -rf /"`,
		`node a | tee x`:   `operator at "| tee x"`,
		`node a > out`:     `operator at "> out"`,
		`ünï a 2>err`:      `operator at "2>err"`,
		`node a && b`:      `operator at "&& b"`,
		`"" a`:             "no command",
	} {
		if _, err := ParseCommand(line); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("ParseCommand(%q): error %v, want %q", line, err, wantErr)
		}
	}
}

// quoteWord quotes w for a POSIX shell: inside '…', a ' is written '\”.
func quoteWord(w string) string { return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'" }

// FuzzParseCommand: --mcp-command is outside bytes. Any line parses or is
// refused without a panic, and any argv, each word quoted, parses back to itself.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"node index.js stdio", `'/a b/node' "x y" z\ w`, "a;b", `a "b`, "\x00", "a $(b) `c`", "é 2>x"} {
		f.Add(s, "/opt/my tools/node", "it's")
	}
	f.Fuzz(func(t *testing.T, line, w1, w2 string) {
		_, _ = ParseCommand(line)
		if w1 == "" || !utf8.ValidString(w1+w2) {
			return
		}
		argv := []string{w1, w2}
		got, err := ParseCommand(quoteWord(w1) + " " + quoteWord(w2))
		if err != nil || !slices.Equal(got, argv) {
			t.Fatalf("%q quoted: %q, %v", argv, got, err)
		}
	})
}
