package manifest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMCPManifest(t *testing.T) {
	no := false
	cases := []struct {
		tool     string
		name     string
		tags     []string
		warnPart string
	}{
		{tool: `{"name": "echo", "description": "echoes", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}, "annotations": {"readOnlyHint": true}}`,
			name: "srv.echo", tags: []string{"read-only"}},
		{tool: `{"name": "rm files", "inputSchema": {"type": "object"}}`, name: "srv.rm_files"},
		{tool: `{"name": "x", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": true}}`, name: "srv.x", tags: []string{"destructive"}},
		{tool: `{"name": "bad", "inputSchema": {"type": "object", "properties": {"a": {"type": "nonsense"}}}}`, warnPart: "not a valid JSON Schema"},
		{tool: `{"name": "list", "inputSchema": [1, 2]}`, warnPart: "not a JSON object"},
		{tool: `{"name": "str", "inputSchema": {"type": "string"}}`, warnPart: `input schema is of type "string": an MCP tool takes an object`},
		{tool: `{"name": "either", "inputSchema": {"type": ["object", "null"]}}`, warnPart: "an MCP tool takes an object"},
		{tool: `{"name": "put", "title": "Put an item", "inputSchema": {"type": "object"}, "annotations": {"idempotentHint": true, "destructiveHint": true}}`,
			name: "srv.put", tags: []string{"destructive", "idempotent"}},
	}
	for _, c := range cases {
		var tl mcp.Tool
		if err := json.Unmarshal([]byte(c.tool), &tl); err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if c.name == "srv.x" {
			tl.Annotations.OpenWorldHint = &no
		}
		m, w := mcpManifest(&tl, "srv", "1.0.0", MCPOptions{Command: []string{"/bin/srv"}, Env: []string{"K"}}, nil, nil)
		if c.warnPart != "" {
			if w == nil || !strings.Contains(w.Message, c.warnPart) {
				t.Errorf("%s: warning %+v, want %q", c.tool, w, c.warnPart)
			}
			continue
		}
		if w != nil {
			t.Errorf("%s: %+v", c.tool, w)
			continue
		}
		if m.Name != c.name || strings.Join(m.Tags, ",") != strings.Join(c.tags, ",") || m.Entrypoint.MCP.Tool != tl.Name {
			t.Errorf("%s: %+v", c.tool, m)
		}
		if tl.Title != "" && m.Title != tl.Title {
			t.Errorf("%s: title %q", c.tool, m.Title)
		}
		if p, _ := m.Parameters.(map[string]any); p["$schema"] != nil {
			t.Errorf("%s: $schema kept", c.tool)
		}
	}
	if _, w := mcpManifest(&mcp.Tool{Name: "9lives", InputSchema: map[string]any{"type": "object"}}, "", "1.0.0", MCPOptions{}, nil, nil); w == nil {
		t.Error("a name starting with a digit without namespace was accepted")
	}
}

// FuzzMCPManifest feeds tool descriptions as an MCP server could send them:
// a manifest is made or a warning given, never a panic, and a manifest made
// has a valid name, digests and reads back.
func FuzzMCPManifest(f *testing.F) {
	f.Add([]byte(`{"name": "echo", "inputSchema": {"type": "object", "properties": {"m": {"type": "string"}}}}`))
	f.Add([]byte(`{"name": "a b/c", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "$ref": "#/x"}, "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": false}}`))
	f.Add([]byte(`{"name": "", "inputSchema": true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var tl mcp.Tool
		if json.Unmarshal(data, &tl) != nil {
			return
		}
		m, w := mcpManifest(&tl, "ns", "1.0.0", MCPOptions{Command: []string{"/bin/x"}}, nil, nil)
		if (m == nil) == (w == nil) {
			t.Fatalf("manifest %v and warning %v", m, w)
		}
		if m == nil {
			return
		}
		if !mcpToolName().MatchString(m.Name) {
			t.Fatalf("name %q", m.Name)
		}
		_, doc, err := Digest(m)
		if err != nil {
			t.Fatalf("digest: %v", err)
		}
		var back Manifest
		if err := json.Unmarshal(doc, &back); err != nil || back.Entrypoint.MCP == nil || back.Entrypoint.MCP.Tool != tl.Name {
			t.Fatalf("read back %s: %v", doc, err)
		}
	})
}
