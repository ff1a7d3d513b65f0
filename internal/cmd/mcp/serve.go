package mcp

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/build"
	"github.com/helixhq/helix/internal/cmd/shared"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/embed"
	"github.com/helixhq/helix/internal/iostreams"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/mcpserver"
	"github.com/helixhq/helix/internal/search"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/toolexec"
)

// Settings of the HTTP transport.
const (
	TokenKey          = "mcp.token"
	OriginsKey        = "mcp.allowed-origins"
	UploadTimeoutKey  = "mcp.upload-timeout"
	SessionTimeoutKey = "mcp.session-timeout"
)

// httpSettings are the HTTP transport's settings.
type httpSettings struct {
	token        string
	origins      []string
	upload, idle time.Duration
}

// ServeOptions are the inputs of `mcp serve`.
type ServeOptions struct {
	IO *iostreams.IOStreams
	F  *cmdutil.Factory
	// LookupEnv finds credentials (os.LookupEnv; tests replace it).
	LookupEnv func(string) (string, bool)
	// FindRuntime finds docker or podman (toolexec.FindRuntime; tests replace it).
	FindRuntime func(context.Context) (*toolexec.ContainerRunner, error)
	// Ready, when set, is told the HTTP address once it listens (tests).
	Ready func(addr string)

	UserID       cmdutil.UserID
	Listen       string
	AllowPrivate bool
	MaxResponse  string
	PollInterval time.Duration
}

// NewCmdServe builds `helix mcp serve`.
func NewCmdServe(f *cmdutil.Factory, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IOStreams, F: f, LookupEnv: os.LookupEnv, FindRuntime: toolexec.FindRuntime}
	cmd := &cobra.Command{
		Annotations: map[string]string{cmdutil.AnnotationService: "true"},
		Use:         "serve --user-id UUID [--listen ADDR]",
		Short:       "Serve a user's approved tools, skills, memory search and patterns over MCP",
		Long: `Serve one user's tools and memories to an MCP host (Claude Desktop, an agent
runtime, the MCP Inspector) over stdio, or over Streamable HTTP with --listen.

Tools: every approved tool version, under its name, with its parameters schema
as the input schema and hints from its HTTP method (GET read-only; PUT and
DELETE destructive) or its tags (read-only, destructive). A call runs exactly
as helix tool exec does: the input is validated first (a mismatch is an MCP
invalid-params error and nothing is sent), credentials come from the
environment or the config file, the tool's hosts, timeout and --max-bytes
apply, and tool_executions gets a row with client "mcp:<client name>".
Proposed, revoked and superseded versions are never listed nor run. The
approved tools are looked at every --poll-interval; when they change, clients
get notifications/tools/list_changed. A cancelled call is recorded as
interrupted; a client that sends a progress token gets progress every second.

Skills: the latest version of every skill in the registry (helix skill add)
as skill.NAME, and of every stored composite skill (helix skill add-composite)
as composite.NAME, with their input schemas. They run as helix skill exec and
helix skill run do: in the sandbox, within the skill's, the configuration's
(skill.timeout, skill.memory, skill.output-limit) and the workflow's limits,
with no --env values; a composite's tool steps run approved tools only.
skill_executions and composite_skill_executions get the run, with client
"mcp:<client name>"; a cancelled call stops the skill (interrupted).

memory_search: hybrid search of the user's memories (as helix memory search).
Every call, refused ones too, is recorded in helix_memory_search_calls: the
client, the query's SHA-256 (never its text), mode, limit, result count,
status and duration. A query is at most 4 KiB; a call that fails the input
schema is an invalid-params error (recorded invalid_input), and one whose
client went away before it finished is recorded interrupted.
Resources: helix://patterns/synthesis (memory_synthesis) and
helix://patterns/llm (memory_patterns), the user's newest 500 of each as JSON.

--listen ADDR serves Streamable HTTP at http://ADDR/mcp. Every request must
carry "Authorization: Bearer <token>" when mcp.token (HELIX_MCP_TOKEN) is
set; without a token only a loopback address (127.0.0.1:PORT, [::1]:PORT,
localhost:PORT) is accepted (exit 2). A browser page may call it only from
localhost or an origin in mcp.allowed-origins (any other Origin: 403); a
request body must arrive within mcp.upload-timeout (30s); a session idle for
mcp.session-timeout (30m) ends. One message is at most 16 MiB on either
transport; on stdio a line that is not a message (bad JSON, no "jsonrpc", a
batch, nested over 256 levels, over 16 MiB) gets its JSON-RPC error and the
session goes on.

EXAMPLES
  helix mcp serve --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b
  HELIX_MCP_TOKEN=$(openssl rand -hex 32) helix mcp serve --user-id 6f1c… --listen 0.0.0.0:8765
  # the Inspector starts the server with a bare environment: pass it the database
  npx @modelcontextprotocol/inspector --cli -e DATABASE_URL="$DATABASE_URL" helix mcp serve --user-id 6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b --method tools/list

` + cmdutil.ServiceExitStatus(cmdutil.ExitFailed, cmdutil.ExitUsage, cmdutil.ExitUnavailable),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !opts.UserID.Given {
				return cmdutil.FlagErrorf("--user-id is required: the user whose tools and memories to serve")
			}
			if _, err := manifest.ParseBytes(opts.MaxResponse); err != nil {
				return cmdutil.FlagErrorf("invalid --max-bytes: %v", err)
			}
			if opts.PollInterval <= 0 {
				return cmdutil.FlagErrorf("invalid --poll-interval %s: use a positive duration such as 2s", opts.PollInterval)
			}
			if runF != nil {
				return runF(opts)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	cmdutil.UserIDVar(fl, &opts.UserID, "the user whose tools and memories to serve (UUID, required): their own tools, skills and composites and the shared ones, never another user's")
	fl.StringVar(&opts.Listen, "listen", "", "serve Streamable HTTP on ADDR (host:port) instead of stdio")
	fl.BoolVar(&opts.AllowPrivate, "allow-private", false, "let HTTP tools reach private and loopback addresses")
	fl.StringVar(&opts.MaxResponse, "max-bytes", "10MiB", "largest response body a tool call accepts")
	fl.DurationVar(&opts.PollInterval, "poll-interval", mcpserver.DefaultPoll, "how often to look for approvals and revocations")
	_ = cmd.MarkFlagRequired("user-id")
	return cmd
}

// queryEmbedder adapts the embeddings client to search.Embedder.
type queryEmbedder struct{ c *embed.Client }

func (q queryEmbedder) Embed(ctx context.Context, in []string) ([][]float32, error) {
	v, _, err := q.c.Embed(ctx, in)
	return v, err
}

// LoopbackOnly reports whether addr (host:port) listens on loopback only.
func LoopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func serveRun(ctx context.Context, opts *ServeOptions) error {
	cfg, err := opts.F.Config()
	if err != nil {
		return cmdutil.InputError(err)
	}
	token := cfg.String(TokenKey)
	if opts.Listen != "" {
		if _, _, err := net.SplitHostPort(opts.Listen); err != nil {
			return cmdutil.FlagErrorf("invalid --listen %q: use HOST:PORT, such as 127.0.0.1:8765", opts.Listen)
		}
		if token == "" && !LoopbackOnly(opts.Listen) {
			return cmdutil.InputError(fmt.Errorf("--listen %s is not a loopback address and no token is set: set %s (HELIX_MCP_TOKEN) so that clients must send it as a bearer token, or listen on 127.0.0.1", opts.Listen, TokenKey))
		}
	}
	pool, err := opts.F.DB(ctx)
	if err != nil {
		return err
	}
	if err := cmdutil.CheckOwner(ctx, pool, opts.UserID.Owner()); err != nil {
		return err
	}
	log := opts.F.Logger()
	var e search.Embedder
	hc, err := opts.F.HTTPClient()
	if err != nil {
		return err
	}
	if c := shared.EmbedClient(cfg, hc, ""); c != nil {
		e = queryEmbedder{c}
	}
	eo, err := shared.SkillExecutorOptions(cfg)
	if err != nil {
		return err
	}
	x, err := skill.NewExecutor(eo)
	if err != nil {
		return err
	}
	defer x.Close()
	maxResp, _ := manifest.ParseBytes(opts.MaxResponse)
	env := &shared.ToolEnv{Config: cfg, DB: pool, LookupEnv: opts.LookupEnv, FindRuntime: opts.FindRuntime,
		Now: opts.F.Now, AllowPrivate: opts.AllowPrivate, MaxResponse: maxResp}
	srv := mcpserver.New(mcpserver.Options{
		DB: pool, UserID: opts.UserID.ID, Runner: env.Runner, Embedder: e, EmbedModel: shared.EmbedModel(cfg),
		Version: build.Version, Logger: log, Skills: x, FindRuntime: opts.FindRuntime,
	})
	if err := srv.Sync(ctx); err != nil {
		return fmt.Errorf("list the approved tools: %w", err)
	}
	log.Info("serving MCP", "user_id", opts.UserID.String(), "tools", len(srv.Listed()))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go srv.Watch(ctx, opts.PollInterval)
	if opts.Listen == "" {
		err := srv.Run(ctx, &mcpserver.Stdio{In: opts.IO.In, Out: opts.IO.Out, Logger: log})
		if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
	hs := httpSettings{token: token, origins: cfg.StringSlice(OriginsKey)}
	hs.upload, _ = time.ParseDuration(cfg.String(UploadTimeoutKey)) // config.Validate checked both
	hs.idle, _ = time.ParseDuration(cfg.String(SessionTimeoutKey))
	for _, o := range hs.origins {
		if _, err := normalOrigin(o); err != nil {
			return cmdutil.InputError(fmt.Errorf("setting %s: %w", OriginsKey, err))
		}
	}
	return serveHTTP(ctx, opts, srv, hs, log)
}

// serveHTTP serves Streamable HTTP at /mcp until ctx ends.
func serveHTTP(ctx context.Context, opts *ServeOptions, srv *mcpserver.Server, set httpSettings, log *slog.Logger) error {
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return cmdutil.InputError(fmt.Errorf("listen on %s: %w", opts.Listen, err))
	}
	token := set.token
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.Server }, &mcp.StreamableHTTPOptions{
		Logger: log, SessionTimeout: set.idle, MaxRequestBodyBytes: mcpserver.MaxMessage})
	mux := http.NewServeMux()
	mux.Handle("/mcp", CheckOrigin(set.origins, RequireToken(token, UploadLimits(set.upload, mcpserver.MaxMessage, h))))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	addr := ln.Addr().String()
	log.Info("listening", "url", "http://"+addr+"/mcp", "token_required", token != "")
	if opts.Ready != nil {
		opts.Ready(addr)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	return nil
}

// RequireToken lets through only requests bearing the token ("" lets all through).
func RequireToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="helix"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// CheckOrigin refuses (403) a request whose Origin header names neither a
// localhost page nor one of allowed, as the MCP specification requires of a
// Streamable HTTP server: a web page the user visits could otherwise call
// it. A request without Origin (not from a browser) passes.
func CheckOrigin(allowed []string, next http.Handler) http.Handler {
	ok := map[string]bool{}
	for _, a := range allowed {
		if o, err := normalOrigin(a); err == nil {
			ok[o] = true
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		o, err := normalOrigin(origin)
		if err == nil && (ok[o] || localOrigin(o)) {
			next.ServeHTTP(w, r)
			return
		}
		http.Error(w, fmt.Sprintf("origin %q may not call this server: only localhost pages and the origins in %s (HELIX_MCP_ALLOWED_ORIGINS) may", origin, OriginsKey), http.StatusForbidden)
	})
}

// normalOrigin is an origin as scheme://host[:port], lower case.
func normalOrigin(o string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(o))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", fmt.Errorf("%q is not an origin: use scheme://host[:port], such as https://app.example.com", o)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// localOrigin reports whether a normal origin is a page on this machine.
func localOrigin(o string) bool {
	u, _ := url.Parse(o)
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// UploadLimits refuses (413) a request body declared over max, and drops a
// request whose body has not arrived within timeout (0: no limit): a slow
// upload would otherwise hold its connection and buffer for ever.
func UploadLimits(timeout time.Duration, max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			http.Error(w, fmt.Sprintf("request body of %d bytes is over the %d MiB cap of one MCP message", r.ContentLength, max>>20), http.StatusRequestEntityTooLarge)
			return
		}
		if timeout > 0 && r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(timeout)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the read deadline once the whole body is read: a long
// answer streamed on the same request must not be cut. A body cut short
// keeps it, so that the server's draining of the rest does not wait either.
type deadlineBody struct {
	io.ReadCloser
	rc *http.ResponseController
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
