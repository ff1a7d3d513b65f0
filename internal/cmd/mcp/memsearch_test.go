package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

// The official TypeScript SDK client calls memory_search on helix mcp serve
// over stdio: calls that fail the input schema (or the query cap, or hold
// a NUL PostgreSQL cannot store) are JSON-RPC invalid params and audited;
// no PostgreSQL error reaches the client; and a call cut short by the
// client closing (its stdin ends) is audited interrupted.
func TestNodeMemorySearchAudit(t *testing.T) {
	t.Parallel()
	dir := npmDir(t)
	dbURL := pgtest.URL(t)
	pool := pgtest.Open(t, dbURL)
	ctx := context.Background()
	arrived := filepath.Join(t.TempDir(), "embed-arrived")
	var once sync.Once
	gone := make(chan struct{})
	embed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		once.Do(func() { _ = os.WriteFile(arrived, nil, 0o644) })
		select {
		case <-r.Context().Done():
			close(gone)
			return
		case <-time.After(90 * time.Second):
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`)
	}))
	defer embed.Close()

	helix := testbin.Helix(t)
	argv, _ := json.Marshal([]string{helix, "mcp", "serve", "--user-id", userID})
	home := t.TempDir()
	srvEnv, _ := json.Marshal(map[string]string{"DATABASE_URL": dbURL, "XDG_CONFIG_HOME": home, "XDG_CACHE_HOME": home, "HOME": home,
		"HELIX_LOG_LEVEL": "warn", "PATH": os.Getenv("PATH"), "HELIX_EMBED_BASE_URL": embed.URL + "/v1"})
	calls, _ := json.Marshal([]map[string]any{
		{"name": "memory_search", "arguments": map[string]any{"query": 5}},
		{"name": "memory_search", "arguments": map[string]any{"query": "bread", "limit": "ten"}},
		{"name": "memory_search", "arguments": map[string]any{"query": "bread", "extra": true}},
		{"name": "memory_search", "arguments": map[string]any{}},
		{"name": "memory_search", "arguments": map[string]any{"query": strings.Repeat("bread ", 1000)}},
		{"name": "memory_search", "arguments": map[string]any{"query": "nul \u0000 byte", "mode": "text"}},
		{"name": "memory_search", "arguments": map[string]any{"query": "bread", "mode": "text"}},
		{"name": "memory_search", "arguments": map[string]any{"query": "slow"}},
	})
	script, _ := filepath.Abs(filepath.Join("testdata", "calls.mjs"))
	out, errOut, err := nodeEnv(t, dir, 3*time.Minute, []string{"MCP_SDK=" + filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"),
		"HELIX_ARGV=" + string(argv), "HELIX_ENV=" + string(srvEnv), "CALLS=" + string(calls), "CLOSE_WHEN_FILE=" + arrived}, script)
	if err != nil {
		t.Fatalf("calls.mjs: %v\n%s\n%s", err, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 8 {
		t.Fatalf("calls.mjs printed %q\n%s", out, errOut)
	}
	for i, l := range lines[:6] {
		var r struct {
			Error struct {
				Code    int
				Message string
			}
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Error.Code != -32602 || strings.Contains(r.Error.Message, "SQLSTATE") {
			t.Errorf("call %d: %s, want a -32602 error", i+1, l)
		}
	}
	if !strings.Contains(lines[6], `"result"`) || strings.Contains(lines[6], `"isError":true`) {
		t.Errorf("call 7: %s", lines[6])
	}
	select {
	case <-gone:
	case <-time.After(30 * time.Second):
		t.Error("the slow search's embeddings request was not dropped when the client closed")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var statuses []string
		if err := pool.QueryRow(ctx, `SELECT array_agg(status ORDER BY id) FROM helix_memory_search_calls`).Scan(&statuses); err != nil {
			t.Fatal(err)
		}
		want := []string{"invalid_input", "invalid_input", "invalid_input", "invalid_input", "invalid_input", "invalid_input", "ok", "interrupted"}
		if slices.Equal(statuses, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("audit statuses %v, want %v", statuses, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
