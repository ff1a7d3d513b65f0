// Package mcpserver serves one user's approved tools, memory search and
// patterns over the Model Context Protocol, running tools as helix tool exec does.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/search"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/toolexec"
)

// MemorySearchTool is the name of the built-in memory search tool.
const MemorySearchTool = "memory_search"

// Resource URIs of the user's patterns.
const (
	SynthesisURI = "helix://patterns/synthesis"
	LLMURI       = "helix://patterns/llm"
	ProfileURI   = "helix://profile" // the user's profile (helix profile update), null until built
)

// DefaultPoll is how often the approved tools are looked at for changes.
const DefaultPoll = 2 * time.Second

// Options configure a Server.
type Options struct {
	DB     db.Querier
	UserID uuid.UUID
	// Runner builds the runner of a tool of the given kind (shared.ToolEnv.Runner in internal/cmd/shared).
	Runner func(ctx context.Context, kind string) (*toolexec.Runner, func(), error)
	// Embedder embeds memory_search queries; nil searches text only.
	Embedder   search.Embedder
	EmbedModel string
	Version    string
	Logger     *slog.Logger
	// Progress is the interval of progress notifications during a tool call (0: 1s).
	Progress time.Duration
	// Skills is the sandbox registry skills and composite skills run in, as
	// helix skill exec and skill run do; nil serves neither.
	Skills *skill.Executor
	// FindRuntime finds docker or podman for a composite's container tool
	// steps (nil: such steps are recorded as refused).
	FindRuntime func(context.Context) (*toolexec.ContainerRunner, error)
}

// Server is an MCP server whose tools follow the approved tool versions.
type Server struct {
	*mcp.Server
	o Options

	mu          sync.Mutex
	fingerprint string
	listed      map[string]string // tool name → kind and sha256 of what is listed under it
}

// New builds the server with memory_search and the pattern resources; Sync
// adds the approved tools.
func New(o Options) *Server {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Progress <= 0 {
		o.Progress = time.Second
	}
	s := &Server{o: o, listed: map[string]string{}}
	s.Server = mcp.NewServer(&mcp.Implementation{Name: "helix", Version: o.Version}, &mcp.ServerOptions{
		Instructions: "helix: the user's approved tools (each runs within the permissions it was approved with, and every call is audited), " +
			"the registry's skills (skill.NAME) and composite skills (composite.NAME), run in helix's sandbox, " +
			"memory_search over the user's memories, and the patterns synthesis found as resources.",
		Logger:       slog.New(warnAndAbove{o.Logger.Handler()}), // sessions opening and closing are not news
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Resources: &mcp.ResourceCapabilities{}},
	})
	s.addMemorySearch()
	s.addResources()
	return s
}

// warnAndAbove passes on only warnings and errors.
type warnAndAbove struct{ slog.Handler }

func (h warnAndAbove) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

func (h warnAndAbove) WithAttrs(as []slog.Attr) slog.Handler {
	return warnAndAbove{h.Handler.WithAttrs(as)}
}
func (h warnAndAbove) WithGroup(n string) slog.Handler { return warnAndAbove{h.Handler.WithGroup(n)} }

// approved is a listed tool version.
type approved struct {
	name, version, sha string
	m                  *manifest.Manifest
}

// Fingerprint identifies what is served to user: the approved tool
// versions, the registry's skills and its composite skills, the user's own
// and the shared ones (never another user's). It changes with any approval,
// revocation or supersession, with any skill or composite added, removed,
// enabled or disabled, and with the user's own items shadowing shared ones.
func Fingerprint(ctx context.Context, q db.Querier, user owner.Owner) (string, error) {
	var fp string
	err := q.QueryRow(ctx, `
		SELECT coalesce((SELECT md5(string_agg(id::text || ':' || sha256 || ':' || state, ',' ORDER BY id)) FROM tool_manifests WHERE `+owner.Visible("user_id", 1)+`), '')
		    || '/' || coalesce((SELECT md5(string_agg(id::text || ':' || sha256 || ':' || enabled::text, ',' ORDER BY id)) FROM helix_skills WHERE `+owner.Visible("user_id", 1)+`), '')
		    || '/' || coalesce((SELECT md5(string_agg(id::text || ':' || sha256, ',' ORDER BY id)) FROM helix_composite_skills WHERE `+owner.Visible("user_id", 1)+`), '')`,
		user.Arg()).Scan(&fp)
	return fp, err
}

// owner is whom the server serves: the user's own items, then the shared ones.
func (s *Server) owner() owner.Owner { return owner.User(s.o.UserID) }

// served is one MCP tool and what runs it.
type served struct {
	key  string // kind and sha256: a changed version is listed again
	tool *mcp.Tool
	call mcp.ToolHandler
}

// Sync lists what is served when it changed since the last look: new tools
// are added, revoked, superseded and deleted ones removed, and the clients
// are told (notifications/tools/list_changed).
func (s *Server) Sync(ctx context.Context) error {
	fp, err := Fingerprint(ctx, s.o.DB, s.owner())
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if fp == s.fingerprint && s.fingerprint != "" {
		return nil
	}
	all, err := s.approvedTools(ctx)
	if err != nil {
		return err
	}
	if s.o.Skills != nil {
		sk, err := s.registrySkills(ctx)
		if err != nil {
			return err
		}
		cs, err := s.compositeSkills(ctx)
		if err != nil {
			return err
		}
		all = append(append(all, sk...), cs...)
	}
	seen := map[string]bool{MemorySearchTool: true}
	for _, t := range all {
		name := t.tool.Name
		if seen[name] {
			s.o.Logger.Warn("not served: its name is taken", "tool", t.tool.Title)
			continue
		}
		seen[name] = true
		if s.listed[name] == t.key {
			continue
		}
		s.AddTool(t.tool, t.call)
		s.listed[name] = t.key
	}
	var gone []string
	for name := range s.listed {
		if !seen[name] {
			gone = append(gone, name)
			delete(s.listed, name)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		s.RemoveTools(gone...)
	}
	s.fingerprint = fp
	return nil
}

// approvedTools are the approved tool versions, the latest of each name: of
// the user's own tool of a name (when they have one, approved or not: it
// shadows the shared one, as tool exec --user-id resolves it), else of the
// shared one.
func (s *Server) approvedTools(ctx context.Context) ([]served, error) {
	rows, err := s.o.DB.Query(ctx, `
		SELECT DISTINCT ON (name) name, version, sha256, manifest::text
		FROM tool_manifests m WHERE state = 'approved'
		  AND user_id IS NOT DISTINCT FROM (SELECT t.user_id FROM tool_manifests t WHERE t.name = m.name AND `+owner.Visible("t.user_id", 1)+`
			ORDER BY `+owner.OwnFirst("t.user_id")+` LIMIT 1)
		ORDER BY name, id DESC`, s.owner().Arg())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []served
	for rows.Next() {
		var a approved
		var doc []byte
		if err := rows.Scan(&a.name, &a.version, &a.sha, &doc); err != nil {
			return nil, err
		}
		a.m = &manifest.Manifest{}
		if err := json.Unmarshal(doc, a.m); err != nil {
			s.o.Logger.Warn("approved tool not served: its manifest does not decode", "tool", a.name+"@"+a.version, "err", err)
			continue
		}
		t, err := mcpTool(a)
		if err != nil {
			s.o.Logger.Warn("approved tool not served", "tool", a.name+"@"+a.version, "err", err)
			continue
		}
		out = append(out, served{key: "tool:" + a.sha, tool: t, call: s.callTool})
	}
	return out, rows.Err()
}

// Watch runs Sync every interval until ctx ends. The fingerprint query reads
// only the approved rows' ids and digests (an index on state), so a poll is cheap.
func (s *Server) Watch(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = DefaultPoll
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Sync(ctx); err != nil && ctx.Err() == nil {
				s.o.Logger.Warn("look for approved tools", "err", err)
			}
		}
	}
}

// Listed names the tools served from tool_manifests, sorted.
func (s *Server) Listed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.listed))
	for n := range s.listed {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// mcpTool describes an approved version as an MCP tool.
func mcpTool(a approved) (*mcp.Tool, error) {
	schema, err := objectSchema(a.m.Parameters)
	if err != nil {
		return nil, err
	}
	desc := a.m.Description
	if desc == "" {
		desc = a.name
	}
	title := a.name + "@" + a.version
	if a.m.Title != "" {
		title = a.m.Title
	}
	return &mcp.Tool{
		Name:        a.name,
		Title:       title,
		Description: desc,
		InputSchema: schema,
		Annotations: Annotations(a.m),
		Meta:        mcp.Meta{"helix/version": a.version, "helix/kind": toolexec.Kind(a.m)},
	}, nil
}

// objectSchema is a parameters schema as an MCP input schema, which must
// describe an object; none accepts any object.
func objectSchema(params any) (map[string]any, error) {
	schema, ok := params.(map[string]any)
	if params == nil {
		schema, ok = map[string]any{}, true
	}
	if !ok {
		return nil, fmt.Errorf("its parameters schema is not an object schema")
	}
	schema = maps(schema)
	switch typ := schema["type"]; typ {
	case nil:
		schema["type"] = "object"
	case "object":
	default:
		return nil, fmt.Errorf("its parameters schema is of type %v: MCP tools take an object", typ)
	}
	return schema, nil
}

// maps is a shallow copy.
func maps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Annotations are the hints the manifest or its HTTP method gives: GET, HEAD
// and OPTIONS read only; PUT and DELETE destructive and idempotent; POST and
// PATCH may destroy. Tags "read-only", "destructive" and "idempotent" say so
// for any kind. The title is the manifest's (an MCP tool's upstream title).
func Annotations(m *manifest.Manifest) *mcp.ToolAnnotations {
	yes, no := true, false
	a := &mcp.ToolAnnotations{Title: m.Name}
	if m.Title != "" {
		a.Title = m.Title
	}
	if m.Entrypoint.HTTP != nil {
		a.OpenWorldHint = &yes
		switch strings.ToUpper(m.Entrypoint.HTTP.Method) {
		case "GET", "HEAD", "OPTIONS":
			a.ReadOnlyHint, a.IdempotentHint = true, true
		case "PUT", "DELETE":
			a.DestructiveHint, a.IdempotentHint = &yes, true
		default:
			a.DestructiveHint = &yes
		}
	} else if len(m.Permissions.Network) == 0 {
		a.OpenWorldHint = &no
	}
	for _, t := range m.Tags {
		switch strings.ToLower(t) {
		case "read-only", "readonly":
			a.ReadOnlyHint, a.DestructiveHint = true, nil
		case "destructive":
			a.ReadOnlyHint, a.DestructiveHint = false, &yes
		case "idempotent":
			a.IdempotentHint = true
		}
	}
	return a
}

// ClientName is how a session's client is recorded in tool_executions.
func ClientName(ss *mcp.ServerSession) string {
	name := "unknown"
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			name = p.ClientInfo.Name
		}
	}
	return "mcp:" + name
}

// callTool runs the approved version of the called tool exactly as helix
// tool exec does: Load refuses a version that is no longer approved, Exec
// validates the input before anything is sent and records the execution.
func (s *Server) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := req.Params.Name
	t, err := toolexec.LoadFor(ctx, s.o.DB, name, "", s.owner())
	if err != nil {
		var na *toolexec.NotApprovedError
		var nf *manifest.NotFoundError
		if errors.As(err, &na) || errors.As(err, &nf) {
			go s.resync()
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("tool %s is no longer approved: nothing was sent", name)}
		}
		return nil, err
	}
	r, closeRunner, err := s.o.Runner(ctx, toolexec.Kind(t.Manifest))
	if err != nil {
		return nil, err
	}
	defer closeRunner()
	stop := s.progress(ctx, req, t.Name+"@"+t.Version)
	input := []byte(req.Params.Arguments)
	if len(input) == 0 || string(input) == "null" {
		input = []byte("{}")
	}
	res, err := r.Exec(ctx, s.o.DB, t, toolexec.Options{Input: input, UserID: s.o.UserID.String(), Client: ClientName(req.Session)})
	stop()
	var ie *toolexec.InputError
	switch {
	case errors.As(err, &ie):
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: ie.Msg + ": nothing was sent"}
	case res == nil:
		return nil, err
	}
	return toolResult(res), nil
}

// resync looks at the approved tools now: a call found its tool gone.
func (s *Server) resync() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Sync(ctx); err != nil {
		s.o.Logger.Warn("look for approved tools", "err", err)
	}
}

// progress sends a progress notification now and then every interval until
// stop, when the client asked for them with a progress token.
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest, ref string) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		t := time.NewTicker(s.o.Progress)
		defer t.Stop()
		for {
			el := time.Since(start)
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
				Progress: el.Seconds(), Message: fmt.Sprintf("%s running for %s", ref, el.Round(time.Millisecond))})
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// toolResult is the execution as MCP content: the tool's output as text
// (an MCP tool's content blocks as its server sent them: images, audio and
// resources stay what they are), the whole result (status, HTTP status,
// execution id) as structured content, and isError when the tool did not
// succeed.
func toolResult(res *toolexec.Result) *mcp.CallToolResult {
	if res.Status == toolexec.StatusOK && len(res.Content) > 0 {
		var typed mcp.CallToolResult
		doc, _ := json.Marshal(map[string]json.RawMessage{"content": res.Content})
		if err := json.Unmarshal(doc, &typed); err == nil && len(typed.Content) > 0 {
			sc := *res
			sc.Content = nil
			if bytes.Equal(sc.Output, res.Content) { // the content list itself: sent once
				sc.Output = nil
			}
			return &mcp.CallToolResult{Content: typed.Content, StructuredContent: &sc}
		}
	}
	text := string(res.Output)
	var str string
	if json.Unmarshal(res.Output, &str) == nil {
		text = str
	}
	if res.Status != toolexec.StatusOK {
		text = fmt.Sprintf("%s@%s: %s: %s", res.Tool, res.Version, res.Status, res.Error)
		if string(res.Output) != "null" {
			text += "\n" + string(res.Output)
		}
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: res,
		IsError:           res.Status != toolexec.StatusOK,
	}
}

// MemorySearchInput is memory_search's input.
type MemorySearchInput struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
	Mode  string `json:"mode,omitempty"`
}

// MaxQuery is the longest memory_search query, in bytes: a query is a few
// words, and it is embedded and parsed for full text whole.
const MaxQuery = 4096

// memorySearchSchema is memory_search's input schema. searchInput checks
// calls against it by hand, so that a call that fails it is audited and
// answered with invalid params, as approved tools' calls are.
var memorySearchSchema = map[string]any{
	"type":                 "object",
	"additionalProperties": false,
	"required":             []any{"query"},
	"properties": map[string]any{
		"query": map[string]any{"type": "string", "minLength": 1, "maxLength": MaxQuery,
			"description": fmt.Sprintf("what to look for in the user's memories (at most %d bytes)", MaxQuery)},
		"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "description": "most results, 1 to 100 (default 10)"},
		"mode":  map[string]any{"type": "string", "enum": []any{search.Hybrid, search.Text, search.Vector}, "description": "hybrid (default), text or vector"},
	},
}

func (s *Server) addMemorySearch() {
	no := false
	s.AddTool(&mcp.Tool{
		Name: MemorySearchTool,
		Description: "Hybrid search of the user's memories: PostgreSQL full text and embedding similarity, " +
			"fused by reciprocal rank fusion (text only when no embeddings provider is configured). Every call is audited.",
		InputSchema: memorySearchSchema,
		Annotations: &mcp.ToolAnnotations{Title: "Search memories", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no},
	}, s.searchMemories)
}

// searchInput decodes memory_search's arguments as its schema says.
func searchInput(raw json.RawMessage) (MemorySearchInput, error) {
	var in MemorySearchInput
	if len(raw) == 0 || string(raw) == "null" {
		return in, errors.New("arguments: query is required")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return in, errors.New("arguments: not a JSON object")
	}
	for k, v := range fields {
		var err error
		switch k {
		case "query":
			err = json.Unmarshal(v, &in.Query)
		case "mode":
			err = json.Unmarshal(v, &in.Mode)
		case "limit":
			var f float64
			if err = json.Unmarshal(v, &f); err == nil && (f != float64(int(f)) || f < 1 || f > 100) {
				err = errors.New("out of range")
			}
			in.Limit = int(f)
		default:
			return in, fmt.Errorf("arguments: unknown property %q: memory_search takes query, limit and mode", trim(k, 64))
		}
		if err != nil {
			return in, fmt.Errorf("arguments/%s: %s", k, map[string]string{"query": "a string", "mode": "a string", "limit": "an integer from 1 to 100"}[k])
		}
	}
	if _, ok := fields["query"]; !ok {
		return in, errors.New("arguments: query is required")
	}
	return in, nil
}

// trim is s cut to n bytes.
func trim(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// searchMemories runs memory_search and records the call in
// helix_memory_search_calls, refused and interrupted calls too. A call whose
// row cannot be written fails: no results leave without their audit row.
// A failed search's cause goes to the log and the audit row, not to the
// client.
func (s *Server) searchMemories(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	in, err := searchInput(req.Params.Arguments)
	call := newSearchCall(s.o.UserID, ClientName(req.Session), in)
	if err != nil {
		return nil, s.audited(ctx, call.refused(err), &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()})
	}
	p, err := searchParams(s.o.UserID, in, s.o.EmbedModel)
	if err != nil {
		return nil, s.audited(ctx, call.refused(err), &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()})
	}
	e := s.o.Embedder
	if p.Mode == search.Text {
		e = nil
	} else if e == nil && p.Mode == search.Vector {
		return nil, s.audited(ctx, call.refused(search.ErrNoProvider), &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: search.ErrNoProvider.Error()})
	}
	rep, err := search.Search(ctx, s.o.DB, e, p)
	if err != nil && p.Mode == search.Hybrid && e != nil && ctx.Err() == nil {
		// the provider failed: text results only, as helix memory search does
		s.o.Logger.Warn("embeddings provider failed: text results only", "err", err)
		rep, err = search.Search(ctx, s.o.DB, nil, p)
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // done, but the client is gone: nobody got the results
	}
	if err != nil {
		call = call.failed(ctx, err)
		if aerr := s.audited(ctx, call, nil); aerr != nil {
			return nil, aerr
		}
		if call.status == SearchInterrupted {
			return nil, ctx.Err()
		}
		s.o.Logger.Warn("memory_search failed", "err", err)
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
			Text: "memory search failed: the server's log and helix_memory_search_calls say why"}}}, nil
	}
	if err := s.audited(ctx, call.done(rep), nil); err != nil {
		return nil, err
	}
	var b strings.Builder
	for i, r := range rep.Results {
		content := ""
		if r.Content != nil {
			content = *r.Content
		}
		fmt.Fprintf(&b, "%d. [%s %s] %s\n", i+1, r.Type, r.ID, content)
	}
	if len(rep.Results) == 0 {
		b.WriteString("no memories found\n")
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: rep}, nil
}

// searchParams checks memory_search's input.
func searchParams(user uuid.UUID, in MemorySearchInput, model string) (search.Params, error) {
	p := search.Params{User: user, Query: in.Query, Mode: in.Mode, Limit: in.Limit, Model: model}
	if p.Mode == "" {
		p.Mode = search.Hybrid
	}
	if p.Limit == 0 {
		p.Limit = 10
	}
	switch {
	case strings.TrimSpace(p.Query) == "":
		return p, errors.New("query is empty")
	case len(p.Query) > MaxQuery:
		return p, fmt.Errorf("query of %d bytes is over the %d-byte cap", len(p.Query), MaxQuery)
	case !utf8.ValidString(p.Query) || strings.ContainsRune(p.Query, 0):
		return p, errors.New("query holds a NUL or bytes that are not UTF-8: PostgreSQL text cannot")
	case p.Limit < 1 || p.Limit > 100:
		return p, fmt.Errorf("limit %d: use 1 to 100", p.Limit)
	case p.Mode != search.Hybrid && p.Mode != search.Text && p.Mode != search.Vector:
		return p, fmt.Errorf("mode %q: use hybrid, text or vector", p.Mode)
	}
	return p, nil
}

// patternRows is how many of the newest rows a pattern resource holds.
const patternRows = 500

func (s *Server) addResources() {
	s.AddResource(&mcp.Resource{
		URI: SynthesisURI, Name: "synthesis", MIMEType: "application/json",
		Description: "The patterns synthesis found in the user's memories (memory_synthesis), newest first, as a JSON array.",
	}, s.readPatterns(`
		SELECT coalesce(json_agg(t ORDER BY t.created_at DESC NULLS LAST), '[]')::text FROM (
		    SELECT s.id, s.pattern_type, s.synthesis_content, s.confidence_score, s.memory_ids, s.created_at,
		           l.id AS lineage_id, l.status AS lineage_status, l.first_seen_at AS lineage_first_seen_at, l.runs_seen AS lineage_runs_seen
		    FROM memory_synthesis s LEFT JOIN helix_pattern_lineages l ON l.user_id = s.user_id AND l.status <> 'ended' AND l.pattern_id = s.id
		    WHERE s.user_id = $1 ORDER BY s.created_at DESC NULLS LAST LIMIT $2) t`))
	s.AddResource(&mcp.Resource{
		URI: LLMURI, Name: "llm-patterns", MIMEType: "application/json",
		Description: "The patterns an LLM found (memory_patterns: emotional patterns, relational dynamics, narrative themes…), newest first, as a JSON array.",
	}, s.readPatterns(`
		SELECT coalesce(json_agg(t ORDER BY t.created_at DESC NULLS LAST), '[]')::text FROM (
		    SELECT p.id, p.pattern_type, p.content, p.confidence, p.evidence, p.created_at,
		           l.id AS lineage_id, l.status AS lineage_status, l.first_seen_at AS lineage_first_seen_at, l.runs_seen AS lineage_runs_seen
		    FROM memory_patterns p LEFT JOIN helix_pattern_lineages l ON l.user_id = p.user_id AND l.status <> 'ended' AND l.pattern_id = p.id
		    WHERE p.user_id = $1 ORDER BY p.created_at DESC NULLS LAST LIMIT $2) t`))
	s.AddResource(&mcp.Resource{
		URI: ProfileURI, Name: "profile", MIMEType: "application/json",
		Description: "The user's profile (helix profile update): integrated summary, findings by layer, top lineages, open recommendations; null until built.",
	}, s.readPatterns(`SELECT coalesce((SELECT profile::text FROM helix_profiles WHERE user_id = $1 AND $2::int > 0), 'null')`))
}

func (s *Server) readPatterns(query string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		var doc string
		if err := s.o.DB.QueryRow(ctx, query, s.o.UserID, patternRows).Scan(&doc); err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: doc}}}, nil
	}
}

// MaxMessage caps one MCP message helix mcp serve reads, on stdio and over
// HTTP alike (the Go SDK's stdio cap).
const MaxMessage = toolexec.MaxMessage
