package manifest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helixhq/helix/internal/exitcode"
)

// MCPOptions describe the server whose tools FromMCP records.
type MCPOptions struct {
	Command []string // a stdio server's argv
	URL     string   // or a Streamable HTTP server
	// Namespace prefixes the tool names ("" takes the server's name; NoNamespace: none).
	Namespace string
	// Env names the variables the server needs (credentials): each becomes a
	// credential the tool must be granted, passed to the server under that name.
	Env     []string
	Timeout string // permissions.timeout of every tool
	Maxima  Maxima
}

// FromMCP turns the tools an MCP server lists into manifests: NAMESPACE.tool
// at the server's version, its input schema as parameters, the server as
// entrypoint, its title, its hints as tags (read-only, destructive,
// idempotent), the server's host
// (HTTP) as the only network permission. Tools that cannot be made
// manifests are bad input.
func FromMCP(ctx context.Context, cs *mcp.ClientSession, o MCPOptions) ([]Candidate, []Warning, error) {
	cands, warns, err := fromMCP(ctx, cs, o)
	return cands, warns, exitcode.AsInput(err)
}

func fromMCP(ctx context.Context, cs *mcp.ClientSession, o MCPOptions) ([]Candidate, []Warning, error) {
	info := cs.InitializeResult()
	var name, raw string
	if info != nil && info.ServerInfo != nil {
		name, raw = info.ServerInfo.Name, info.ServerInfo.Version
	}
	var warns []Warning
	version := "0.0.0"
	if v, ok := LooseVersion(raw); ok {
		version = v
	} else {
		warns = append(warns, Warning{Pointer: "/serverInfo/version", Message: fmt.Sprintf("version %q is not semver: tools get 0.0.0", raw)})
	}
	ns := o.Namespace
	switch ns {
	case "":
		ns = NamespaceOf(name)
	case NoNamespace:
		ns = ""
	}
	source := "mcp:" + strings.Join(o.Command, " ")
	var hosts Network
	if o.URL != "" {
		source = "mcp:" + o.URL
		u, err := url.Parse(o.URL)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, nil, fmt.Errorf("MCP server URL %q is not an http(s) URL", o.URL)
		}
		hosts = Network{u.Host}
	}
	var creds [][]Credential
	if len(o.Env) > 0 {
		set := make([]Credential, len(o.Env))
		for i, e := range o.Env {
			set[i] = Credential{Scheme: e, Type: "env", Name: e}
		}
		creds = [][]Credential{set}
	}
	var out []Candidate
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, fmt.Errorf("list the server's tools: %w", err)
		}
		m, w := mcpManifest(t, ns, version, o, hosts, creds)
		if w != nil {
			warns = append(warns, *w)
			continue
		}
		out = append(out, Candidate{Manifest: m, Source: source + "#/tools/" + Escape(t.Name)})
	}
	return out, warns, nil
}

// mcpManifest is one listed tool's manifest, or the warning that leaves it out.
func mcpManifest(t *mcp.Tool, ns, version string, o MCPOptions, hosts Network, creds [][]Credential) (*Manifest, *Warning) {
	left := func(ptr string, err error) *Warning {
		return &Warning{Pointer: "/tools/" + Escape(t.Name) + ptr, Message: "left out: " + err.Error()}
	}
	if t.Name == "" {
		return nil, left("/name", fmt.Errorf("a tool without a name"))
	}
	tn := nonName().ReplaceAllString(t.Name, "_")
	full := tn
	if ns != "" {
		full = ns + "." + tn
	}
	if !mcpToolName().MatchString(full) {
		return nil, left("/name", fmt.Errorf("%q is not a tool name: up to 128 letters, digits, '_', '-' or '.', starting with a letter (give a --namespace)", full))
	}
	params, err := schemaObject(t.InputSchema)
	if err != nil {
		return nil, left("/inputSchema", err)
	}
	switch typ := params["type"]; typ {
	case nil, "object":
	default: // helix mcp serve could not serve it, nor could a host call it
		b, _ := json.Marshal(typ)
		return nil, left("/inputSchema/type", fmt.Errorf("the input schema is of type %s: an MCP tool takes an object", b))
	}
	title := t.Title
	if title == "" && t.Annotations != nil {
		title = t.Annotations.Title
	}
	m := &Manifest{
		Name: full, Namespace: ns, Version: version, Description: t.Description, Title: title,
		Entrypoint:  Entrypoint{MCP: &MCPCall{Command: o.Command, URL: o.URL, Tool: t.Name}},
		Parameters:  params,
		Permissions: Permissions{Network: hosts, Timeout: o.Timeout},
		Credentials: creds,
	}
	if t.OutputSchema != nil {
		if r, err := schemaObject(t.OutputSchema); err == nil {
			m.Returns = r
		}
	}
	if a := t.Annotations; a != nil {
		if a.ReadOnlyHint {
			m.Tags = append(m.Tags, "read-only")
		} else if a.DestructiveHint == nil || *a.DestructiveHint {
			m.Tags = append(m.Tags, "destructive")
		}
		if a.IdempotentHint {
			m.Tags = append(m.Tags, "idempotent")
		}
	}
	if ptr, err := m.Check(o.Maxima); err != nil {
		return nil, left(ptr, err)
	}
	if ptr, err := m.CheckSchemas(); err != nil {
		return nil, left(ptr, err)
	}
	return m, nil
}

// mcpToolName is the manifest schema's pattern of a name.
var mcpToolName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,127}$`) })

// schemaObject is a tool schema as plain JSON values, without its $schema:
// helix checks every schema as 2020-12, and MCP servers often name draft-07
// for schemas that mean the same.
func schemaObject(s any) (map[string]any, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	delete(m, "$schema")
	return m, nil
}
