package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

// server-everything's get-tiny-image imported, approved and served again
// by helix mcp serve, called by the official TypeScript SDK client: its
// image comes through as an image block between its two text blocks, and
// the upstream title and idempotentHint are kept.
func TestNodeTypedContent(t *testing.T) {
	t.Parallel()
	dir := npmDir(t)
	nodeBin, _ := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", "node"))
	everything, _ := filepath.Abs(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	dbURL := pgtest.URL(t)
	env := helixEnv(t, "DATABASE_URL="+dbURL)
	code, out, errOut := run(t, env, "manifest", "import", "--mcp-command", fmt.Sprintf("%s %s stdio", nodeBin, everything),
		"--namespace", "everything", "--tool-timeout", "20s")
	if code != 0 || !strings.Contains(out, "everything.get-tiny-image") {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := run(t, env, "tool", "approve", "everything.get-tiny-image@2.0.0", "--by", "t"); code != 0 {
		t.Fatalf("approve: %d %s", code, errOut)
	}
	argv, _ := json.Marshal([]string{testbin.Helix(t), "mcp", "serve", "--user-id", userID})
	home := t.TempDir()
	srvEnv, _ := json.Marshal(map[string]string{"DATABASE_URL": dbURL, "XDG_CONFIG_HOME": home, "XDG_CACHE_HOME": home, "HOME": home,
		"HELIX_LOG_LEVEL": "warn", "PATH": os.Getenv("PATH")})
	script, _ := filepath.Abs(filepath.Join("testdata", "calls.mjs"))
	out, errOut, err := nodeEnv(t, dir, 3*time.Minute, []string{"MCP_SDK=" + filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"),
		"HELIX_ARGV=" + string(argv), "HELIX_ENV=" + string(srvEnv), "LIST_TOOLS=1",
		`CALLS=[{"name": "everything.get-tiny-image", "arguments": {}}]`}, script)
	if err != nil {
		t.Fatalf("calls.mjs: %v\n%s\n%s", err, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("calls.mjs printed %q\n%s", out, errOut)
	}
	var list struct {
		Tools []struct {
			Name, Title string
			Annotations struct {
				Title          string
				IdempotentHint bool
				ReadOnlyHint   bool
			}
		}
	}
	if err := json.Unmarshal([]byte(lines[0]), &list); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tl := range list.Tools {
		if tl.Name == "everything.get-tiny-image" {
			found = true
			if tl.Title != "Get Tiny Image Tool" || tl.Annotations.Title != "Get Tiny Image Tool" || !tl.Annotations.IdempotentHint || !tl.Annotations.ReadOnlyHint {
				t.Errorf("listed as %+v", tl)
			}
		}
	}
	if !found {
		t.Fatalf("tools/list: %s", lines[0])
	}
	var call struct {
		Result struct {
			IsError bool
			Content []struct{ Type, Text, Data, MimeType string }
		}
	}
	if err := json.Unmarshal([]byte(lines[1]), &call); err != nil {
		t.Fatal(err)
	}
	c := call.Result.Content
	if call.Result.IsError || len(c) != 3 || c[0].Type != "text" || c[1].Type != "image" || c[1].MimeType != "image/png" ||
		!strings.HasPrefix(c[1].Data, "iVBORw0KGgo") || c[2].Type != "text" || !strings.Contains(c[2].Text, "MCP logo") {
		t.Errorf("content: %.600s", lines[1])
	}
}
