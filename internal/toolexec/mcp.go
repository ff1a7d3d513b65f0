package toolexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
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

// MaxMessage caps one MCP message helix reads, on every transport: the Go
// SDK's cap of a stdio line (mcp.DefaultMaxLineLength), which its stdio
// client transport applies and cannot be changed, so HTTP answers (a JSON
// body, or one server-sent event) get the same.
const MaxMessage = mcp.DefaultMaxLineLength

// MessageTooLargeError is an MCP server's message over MaxMessage: the
// transport stopped reading it.
type MessageTooLargeError struct{ Limit int64 }

func (e *MessageTooLargeError) Error() string {
	return fmt.Sprintf("the MCP server sent a message over the %s cap of one MCP message: it was not read further", formatBytes(e.Limit))
}

// formatBytes is n in the largest binary unit that divides it.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}

// MCPServer is how to reach an MCP server.
type MCPServer struct {
	Command []string // stdio: argv, started with exactly Env
	Env     []string
	URL     string       // Streamable HTTP
	HTTP    *http.Client // for URL
}

// MCPSession is a session with an MCP server.
type MCPSession struct {
	*mcp.ClientSession
	// Stderr is the start of what a stdio server wrote on stderr.
	Stderr func() string
	capped *cappedTransport // HTTP
}

// Explain is err, or the MessageTooLargeError behind it: the SDK reports a
// message over the cap as a failed read, without the cause.
func (s *MCPSession) Explain(err error) error {
	return explainCap(err, s.capped)
}

func explainCap(err error, c *cappedTransport) error {
	if err == nil {
		return nil
	}
	if (c != nil && c.hit.Load()) || strings.Contains(err.Error(), "exceeded the configured maximum line length") {
		return exitcode.AsInput(fmt.Errorf("%w (%v)", &MessageTooLargeError{Limit: MaxMessage}, err))
	}
	return err
}

// cappedTransport caps each message of an MCP server's HTTP answers: a
// JSON body as a whole, an event stream event by event.
type cappedTransport struct {
	next  http.RoundTripper
	limit int64
	hit   atomic.Bool
}

func (c *cappedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	sse := strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream")
	resp.Body = &cappedBody{ReadCloser: resp.Body, t: c, sse: sse}
	return resp, nil
}

// cappedBody fails a read once a message passes the cap. In an event
// stream a message ends at a blank line.
type cappedBody struct {
	io.ReadCloser
	t       *cappedTransport
	sse     bool
	n       int64 // bytes of the current message
	lineLen int   // bytes of the current line but \r
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.n > b.t.limit {
		return 0, &MessageTooLargeError{Limit: b.t.limit}
	}
	n, err := b.ReadCloser.Read(p)
	if !b.sse {
		b.n += int64(n)
	} else {
		for _, c := range p[:n] {
			switch c {
			case '\n':
				if b.lineLen == 0 {
					b.n = 0 // a blank line: the event is complete
					continue
				}
				b.lineLen = 0
			case '\r':
			default:
				b.lineLen++
			}
			b.n++
		}
	}
	if b.n > b.t.limit {
		b.t.hit.Store(true)
		return n, &MessageTooLargeError{Limit: b.t.limit}
	}
	return n, err
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
// server's whole life: when it ends the process is killed. Every message
// read is capped at MaxMessage; an HTTP server is not followed to another
// host by a redirect.
func ConnectMCP(ctx context.Context, s MCPServer) (*MCPSession, error) {
	var tr mcp.Transport
	stderr := &serverStderr{}
	out := &MCPSession{Stderr: stderr.String}
	switch {
	case len(s.Command) > 0:
		cmd := exec.CommandContext(ctx, s.Command[0], s.Command[1:]...)
		cmd.Env = append([]string{MCPPath}, s.Env...)
		cmd.Stderr = stderr
		tr = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	case s.URL != "":
		hc := &http.Client{}
		if s.HTTP != nil {
			*hc = *s.HTTP
		}
		next := hc.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		out.capped = &cappedTransport{next: next, limit: MaxMessage}
		hc.Transport = out.capped
		hc.CheckRedirect = sameHostRedirect(hc.CheckRedirect)
		tr = &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxRetries: -1, MaxEventSize: MaxMessage}
	default:
		return nil, errors.New("an MCP server needs a command or a URL")
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "helix", Version: build.Version}, nil)
	cs, err := c.Connect(ctx, tr, nil)
	out.ClientSession = cs
	if err != nil {
		return out, exitcode.AsUnavailable(out.Explain(err)) // a server that does not answer: retry later
	}
	return out, nil
}

// sameHostRedirect refuses a redirect to another host (or scheme), then
// asks next, if any.
func sameHostRedirect(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(r *http.Request, via []*http.Request) error {
		if first := via[0].URL; r.URL.Host != first.Host || r.URL.Scheme != first.Scheme {
			return fmt.Errorf("the MCP server at %s redirects to %s://%s, another host: not followed", first.Host, r.URL.Scheme, r.URL.Host)
		}
		if next != nil {
			return next(r, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
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
	cs, err := ConnectMCP(cctx, srv)
	if err != nil {
		stderr := func() string { return "" }
		if cs != nil {
			stderr = cs.Stderr
		}
		return fail(fmt.Errorf("start MCP server: %w", err), stderr)
	}
	defer cs.Close()
	out, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: call.Tool, Arguments: json.RawMessage(args)})
	var big *MessageTooLargeError
	if err = cs.Explain(err); errors.As(err, &big) {
		res.Status, res.Error = StatusTooLarge, redact(err.Error())
		return errors.New(res.Error)
	}
	stderr := cs.Stderr
	if err != nil {
		if cctx.Err() == nil {
			// The server answered with a JSON-RPC error: the tool failed.
			res.Status, res.Error = StatusError, redact(err.Error())
			return errors.New(res.Error)
		}
		return fail(err, stderr)
	}
	body, text := mcpOutput(out)
	var content json.RawMessage
	if len(out.Content) > 0 {
		content, _ = json.Marshal(out.Content)
	}
	limit := r.MaxResponse
	if limit <= 0 {
		limit = 10 << 20
	}
	res.BytesReceived = int64(max(len(body), len(content)))
	if res.BytesReceived > limit {
		res.Status, res.Error = StatusTooLarge, fmt.Sprintf("result over the %d-byte cap (--max-bytes)", limit)
		return errors.New(res.Error)
	}
	if r := redact(string(body)); r != string(body) && json.Valid([]byte(r)) {
		body = []byte(r)
	}
	if r := redact(string(content)); r != string(content) && json.Valid([]byte(r)) {
		content = []byte(r)
	}
	res.Output, res.Content = body, content
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
