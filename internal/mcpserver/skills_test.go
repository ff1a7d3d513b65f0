package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helixhq/helix/internal/composite"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/skill"
)

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// searchRow is a helix_memory_search_calls row (Results -1: NULL).
type searchRow struct {
	Client, QuerySHA, Mode, Used string
	Limit, Results               int
	Status, Error                string
}

func searchRows(t *testing.T, pool *pgxpool.Pool) []searchRow {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT client, query_sha256, mode, coalesce(mode_used, ''), result_limit,
		coalesce(results, -1), status, coalesce(error, '') FROM helix_memory_search_calls WHERE user_id = $1 ORDER BY id`, user)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []searchRow
	for rows.Next() {
		var r searchRow
		if err := rows.Scan(&r.Client, &r.QuerySHA, &r.Mode, &r.Used, &r.Limit, &r.Results, &r.Status, &r.Error); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// A memory_search call cancelled mid-way is recorded interrupted, and the
// audit table is append-only for the users it is about.
func TestMemorySearchInterruptedIsAudited(t *testing.T) {
	pool := pgtest.New(t)
	srv := New(Options{DB: pool, UserID: user})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := srv.searchMemories(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Arguments: json.RawMessage(`{"query": "bread", "mode": "text", "limit": 3}`)}})
	if err == nil {
		t.Fatal("a cancelled search succeeded")
	}
	want := []searchRow{{Client: "mcp:unknown", QuerySHA: sha("bread"), Mode: "text", Limit: 3, Results: -1, Status: SearchInterrupted}}
	got := searchRows(t, pool)
	if len(got) == 1 {
		if !strings.HasPrefix(got[0].Error, "interrupted before it finished") {
			t.Errorf("error %q", got[0].Error)
		}
		got[0].Error = ""
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows %+v, want %+v", got, want)
	}
	var appendOnly bool
	if err := pool.QueryRow(context.Background(), `SELECT append_only FROM helix_tables WHERE name = 'helix_memory_search_calls'`).Scan(&appendOnly); err != nil || !appendOnly {
		t.Errorf("helix_memory_search_calls append_only = %v (%v)", appendOnly, err)
	}
}

// addSkill stores a JavaScript skill of testdata/composite under name.
func addSkill(t *testing.T, pool *pgxpool.Pool, file, name, params string) {
	t.Helper()
	sk, err := skill.LoadFile(filepath.Join("..", "..", "testdata", "composite", file))
	if err != nil {
		t.Fatal(err)
	}
	sk.Name, sk.Version = name, "1"
	if params != "" {
		sk.Params = []byte(params)
	}
	if _, err := skill.Add(context.Background(), pool, sk); err != nil {
		t.Fatal(err)
	}
}

func addComposite(t *testing.T, pool *pgxpool.Pool, yaml string) {
	t.Helper()
	d, err := composite.Parse([]byte(yaml), "test.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := composite.Save(context.Background(), pool, d); err != nil {
		t.Fatal(err)
	}
}

// executor is the skill sandbox; its JavaScript child is this test binary (TestMain).
func executor(t *testing.T) *skill.Executor {
	t.Helper()
	x, err := skill.NewExecutor(skill.ExecutorOptions{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// skillRun is a skill_executions row.
type skillRun struct {
	Skill, Status, Client, User string
	Composite                   bool
}

func skillRuns(t *testing.T, pool *pgxpool.Pool) []skillRun {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT skill_name, status, coalesce(client, ''), coalesce(user_id::text, ''),
		composite_execution_id IS NOT NULL FROM skill_executions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []skillRun
	for rows.Next() {
		var r skillRun
		if err := rows.Scan(&r.Skill, &r.Status, &r.Client, &r.User, &r.Composite); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

const shoutComposite = `
name: shout
version: 1.0.0
description: shouts the text twice, then looks the result up in the shop
input_schema:
  type: object
  properties: { text: { type: string } }
  required: [text]
steps:
  - id: once
    skill: upper@1
    input: { text: $.input.text }
  - id: twice
    skill: upper@1
    input: { text: $.steps.once.output.text }
  - id: look
    tool: shop.getItem
    input: { id: $.steps.twice.output.text }
output: { text: $.steps.twice.output.text, item: $.steps.look.output.name }
`

// Registry skills and composite skills are MCP tools with their input
// schemas; they run in the sandbox and are recorded with the client.
func TestSkillsAndCompositesAreTools(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	svc := newService(t)
	record(t, pool, httpTool(svc, "shop.getItem", "GET", "/items/{id}"))
	approve(t, pool, "shop.getItem")
	addSkill(t, pool, "upper.js", "upper", `{"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}`)
	addSkill(t, pool, "upper.js", "listy", `{"type": "array"}`) // MCP arguments are objects: not served
	addComposite(t, pool, shoutComposite)
	addComposite(t, pool, strings.Replace(strings.Replace(shoutComposite, "name: shout", "name: from-file", 1), "skill: upper@1", "skill: ./upper.js", 1))
	srv, cs := serveWith(t, pool, nil, executor(t))

	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	if got := toolNames(t, cs); !slices.Equal(got, []string{"composite.shout", MemorySearchTool, "shop.getItem", "skill.upper"}) {
		t.Fatalf("tools = %v", got)
	}
	up, sh := byName["skill.upper"], byName["composite.shout"]
	for _, tl := range []*mcp.Tool{up, sh} {
		schema, _ := json.Marshal(tl.InputSchema)
		if !strings.Contains(string(schema), `"required":["text"]`) {
			t.Errorf("%s input schema = %s", tl.Name, schema)
		}
	}
	if up.Title != "upper@1" || !up.Annotations.ReadOnlyHint || sh.Annotations.ReadOnlyHint || !strings.HasPrefix(sh.Description, "shouts the text") {
		t.Errorf("skill %+v %+v; composite %+v %+v", up, up.Annotations, sh, sh.Annotations)
	}

	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "skill.upper", Arguments: map[string]any{"text": "hey"}})
	if err != nil || out.IsError {
		t.Fatalf("skill.upper: %+v, %v", out, err)
	}
	if text := out.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `"text":"HEY"`) {
		t.Errorf("skill.upper = %s", text)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "skill.upper", Arguments: map[string]any{"txt": "hey"}})
	if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "nothing ran") {
		t.Errorf("bad input: %v", err)
	}

	out, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "composite.shout", Arguments: map[string]any{"text": "hi"}})
	if err != nil || out.IsError {
		t.Fatalf("composite.shout: %+v, %v", out, err)
	}
	if text := out.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `"text":"HI"`) || !strings.Contains(text, `"item":"lamp"`) {
		t.Errorf("composite.shout = %s", text)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "composite.shout", Arguments: map[string]any{"text": 5}}); rpcCode(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("composite bad input: %v", err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "composite.from-file", Arguments: map[string]any{"text": "x"}}); err == nil {
		t.Error("a composite naming a skill file ran")
	}

	u, c := user.String(), "mcp:helix-test"
	wantSkills := []skillRun{{"upper", "ok", c, u, false}, {"upper", "invalid_input", c, u, false}, {"upper", "ok", c, u, true}, {"upper", "ok", c, u, true}}
	if got := skillRuns(t, pool); !slices.Equal(got, wantSkills) {
		t.Errorf("skill_executions\n%+v\nwant\n%+v", got, wantSkills)
	}
	var runs []string
	rows, _ := pool.Query(ctx, `SELECT name || ' ' || status || ' ' || coalesce(client, '') || ' ' || coalesce(user_id::text, '') FROM composite_skill_executions ORDER BY id`)
	for rows.Next() {
		var r string
		_ = rows.Scan(&r)
		runs = append(runs, r)
	}
	if want := []string{"shout ok " + c + " " + u, "shout invalid_input " + c + " " + u}; !slices.Equal(runs, want) {
		t.Errorf("composite runs %q, want %q", runs, want)
	}
	var toolClient string
	if err := pool.QueryRow(ctx, `SELECT client FROM tool_executions WHERE composite_execution_id IS NOT NULL`).Scan(&toolClient); err != nil || toolClient != c {
		t.Errorf("the tool step's row: client %q (%v)", toolClient, err)
	}
	if got := svc.requests(); !slices.Equal(got, []string{"GET /items/HI"}) {
		t.Errorf("service saw %v", got)
	}

	// A skill added while serving is listed at the next look.
	addSkill(t, pool, "spin.js", "spin", "")
	if err := srv.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := srv.Listed(); !slices.Contains(got, "skill.spin") {
		t.Errorf("after adding spin: %v", got)
	}
}

// jsChildren are this process's JavaScript skill children still running.
func jsChildren(t *testing.T) []string {
	t.Helper()
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmd, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !strings.Contains(string(cmd), skill.ChildCommand) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			out = append(out, filepath.Base(d))
		}
	}
	return out
}

// A cancelled skill call stops the skill (its child is killed) and is
// recorded interrupted; progress was sent while it ran.
func TestCancelledSkillCallStopsTheSkill(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("SKIPPED: needs /proc to see the skill's child process")
	}
	pool := pgtest.New(t)
	addSkill(t, pool, "spin.js", "spin", "")
	progress := make(chan string, 100)
	_, cs := serveWith(t, pool, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		progress <- r.Params.Message
	}}, executor(t))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "skill.spin", Arguments: map[string]any{"loops": -1}}
		p.SetProgressToken("spin")
		_, err := cs.CallTool(ctx, p)
		errc <- err
	}()
	select {
	case msg := <-progress:
		if !strings.Contains(msg, "spin@1 running") {
			t.Errorf("progress %q", msg)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no progress notification")
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(jsChildren(t)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the skill's child never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled call succeeded")
	}
	deadline = time.Now().Add(30 * time.Second)
	for {
		got := skillRuns(t, pool)
		if len(got) == 1 && len(jsChildren(t)) == 0 {
			if want := (skillRun{"spin", "interrupted", "mcp:helix-test", user.String(), false}); got[0] != want {
				t.Fatalf("skill run %+v, want %+v", got[0], want)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs %+v, children still running %v", got, jsChildren(t))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
