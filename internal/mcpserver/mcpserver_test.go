package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/toolexec"
)

// TestMain serves as the JavaScript skills' child too: the executor's
// default child is this binary with "skill __run-js".
func TestMain(m *testing.M) {
	if skill.IsChild(os.Args) {
		os.Exit(skill.RunChild(os.Stdin, os.Stdout))
	}
	goleak.VerifyTestMain(m)
}

var user = uuid.MustParse("6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b")

// service is a local HTTP service behind the test tools: GET /items/{id}
// answers JSON, /slow holds the request until the client goes away.
type service struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []string
	slow chan struct{} // closed when /slow has a request
}

func newService(t *testing.T) *service {
	s := &service{slow: make(chan struct{})}
	var once sync.Once
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r.Method+" "+r.URL.RequestURI())
		s.mu.Unlock()
		if r.URL.Path == "/slow" {
			once.Do(func() { close(s.slow) })
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id": "`+strings.TrimPrefix(r.URL.Path, "/items/")+`", "name": "lamp"}`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *service) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func (s *service) host() string { u, _ := url.Parse(s.URL); return u.Host }

// httpTool is a manifest of an operation of the service.
func httpTool(s *service, name, method, path string) *manifest.Manifest {
	return &manifest.Manifest{
		Name: name, Version: "1.0.0", Description: name + " of the test service",
		Entrypoint: manifest.Entrypoint{HTTP: &manifest.HTTPCall{Method: method, URL: s.URL + path}},
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"id": map[string]any{"type": "string", "x-helix-in": "path"}},
			"required":   []any{"id"},
		},
		Permissions: manifest.Permissions{Network: manifest.Network{s.host()}, Timeout: "10s"},
	}
}

func record(t *testing.T, pool *pgxpool.Pool, ms ...*manifest.Manifest) {
	t.Helper()
	var cands []manifest.Candidate
	for _, m := range ms {
		cands = append(cands, manifest.Candidate{Manifest: m, Source: "test"})
	}
	if _, err := manifest.Record(context.Background(), pool, cands, manifest.ImportOptions{Actor: "t", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

func approve(t *testing.T, pool *pgxpool.Pool, name string) {
	t.Helper()
	if _, err := manifest.Approve(context.Background(), pool, name, "1.0.0", "t", "test", time.Now()); err != nil {
		t.Fatal(err)
	}
}

func revoke(t *testing.T, pool *pgxpool.Pool, name string) {
	t.Helper()
	if _, err := manifest.Revoke(context.Background(), pool, name, "", "t", "test", time.Now()); err != nil {
		t.Fatal(err)
	}
}

// serve connects an SDK client to a Server over the in-memory transport.
func serve(t *testing.T, pool *pgxpool.Pool, copts *mcp.ClientOptions) (*Server, *mcp.ClientSession) {
	t.Helper()
	return serveWith(t, pool, copts, nil)
}

// serveWith is serve with the skill sandbox x (nil: no skills served).
func serveWith(t *testing.T, pool *pgxpool.Pool, copts *mcp.ClientOptions, x *skill.Executor) (*Server, *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv := New(Options{DB: pool, UserID: user, Version: "test", Progress: 20 * time.Millisecond, Skills: x,
		Runner: func(context.Context, string) (*toolexec.Runner, func(), error) {
			return &toolexec.Runner{HTTP: &toolexec.HTTPRunner{AllowPrivate: true}}, func() {}, nil
		}})
	if err := srv.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "helix-test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
	})
	return srv, cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// execution is a tool_executions row.
type execution struct {
	Tool, Status, Client, User string
}

func executions(t *testing.T, pool *pgxpool.Pool) []execution {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT tool_name, status, coalesce(client, ''), coalesce(user_id::text, '') FROM tool_executions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []execution
	for rows.Next() {
		var e execution
		if err := rows.Scan(&e.Tool, &e.Status, &e.Client, &e.User); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func rpcCode(err error) int64 {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return 0
}

func TestOnlyApprovedToolsAreListedAndCallable(t *testing.T) {
	pool := pgtest.New(t)
	svc := newService(t)
	record(t, pool, httpTool(svc, "shop.getItem", "GET", "/items/{id}"), httpTool(svc, "shop.deleteItem", "DELETE", "/items/{id}"),
		httpTool(svc, "shop.proposed", "GET", "/items/{id}"), httpTool(svc, "shop.revoked", "GET", "/items/{id}"))
	approve(t, pool, "shop.getItem")
	approve(t, pool, "shop.deleteItem")
	approve(t, pool, "shop.revoked")
	revoke(t, pool, "shop.revoked")
	_, cs := serve(t, pool, nil)
	ctx := context.Background()

	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	if got := toolNames(t, cs); !slices.Equal(got, []string{MemorySearchTool, "shop.deleteItem", "shop.getItem"}) {
		t.Fatalf("tools = %v, want memory_search and the two approved ones", got)
	}
	get, del := byName["shop.getItem"], byName["shop.deleteItem"]
	if !get.Annotations.ReadOnlyHint || get.Annotations.DestructiveHint != nil || del.Annotations.ReadOnlyHint || del.Annotations.DestructiveHint == nil || !*del.Annotations.DestructiveHint {
		t.Errorf("annotations: GET %+v, DELETE %+v", get.Annotations, del.Annotations)
	}
	schema, _ := json.Marshal(get.InputSchema)
	if !strings.Contains(string(schema), `"required":["id"]`) {
		t.Errorf("input schema = %s, want the parameters schema", schema)
	}

	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shop.getItem", Arguments: map[string]any{"id": "42"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.IsError || len(out.Content) != 1 || !strings.Contains(out.Content[0].(*mcp.TextContent).Text, `"name": "lamp"`) {
		t.Fatalf("call = %+v", out)
	}
	sc, _ := json.Marshal(out.StructuredContent)
	if !strings.Contains(string(sc), `"http_status":200`) || !strings.Contains(string(sc), `"execution_id"`) {
		t.Errorf("structured content = %s", sc)
	}
	for _, name := range []string{"shop.proposed", "shop.revoked", "shop.nothing"} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"id": "1"}}); err == nil {
			t.Errorf("%s was callable", name)
		}
	}
	if got := svc.requests(); !slices.Equal(got, []string{"GET /items/42"}) {
		t.Errorf("service saw %v, want only the approved call", got)
	}
	want := []execution{{"shop.getItem", "ok", "mcp:helix-test", user.String()}}
	if got := executions(t, pool); !slices.Equal(got, want) {
		t.Errorf("executions = %+v, want %+v", got, want)
	}
}

func TestInputFailingTheSchemaIsAnErrorAndNothingIsSent(t *testing.T) {
	pool := pgtest.New(t)
	svc := newService(t)
	record(t, pool, httpTool(svc, "shop.getItem", "GET", "/items/{id}"))
	approve(t, pool, "shop.getItem")
	_, cs := serve(t, pool, nil)
	ctx := context.Background()
	for _, args := range []any{map[string]any{"id": 42}, map[string]any{}, map[string]any{"id": []any{"a"}}} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shop.getItem", Arguments: args})
		if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "nothing was sent") {
			t.Errorf("%v: err = %v, want invalid params", args, err)
		}
	}
	if got := svc.requests(); len(got) != 0 {
		t.Errorf("service saw %v", got)
	}
	got := executions(t, pool)
	if len(got) != 3 {
		t.Fatalf("executions = %+v, want one per call", got)
	}
	for _, e := range got {
		if e.Status != toolexec.StatusInvalidInput || e.Client != "mcp:helix-test" {
			t.Errorf("execution %+v", e)
		}
	}
}

func TestApprovalsWhileServingChangeTheList(t *testing.T) {
	pool := pgtest.New(t)
	svc := newService(t)
	record(t, pool, httpTool(svc, "shop.getItem", "GET", "/items/{id}"), httpTool(svc, "shop.later", "GET", "/items/{id}"))
	approve(t, pool, "shop.getItem")
	changed := make(chan struct{}, 10)
	srv, cs := serve(t, pool, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); srv.Watch(ctx, 20*time.Millisecond) }()
	defer wg.Wait()
	defer cancel()

	approve(t, pool, "shop.later")
	wait(t, changed)
	if got := toolNames(t, cs); !slices.Equal(got, []string{MemorySearchTool, "shop.getItem", "shop.later"}) {
		t.Fatalf("after approval: %v", got)
	}
	// Revoked between two looks: the call is refused before anything is sent.
	cancel()
	wg.Wait()
	revoke(t, pool, "shop.getItem")
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shop.getItem", Arguments: map[string]any{"id": "1"}}); err == nil || !strings.Contains(err.Error(), "no longer approved") {
		t.Errorf("revoked call: %v", err)
	}
	wait(t, changed) // the refused call looked again
	if got := toolNames(t, cs); !slices.Equal(got, []string{MemorySearchTool, "shop.later"}) {
		t.Fatalf("after revocation: %v", got)
	}
	if got := svc.requests(); len(got) != 0 {
		t.Errorf("service saw %v", got)
	}
}

func wait(t *testing.T, c chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed")
	}
}

func TestCancelledCallIsInterruptedAndProgressIsSent(t *testing.T) {
	pool := pgtest.New(t)
	svc := newService(t)
	m := httpTool(svc, "shop.slow", "POST", "/slow")
	m.Parameters = map[string]any{"type": "object"}
	record(t, pool, m)
	approve(t, pool, "shop.slow")
	progress := make(chan string, 100)
	_, cs := serve(t, pool, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		progress <- r.Params.Message
	}})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "shop.slow", Arguments: map[string]any{}}
		p.SetProgressToken("t1")
		_, err := cs.CallTool(ctx, p)
		errc <- err
	}()
	select {
	case <-svc.slow:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never reached the service")
	}
	select {
	case msg := <-progress:
		if !strings.Contains(msg, "shop.slow@1.0.0 running") {
			t.Errorf("progress %q", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no progress notification")
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled call succeeded")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := executions(t, pool)
		if len(got) == 1 {
			if got[0].Status != toolexec.StatusInterrupted || got[0].Client != "mcp:helix-test" {
				t.Fatalf("execution %+v, want interrupted", got[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("executions = %+v", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestMemorySearchAndPatterns(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	other := uuid.New()
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	ms := []memories.Memory{
		{ID: uuid.New(), UserID: user, Type: "episodic", Content: "Baked sourdough with the new starter", CreatedAt: at},
		{ID: uuid.New(), UserID: user, Type: "semantic", Content: "The dentist is on Fridays", CreatedAt: at},
		{ID: uuid.New(), UserID: other, Type: "episodic", Content: "Sourdough starter died", CreatedAt: at},
	}
	if _, err := memories.Insert(ctx, pool, ms); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO memory_synthesis (id, user_id, pattern_type, memory_ids, synthesis_content, confidence_score, created_at)
		VALUES (gen_random_uuid(), $1, 'baking', ARRAY[$3::uuid], 'bakes on weekends', 0.8, now()),
		       (gen_random_uuid(), $2, 'other', '{}', 'not yours', 0.5, now())`, user, other, ms[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO memory_patterns (user_id, pattern_type, content, confidence, evidence)
		VALUES ($1, 'narrative_themes', '{"theme": "craft"}', 0.7, ARRAY['sourdough']),
		       ($2, 'narrative_themes', '{"theme": "secret"}', 0.7, '{}')`, user, other); err != nil {
		t.Fatal(err)
	}
	_, cs := serve(t, pool, nil)

	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: MemorySearchTool, Arguments: map[string]any{"query": "sourdough"}})
	if err != nil {
		t.Fatal(err)
	}
	text := out.Content[0].(*mcp.TextContent).Text
	if out.IsError || !strings.Contains(text, "Baked sourdough") || strings.Contains(text, "died") || strings.Contains(text, "dentist") {
		t.Errorf("memory_search = %q", text)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: MemorySearchTool, Arguments: map[string]any{"query": " "}}); err == nil {
		t.Error("an empty query was accepted")
	}
	// Both calls are audited, by the query's hash, never its text.
	want := []searchRow{
		{Client: "mcp:helix-test", QuerySHA: sha("sourdough"), Mode: "hybrid", Used: "text", Limit: 10, Results: 1, Status: SearchOK},
		{Client: "mcp:helix-test", QuerySHA: sha(" "), Mode: "hybrid", Limit: 10, Results: -1, Status: SearchInvalidInput, Error: "query is empty"},
	}
	if got := searchRows(t, pool); !slices.Equal(got, want) {
		t.Errorf("audit rows\n%+v\nwant\n%+v", got, want)
	}
	var leaked bool
	if err := pool.QueryRow(ctx, `SELECT bool_or(row_to_json(c)::text ILIKE '%sourdough%') FROM helix_memory_search_calls c`).Scan(&leaked); err != nil || leaked {
		t.Errorf("the query text is in the audit (%v)", err)
	}

	rs, err := cs.ListResources(ctx, nil)
	if err != nil || len(rs.Resources) != 3 {
		t.Fatalf("resources = %+v, %v", rs, err)
	}
	// the profile: null until built, then the user's own document only
	readProfile := func() string {
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ProfileURI})
		if err != nil {
			t.Fatal(err)
		}
		return r.Contents[0].Text
	}
	if got := readProfile(); got != "null" {
		t.Errorf("profile before any = %s", got)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO helix_profiles (user_id, profile, basis, updated_at)
		VALUES ($1, '{"summary": {"text": "bakes"}}', 'x', now()), ($2, '{"summary": {"text": "secret"}}', 'x', now())`, user, other); err != nil {
		t.Fatal(err)
	}
	if got := readProfile(); !strings.Contains(got, "bakes") || strings.Contains(got, "secret") {
		t.Errorf("profile = %s", got)
	}
	for uri, want := range map[string]string{SynthesisURI: "bakes on weekends", LLMURI: `"craft"`} {
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(r.Contents[0].Text), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("%s = %s (%v)", uri, r.Contents[0].Text, err)
		}
		if !strings.Contains(r.Contents[0].Text, want) {
			t.Errorf("%s = %s, want %s", uri, r.Contents[0].Text, want)
		}
	}
}
