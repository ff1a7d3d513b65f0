package mcp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
	"github.com/helixhq/helix/internal/toolexec"
)

// The Inspector example of mcp serve --help runs as written: with the
// database URL and the helix binary of the test put in, the Inspector lists
// the tools.
func TestServeHelpInspectorExample(t *testing.T) {
	t.Parallel()
	dir := npmDir(t)
	code, help, errOut := run(t, helixEnv(t), "mcp", "serve", "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d %s", code, errOut)
	}
	var line string
	for _, l := range strings.Split(help, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "npx @modelcontextprotocol/inspector") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("no Inspector example in\n%s", help)
	}
	dbURL := pgtest.URL(t)
	argv, err := toolexec.ParseCommand(strings.ReplaceAll(line, "$DATABASE_URL", dbURL))
	if err != nil {
		t.Fatal(err)
	}
	inspector := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	args := []string{inspector}
	for _, a := range argv[2:] {
		if a == "helix" {
			a = testbin.Helix(t)
		}
		args = append(args, a)
	}
	out, errOut, err := node(t, dir, 2*time.Minute, args...)
	var doc struct{ Tools []struct{ Name string } }
	if err != nil || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Tools) == 0 || doc.Tools[0].Name != "memory_search" {
		t.Errorf("%s: %v\n%s\n%s", line, err, out, errOut)
	}
}
