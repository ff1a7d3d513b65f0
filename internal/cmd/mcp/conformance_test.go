package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/testbin"
)

// npmDir is where make test installs the MCP Inspector, the conformance
// suite and the reference server (scripts/mcp-npm.sh).
func npmDir(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", ".helix", "npm")
	if _, err := os.Stat(filepath.Join(dir, "installed")); err != nil {
		if os.Getenv("HELIX_MCP_NPM_REQUIRED") != "" {
			t.Fatalf("the MCP npm packages are not installed in %s: scripts/mcp-npm.sh failed?", dir)
		}
		t.Skipf("SKIPPED: the MCP Inspector and conformance suite are not installed (make test installs them: scripts/mcp-npm.sh %s)", dir)
	}
	return dir
}

// node runs a script of an npm package with the Node 22 installed beside it.
func node(t *testing.T, dir string, timeout time.Duration, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return nodeEnv(t, dir, timeout, nil, args...)
}

// nodeEnv is node with more environment variables.
func nodeEnv(t *testing.T, dir string, timeout time.Duration, env []string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	bin := filepath.Join(dir, "node_modules", ".bin")
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "node"), args...)
	cmd.Env = append(append(helixEnv(t), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1"), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// serveHTTPProc starts helix mcp serve --listen on a free loopback port.
func serveHTTPProc(t *testing.T, env []string) string {
	t.Helper()
	addr := "127.0.0.1:" + freePort(t)
	p := testbin.Start(t, env, "mcp", "serve", "--user-id", userID, "--allow-private", "--listen", addr, "--log-level", "warn")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		select {
		case <-p.Done():
			t.Fatalf("helix mcp serve exited %d: %s", p.Code(), p.Stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("helix mcp serve does not listen on %s: %s", addr, p.Stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The MCP Inspector CLI and the official conformance suite against helix mcp
// serve: clients no one here wrote.
func TestConformance(t *testing.T) {
	t.Parallel()
	dir := npmDir(t)
	inspector := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	suite := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	dbURL := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	srv, seen := itemService(t)
	approvedItemTool(t, pool, srv)
	if _, err := pool.Exec(context.Background(), `
		INSERT INTO memory_patterns (user_id, pattern_type, content, confidence, evidence)
		VALUES ($1, 'narrative_themes', '{"theme": "craft"}', 0.7, '{}')`, userID); err != nil {
		t.Fatal(err)
	}
	sk, err := skill.LoadFile(filepath.Join("..", "..", "..", "testdata", "composite", "upper.js"))
	if err != nil {
		t.Fatal(err)
	}
	sk.Name, sk.Version, sk.Params = "upper", "1", []byte(`{"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}`)
	if _, err := skill.Add(context.Background(), pool, sk); err != nil {
		t.Fatal(err)
	}
	helix := testbin.Helix(t)
	cfgHome := t.TempDir()
	inspect := func(t *testing.T, target []string, args ...string) map[string]any {
		t.Helper()
		argv := append([]string{inspector, "--cli"}, target...)
		out, errOut, err := node(t, dir, 2*time.Minute, append(argv, args...)...)
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, errOut)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("inspector %v: stdout is not JSON (%v): %s", args, err, out)
		}
		return doc
	}
	// The inspector takes --log-level for itself: helix's comes from the environment.
	stdio := []string{"-e", "DATABASE_URL=" + dbURL, "-e", "XDG_CONFIG_HOME=" + cfgHome, "-e", "XDG_CACHE_HOME=" + cfgHome, "-e", "HELIX_LOG_LEVEL=warn",
		helix, "mcp", "serve", "--user-id", userID, "--allow-private"}

	t.Run("inspector stdio", func(t *testing.T) {
		list := inspect(t, stdio, "--method", "tools/list")
		b, _ := json.Marshal(list)
		if !strings.Contains(string(b), `"name":"shop.getItem"`) || !strings.Contains(string(b), `"readOnlyHint":true`) {
			t.Errorf("tools/list = %s", b)
		}
		call := inspect(t, stdio, "--method", "tools/call", "--tool-name", "shop.getItem", "--tool-arg", "id=seven")
		b, _ = json.Marshal(call)
		if call["isError"] == true || !strings.Contains(string(b), "lamp") {
			t.Errorf("tools/call = %s", b)
		}
		if got := seen(); !slices.Equal(got, []string{"GET /items/seven"}) {
			t.Errorf("service saw %v", got)
		}
		if got := clientOf(t, pool); !strings.HasPrefix(got, "mcp:") || strings.HasPrefix(got, "mcp:unknown") || !strings.HasSuffix(got, " ok") {
			t.Errorf("last execution = %q, want the inspector's name", got)
		}
		call = inspect(t, stdio, "--method", "tools/call", "--tool-name", "skill.upper", "--tool-arg", "text=hey")
		b, _ = json.Marshal(call)
		if call["isError"] == true || !strings.Contains(string(b), `HEY`) {
			t.Errorf("tools/call skill.upper = %s", b)
		}
		var skillClient string
		if err := pool.QueryRow(context.Background(), `SELECT status || ' ' || client FROM skill_executions ORDER BY id DESC LIMIT 1`).Scan(&skillClient); err != nil ||
			!strings.HasPrefix(skillClient, "ok mcp:") || strings.HasSuffix(skillClient, "mcp:unknown") {
			t.Errorf("skill execution %q (%v), want ok and the inspector's name", skillClient, err)
		}
		read := inspect(t, stdio, "--method", "resources/read", "--uri", "helix://patterns/llm")
		b, _ = json.Marshal(read)
		if !strings.Contains(string(b), `craft`) {
			t.Errorf("resources/read = %s", b)
		}
	})

	t.Run("inspector http with token", func(t *testing.T) {
		url := serveHTTPProc(t, helixEnv(t, "DATABASE_URL="+dbURL, "HELIX_MCP_TOKEN=conformance-token"))
		target := []string{url, "--transport", "http"}
		list := inspect(t, append(target, "--header", "Authorization: Bearer conformance-token"), "--method", "tools/list")
		b, _ := json.Marshal(list)
		if !strings.Contains(string(b), `"name":"shop.getItem"`) {
			t.Errorf("tools/list = %s", b)
		}
		if out, _, err := node(t, dir, time.Minute, append([]string{inspector, "--cli"}, append(target, "--method", "tools/list")...)...); err == nil && strings.Contains(out, "shop.getItem") {
			t.Errorf("without the token the tools were listed: %s", out)
		}
	})

	t.Run("conformance suite", func(t *testing.T) {
		url := serveHTTPProc(t, helixEnv(t, "DATABASE_URL="+dbURL))
		// The scenarios that do not need the suite's own test tools and prompts.
		for _, s := range []string{"server-initialize", "ping", "tools-list", "resources-list", "dns-rebinding-protection"} {
			out, errOut, err := node(t, dir, 2*time.Minute, suite, "server", "--url", url, "--scenario", s)
			if err != nil || !strings.Contains(out, " 0 failed") {
				t.Errorf("scenario %s: %v\n%s\n%s", s, err, out, errOut)
			}
		}
	})
}

// run runs helix and returns its exit code, stdout and stderr.
func run(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	p := testbin.Start(t, env, args...)
	code := p.Wait(t, 2*time.Minute)
	return code, p.Stdout.String(), p.Stderr.String()
}

// The reference server server-everything imported as tools, approved, run by
// tool exec with an empty environment plus the granted credential, and
// served again by helix mcp serve.
func TestImportServerEverything(t *testing.T) {
	t.Parallel()
	dir := npmDir(t)
	nodeBin, _ := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", "node"))
	everything, _ := filepath.Abs(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	// The server's command line names paths with spaces and quotes: quoted as for a shell.
	spaced := filepath.Join(t.TempDir(), "my tools", "it's here")
	if err := os.MkdirAll(spaced, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(nodeBin, filepath.Join(spaced, "node")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(filepath.Dir(everything)), filepath.Join(spaced, "server everything")); err != nil {
		t.Fatal(err)
	}
	command := fmt.Sprintf(`'%s' "%s" stdio`, strings.ReplaceAll(filepath.Join(spaced, "node"), "'", `'\''`),
		filepath.Join(spaced, "server everything", "dist", "index.js"))
	dbURL := pgtest.URL(t)
	env := helixEnv(t, "DATABASE_URL="+dbURL)
	code, out, errOut := run(t, env, "manifest", "import", "--mcp-command", command,
		"--namespace", "everything", "--mcp-env", "SECRET_VAR", "--tool-timeout", "20s")
	if code != 0 || !strings.Contains(out, "everything.echo") || !strings.Contains(out, "everything.get-env") {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	pool := pgtest.Open(t, dbURL)
	var argv []string
	if err := pool.QueryRow(context.Background(), `SELECT manifest->'entrypoint'->'mcp'->'command' FROM tool_manifests
		WHERE name = 'everything.echo'`).Scan(&argv); err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(spaced, "node"), filepath.Join(spaced, "server everything", "dist", "index.js"), "stdio"}; !slices.Equal(argv, want) {
		t.Errorf("recorded command %q, want %q", argv, want)
	}
	for _, name := range []string{"everything.echo@2.0.0", "everything.get-env@2.0.0"} {
		if code, _, errOut := run(t, env, "tool", "approve", name, "--by", "t"); code != 0 {
			t.Fatalf("approve %s: %d %s", name, code, errOut)
		}
	}
	granted := append(env, "HELIX_TOOL_EVERYTHING_SECRET_VAR=granted-value", "SOMETHING_ELSE=leak")

	code, out, errOut = run(t, granted, "tool", "exec", "everything.echo", "--input", `{"message": "hello"}`)
	if code != 0 || strings.TrimSpace(out) != "Echo: hello" {
		t.Errorf("echo: exit %d, %q, %s", code, out, errOut)
	}
	code, out, errOut = run(t, granted, "tool", "exec", "everything.get-env", "--output", "json")
	var res struct {
		Kind, Status string
		Output       string // the server's text: its environment as JSON
	}
	var procEnv map[string]string
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
		t.Fatalf("get-env: exit %d, %v, %s %s", code, err, out, errOut)
	}
	if err := json.Unmarshal([]byte(res.Output), &procEnv); err != nil {
		t.Fatalf("get-env output %q: %v", res.Output, err)
	}
	if res.Kind != "mcp" || res.Status != "ok" || len(procEnv) != 2 || procEnv["SECRET_VAR"] != "REDACTED" || procEnv["PATH"] == "" {
		t.Errorf("get-env: %+v %v, want PATH and the granted SECRET_VAR only (printed redacted)", res, procEnv)
	}
	if code, _, errOut := run(t, granted, "tool", "exec", "everything.echo", "--input", `{"message": 5}`); code != 2 || !strings.Contains(errOut, "/message") {
		t.Errorf("bad input: exit %d, %s", code, errOut)
	}
	if code, _, errOut := run(t, granted, "tool", "exec", "everything.get-sum", "--input", `{"a": 1, "b": 2}`); code != 2 || !strings.Contains(errOut, "proposed") {
		t.Errorf("unapproved: exit %d, %s", code, errOut)
	}
	if code, _, errOut := run(t, env, "tool", "exec", "everything.echo", "--input", `{"message": "x"}`); code != 2 || !strings.Contains(errOut, "HELIX_TOOL_EVERYTHING_SECRET_VAR") {
		t.Errorf("without the credential: exit %d, %s", code, errOut)
	}

	// Re-importing the same server changes nothing.
	code, out, errOut = run(t, env, "manifest", "import", "--mcp-command", command,
		"--namespace", "everything", "--mcp-env", "SECRET_VAR", "--tool-timeout", "20s")
	if code != 0 || strings.Contains(out, "created") {
		t.Errorf("re-import: exit %d\n%s\n%s", code, out, errOut)
	}

	// An MCP server's tool, served again by helix mcp serve.
	cmd := exec.Command(testbin.Helix(t), "mcp", "serve", "--user-id", userID)
	cmd.Env = granted
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcpClient().Connect(ctx, &mcpCommand{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r, err := cs.CallTool(ctx, &mcpCallParams{Name: "everything.echo", Arguments: map[string]any{"message": "relayed"}})
	if err != nil || r.IsError || !strings.Contains(toText(r), "Echo: relayed") {
		t.Errorf("through mcp serve: %+v, %v", r, err)
	}
}

// A client no one here wrote (the official TypeScript SDK, testdata/cancel.mjs)
// cancels calls to helix mcp serve with notifications/cancelled: an HTTP
// tool's request is dropped (the service sees its client go) and a skill's
// child process is killed; both executions are recorded interrupted, with
// the client's name.
func TestNodeClientCancels(t *testing.T) {
	t.Parallel()
	dir := npmDir(t)
	dbURL := pgtest.URL(t)
	pool := pgtest.Open(t, dbURL)
	ctx := context.Background()
	arrived, gone := make(chan struct{}), make(chan struct{})
	var once sync.Once
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(arrived) })
		<-r.Context().Done()
		close(gone)
	}))
	defer svc.Close()
	u, _ := url.Parse(svc.URL)
	m := &manifest.Manifest{Name: "shop.slow", Version: "1.0.0", Description: "answers when it wants",
		Entrypoint:  manifest.Entrypoint{HTTP: &manifest.HTTPCall{Method: "POST", URL: svc.URL + "/slow"}},
		Parameters:  map[string]any{"type": "object"},
		Permissions: manifest.Permissions{Network: manifest.Network{u.Host}, Timeout: "2m"}}
	if _, err := manifest.Record(ctx, pool, []manifest.Candidate{{Manifest: m, Source: "test"}}, manifest.ImportOptions{Actor: "t", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Approve(ctx, pool, m.Name, m.Version, "t", "test", time.Now()); err != nil {
		t.Fatal(err)
	}
	sk, err := skill.LoadFile(filepath.Join("..", "..", "..", "testdata", "composite", "spin.js"))
	if err != nil {
		t.Fatal(err)
	}
	sk.Name, sk.Version = "spin", "1"
	if _, err := skill.Add(ctx, pool, sk); err != nil {
		t.Fatal(err)
	}

	helix := testbin.Helix(t)
	argv, _ := json.Marshal([]string{helix, "mcp", "serve", "--user-id", userID, "--allow-private"})
	home := t.TempDir()
	srvEnv, _ := json.Marshal(map[string]string{"DATABASE_URL": dbURL, "XDG_CONFIG_HOME": home, "XDG_CACHE_HOME": home, "HOME": home,
		"HELIX_LOG_LEVEL": "warn", "PATH": os.Getenv("PATH")})
	calls := `[{"name": "shop.slow", "arguments": {}}, {"name": "skill.spin", "arguments": {"loops": -1}}]`
	script, _ := filepath.Abs(filepath.Join("testdata", "cancel.mjs"))
	out, errOut, err := nodeEnv(t, dir, 3*time.Minute, []string{"MCP_SDK=" + filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"),
		"HELIX_ARGV=" + string(argv), "HELIX_ENV=" + string(srvEnv), "CALLS=" + calls}, script)
	if err != nil {
		t.Fatalf("cancel.mjs: %v\n%s\n%s", err, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("cancel.mjs printed %q\n%s", out, errOut)
	}
	for _, l := range lines {
		var r struct {
			Name     string
			Progress []string
			Outcome  string
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || len(r.Progress) < 2 || !strings.HasPrefix(r.Outcome, "cancelled") {
			t.Errorf("call %s (%v)", l, err)
		}
	}
	select {
	case <-arrived:
	default:
		t.Fatal("the slow tool's request never reached the service")
	}
	select {
	case <-gone:
	case <-time.After(30 * time.Second):
		t.Error("the cancelled request was never dropped")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var tool, skillRun string
		err := pool.QueryRow(ctx, `SELECT
			(SELECT string_agg(tool_name || ' ' || status || ' ' || client, ',') FROM tool_executions),
			(SELECT string_agg(skill_name || ' ' || status || ' ' || client, ',') FROM skill_executions)`).Scan(&tool, &skillRun)
		children := skillChildren(helix)
		if err == nil && tool == "shop.slow interrupted mcp:node-cancel" && skillRun == "spin interrupted mcp:node-cancel" && len(children) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tool_executions %q, skill_executions %q (%v), skill children still running: %v", tool, skillRun, err, children)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// skillChildren are the JavaScript skill processes of helix binary bin still running.
func skillChildren(bin string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmd, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && strings.HasPrefix(string(cmd), bin+"\x00") && strings.Contains(string(cmd), "\x00"+skill.ChildCommand) {
			out = append(out, filepath.Base(d))
		}
	}
	return out
}

// The reference server server-everything in its Streamable HTTP mode,
// imported with --mcp-url and its tool run by tool exec after approval.
func TestImportServerEverythingHTTP(t *testing.T) {
	t.Parallel()
	dir := npmDir(t)
	everything, _ := filepath.Abs(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := exec.CommandContext(ctx, filepath.Join(dir, "node_modules", ".bin", "node"), everything, "streamableHttp")
	srv.Env = append(os.Environ(), "PORT="+port)
	var srvErr bytes.Buffer
	srv.Stderr = &srvErr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = srv.Wait() }()
	addr := "127.0.0.1:" + port
	deadline := time.Now().Add(time.Minute)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything does not listen on %s: %s", addr, srvErr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	endpoint := "http://" + addr + "/mcp"
	env := helixEnv(t, "DATABASE_URL="+pgtest.URL(t))
	code, out, errOut := run(t, env, "manifest", "import", "--mcp-url", endpoint, "--namespace", "evhttp", "--allow-private", "--tool-timeout", "20s")
	if code != 0 || !strings.Contains(out, "evhttp.echo") {
		t.Fatalf("import: exit %d\n%s\n%s\n%s", code, out, errOut, srvErr.String())
	}
	if code, out, errOut := run(t, env, "tool", "exec", "evhttp.echo", "--input", `{"message": "x"}`, "--allow-private"); code != 2 || !strings.Contains(errOut, "proposed") {
		t.Errorf("before approval: exit %d %s %s", code, out, errOut)
	}
	if code, _, errOut := run(t, env, "tool", "approve", "evhttp.echo@2.0.0", "--by", "t"); code != 0 {
		t.Fatalf("approve: %d %s", code, errOut)
	}
	code, out, errOut = run(t, env, "tool", "exec", "evhttp.echo", "--input", `{"message": "over http"}`, "--allow-private")
	if code != 0 || strings.TrimSpace(out) != "Echo: over http" {
		t.Errorf("tool exec: exit %d, %q, %s", code, out, errOut)
	}
	// Without --allow-private the SSRF guard keeps helix off the loopback server.
	if code, _, errOut := run(t, env, "tool", "exec", "evhttp.echo", "--input", `{"message": "x"}`); code == 0 {
		t.Errorf("a loopback MCP server was reached without --allow-private: %s", errOut)
	}
}
