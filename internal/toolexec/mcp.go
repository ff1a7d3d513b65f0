package toolexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-shellwords"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helixhq/helix/internal/build"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/netguard"
)

// MCPPath is the only inherited setting a stdio MCP server gets: where to
// find an interpreter its script names (#!/usr/bin/env node).
const MCPPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// MCPServer is how to reach an MCP server.
type MCPServer struct {
	Command []string // stdio: argv, started with exactly Env
	Env     []string
	URL     string       // Streamable HTTP
	HTTP    *http.Client // for URL
}

// ParseCommand splits an MCP server's command line into words as a POSIX
// shell would, without one: words are separated by blanks, quoted with '…' or
// "…", or escaped with a backslash (a path with spaces: '/opt/my tools/srv').
// Nothing is expanded ($VAR, `cmd`, $(cmd) stay as written), and an unquoted
// ;, &, |, < or > is refused: there is no shell to chain or redirect.
func ParseCommand(line string) ([]string, error) {
	p := shellwords.NewParser() // ParseEnv and ParseBacktick off: no expansion
	argv, err := p.Parse(line)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%q: unbalanced quote, parenthesis or trailing backslash", line)
	case p.Position >= 0:
		rest := line
		if rs := []rune(line); p.Position < len(rs) { // Position counts runes
			rest = string(rs[p.Position:])
		}
		return nil, fmt.Errorf("%q: an unquoted shell operator at %q: the command runs without a shell, so it cannot chain or redirect (quote it if it belongs to an argument)", line, rest)
	case len(argv) == 0 || argv[0] == "":
		return nil, fmt.Errorf("%q: no command", line)
	}
	return argv, nil
}

// serverStderr keeps the first 8 KiB a server writes on stderr, for error messages.
type serverStderr struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (c *serverStderr) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := 8<<10 - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *serverStderr) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.TrimSpace(c.b.String())
}

// ConnectMCP starts (stdio) or reaches (HTTP) the server and initializes a
// session; closing the session stops a started server. ctx bounds the
// server's whole life: when it ends the process is killed.
func ConnectMCP(ctx context.Context, s MCPServer) (*mcp.ClientSession, func() string, error) {
	var tr mcp.Transport
	stderr := &serverStderr{}
	switch {
	case len(s.Command) > 0:
		cmd := exec.CommandContext(ctx, s.Command[0], s.Command[1:]...)
		cmd.Env = append([]string{MCPPath}, s.Env...)
		cmd.Stderr = stderr
		tr = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	case s.URL != "":
		tr = &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: s.HTTP, MaxRetries: -1}
	default:
		return nil, stderr.String, errors.New("an MCP server needs a command or a URL")
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "helix", Version: build.Version}, nil)
	cs, err := c.Connect(ctx, tr, nil)
	return cs, stderr.String, exitcode.AsUnavailable(err) // a server that does not answer: retry later
}

// MCPRunner calls tools of MCP servers.
type MCPRunner struct {
	// AllowPrivate lifts the SSRF guard for HTTP servers.
	AllowPrivate bool
	// MaxResponse caps the result in bytes.
	MaxResponse int64
	Secrets     *Secrets
}

// credentialsTransport puts an HTTP server's credentials on every request.
type credentialsTransport struct {
	creds []credential
	next  http.RoundTripper
}

func (c credentialsTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for _, cr := range c.creds {
		apply(r, cr)
	}
	return c.next.RoundTrip(r)
}

// run starts or reaches the tool's server and calls the tool, within the
// tool's timeout. A stdio server gets an empty environment (MCPPath only)
// plus the credentials the tool was granted, as variables named by their
// schemes; an HTTP server is reached only at its recorded host.
func (r *MCPRunner) run(ctx context.Context, t *manifest.Tool, input map[string]any, res *Result) error {
	m := t.Manifest
	call := m.Entrypoint.MCP
	set, err := (&HTTPRunner{Secrets: r.Secrets}).credentials(t.Name, Namespace(m), m.Credentials)
	if err != nil {
		return err
	}
	var secrets []string
	for _, c := range set {
		secrets = append(secrets, c.value)
	}
	redact := func(s string) string {
		for _, v := range secrets {
			s = strings.ReplaceAll(s, v, "REDACTED")
		}
		return s
	}
	lim, _ := m.Permissions.Limits()
	timeout := DefaultTimeout
	if lim.TimeoutMS > 0 {
		timeout = time.Duration(lim.TimeoutMS) * time.Millisecond
	}
	srv := MCPServer{Command: call.Command, URL: call.URL}
	if call.URL != "" {
		u, err := url.Parse(call.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			res.Status, res.Error = StatusError, fmt.Sprintf("MCP server URL %q is not an http(s) URL", call.URL)
			return &RuntimeError{Msg: res.Error}
		}
		if !hostAllowed(m.Permissions.Network, u) {
			res.Status, res.Error = StatusRefused, fmt.Sprintf("host %s is not among the tool's allowed hosts (%s): nothing was sent", u.Host, hostList(m.Permissions.Network))
			return &refusedError{msg: res.Error}
		}
		hc := netguard.Client(r.AllowPrivate, timeout)
		hc.Transport = credentialsTransport{creds: set, next: hc.Transport}
		hc.CheckRedirect = func(*http.Request, []*http.Request) error {
			return &refusedError{msg: "an MCP server may not redirect"}
		}
		srv.HTTP = hc
	} else {
		for _, c := range set {
			name := c.Name
			if name == "" {
				name = c.Scheme
			}
			srv.Env = append(srv.Env, name+"="+c.value)
		}
	}
	args, _ := json.Marshal(input)
	if input == nil {
		args = []byte("{}")
	}
	res.BytesSent = int64(len(args))
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(err error, stderr func() string) error {
		msg := err.Error()
		if s := stderr(); s != "" {
			msg += " (server stderr: " + firstLine(s) + ")"
		}
		res.Error = redact(msg)
		switch {
		case errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
			res.Status = StatusTimeout
			res.Error = fmt.Sprintf("no answer within %s: %s", timeout, res.Error)
		case ctx.Err() != nil:
			res.Status = StatusError
		case errors.Is(err, netguard.ErrPrivate):
			res.Status = StatusRefused
			return &refusedError{msg: res.Error}
		default:
			res.Status = StatusUnavailable
			return &UnavailableError{Msg: res.Error}
		}
		return errors.New(res.Error)
	}
	cs, stderr, err := ConnectMCP(cctx, srv)
	if err != nil {
		return fail(fmt.Errorf("start MCP server: %w", err), stderr)
	}
	defer cs.Close()
	out, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: call.Tool, Arguments: json.RawMessage(args)})
	if err != nil {
		if cctx.Err() == nil {
			// The server answered with a JSON-RPC error: the tool failed.
			res.Status, res.Error = StatusError, redact(err.Error())
			return errors.New(res.Error)
		}
		return fail(err, stderr)
	}
	body, text := mcpOutput(out)
	max := r.MaxResponse
	if max <= 0 {
		max = 10 << 20
	}
	res.BytesReceived = int64(len(body))
	if res.BytesReceived > max {
		res.Status, res.Error = StatusTooLarge, fmt.Sprintf("result over the %d-byte cap (--max-bytes)", max)
		return errors.New(res.Error)
	}
	if r := redact(string(body)); r != string(body) && json.Valid([]byte(r)) {
		body = []byte(r)
	}
	res.Output = body
	res.ContentType = "application/json"
	if out.IsError {
		res.Status, res.Error = StatusError, redact(text)
		return errors.New(res.Error)
	}
	res.Status = StatusOK
	if m.Returns != nil && out.StructuredContent != nil {
		res.SchemaErrors = checkResponse(m.Returns, body)
	}
	return nil
}

// mcpOutput is a tool result as helix outputs it: the structured content
// when there is one, else the text of a text-only result, else the content
// list as MCP sent it; and the text, for error messages.
func mcpOutput(out *mcp.CallToolResult) (json.RawMessage, string) {
	var texts []string
	onlyText := true
	for _, c := range out.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		} else {
			onlyText = false
		}
	}
	text := strings.Join(texts, "\n")
	if out.StructuredContent != nil {
		if b, err := json.Marshal(out.StructuredContent); err == nil {
			return b, text
		}
	}
	if onlyText {
		b, _ := json.Marshal(text)
		return b, text
	}
	b, _ := json.Marshal(out.Content)
	return b, text
}
