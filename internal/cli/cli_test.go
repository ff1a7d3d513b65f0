package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

type result struct {
	code           int
	stdout, stderr string
}

// helix runs the real binary with a clean environment plus env.
func helix(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(testbin.Helix(t), args...)
	cmd.Env = isolatedEnv(t, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

// isolatedEnv is PATH, an empty home and config directory, and env: no
// setting of the machine's reaches the helix under test.
func isolatedEnv(t *testing.T, env ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir()}, env...)
}

func closedPortURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "postgres://postgres@" + addr + "/x?sslmode=disable&connect_timeout=2"
}

func TestUnreachableDatabaseIsExit4WithOneLine(t *testing.T) {
	t.Parallel()
	env := []string{"DATABASE_URL=" + closedPortURL(t)}
	r := helix(t, env, "", "migrate", "status")
	if r.code != 4 {
		t.Fatalf("exit %d, want 4; stderr:\n%s", r.code, r.stderr)
	}
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "helix: database unavailable") {
		t.Fatalf("stderr should be one line, got:\n%s", r.stderr)
	}
	if r.stdout != "" {
		t.Fatalf("stdout should be empty, got %q", r.stdout)
	}

	r = helix(t, env, "", "migrate", "status", "--output", "json")
	var e struct {
		Error struct {
			Message string `json:"message"`
			Code    int    `json:"code"`
			Kind    string `json:"kind"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stderr), &e); err != nil {
		t.Fatalf("stderr is not one JSON object: %v\n%s", err, r.stderr)
	}
	if r.code != 4 || e.Error.Code != 4 || e.Error.Kind != "unavailable" || !strings.Contains(e.Error.Message, "connection refused") {
		t.Fatalf("exit %d, error %+v", r.code, e.Error)
	}
}

func TestUsageErrorsAreExit2(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"migrate", "status", "--no-such-flag"},
		{"no-such-command"},
		{"import", "memories"},
		{"migrate", "down", "--to", "1", "--all"},
		{"version", "--output", "xml"},
	} {
		r := helix(t, nil, "", args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr: %s", args, r.code, r.stderr)
		}
	}
}

func TestVersionJSON(t *testing.T) {
	t.Parallel()
	r := helix(t, nil, "", "version", "-o", "json")
	var v map[string]string
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || r.code != 0 {
		t.Fatalf("exit %d, %v: %s", r.code, err, r.stdout)
	}
	for _, k := range []string{"version", "commit", "date", "go"} {
		if v[k] == "" {
			t.Errorf("version JSON lacks %q: %v", k, v)
		}
	}
}

func TestMigrateRoundTrip(t *testing.T) {
	t.Parallel()
	env := []string{"DATABASE_URL=" + pgtest.URL(t)}
	status := func() (applied, pending int) {
		r := helix(t, env, "", "migrate", "status", "-o", "json")
		var s struct {
			Migrations []db.MigrationStatus `json:"migrations"`
			Pending    int                  `json:"pending"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
			t.Fatalf("migrate status: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
		}
		return len(s.Migrations) - s.Pending, s.Pending
	}
	total, pending := status()
	if pending != 0 || total == 0 {
		t.Fatalf("fresh database: %d applied, %d pending", total, pending)
	}
	if r := helix(t, env, "", "migrate", "status", "--check"); r.code != 0 {
		t.Fatalf("status --check on an up-to-date schema: exit %d", r.code)
	}
	if r := helix(t, env, "", "migrate", "down", "--all", "--yes"); r.code != 0 {
		t.Fatalf("down --all: exit %d: %s", r.code, r.stderr)
	}
	if a, p := status(); a != 0 || p != total {
		t.Fatalf("after down --all: %d applied, %d pending", a, p)
	}
	if r := helix(t, env, "", "migrate", "status", "--check"); r.code != 1 {
		t.Fatalf("status --check with pending migrations: exit %d, want 1", r.code)
	}
	r := helix(t, env, "", "migrate", "up")
	if r.code != 0 || strings.Count(r.stdout, "up ") != total {
		t.Fatalf("up: exit %d, stdout:\n%s", r.code, r.stdout)
	}
	if a, p := status(); a != total || p != 0 {
		t.Fatalf("after up: %d applied, %d pending", a, p)
	}
	if r := helix(t, env, "", "migrate", "down", "--yes"); r.code != 0 || !strings.HasPrefix(r.stdout, "down ") {
		t.Fatalf("down: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	if a, p := status(); a != total-1 || p != 1 {
		t.Fatalf("after one down: %d applied, %d pending", a, p)
	}
}

func countMemories(t *testing.T, url string) int {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var n int
	if err := c.QueryRow(context.Background(), "SELECT count(*) FROM memories").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestImportDemoMemories(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	env := []string{"HELIX_DATABASE_URL=" + url}
	file := filepath.Join("..", "..", "testdata", "demo", "memories.jsonl")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(strings.TrimSpace(string(data)), "\n") + 1

	r := helix(t, env, "", "import", "memories", file, "-o", "json")
	var res struct{ Read, Inserted, Existing int }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 {
		t.Fatalf("exit %d %v: %s %s", r.code, err, r.stdout, r.stderr)
	}
	if res.Read != lines || res.Inserted != lines || countMemories(t, url) != lines {
		t.Fatalf("imported %+v, table has %d, file has %d lines", res, countMemories(t, url), lines)
	}
	// A re-run duplicates nothing.
	r = helix(t, env, "", "import", "memories", file)
	if r.code != 0 || r.stdout != fmt.Sprintf("imported 0 memories from %s (%d read, %d already present)\n", file, lines, lines) {
		t.Fatalf("re-import: exit %d: %q", r.code, r.stdout)
	}
	if n := countMemories(t, url); n != lines {
		t.Fatalf("after re-import the table has %d rows, want %d", n, lines)
	}
}

func TestImportWithOneBadLineLoadsNothing(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	good := `{"user_id":"11111111-1111-4111-8111-111111111111","type":"episodic","content":"ran 5 km","created_at":"2026-10-01T07:00:00Z","embedding":[0.1,0.2]}`
	cases := map[string]struct {
		bad, want string
	}{
		"bad type":      {`{"user_id":"11111111-1111-4111-8111-111111111111","type":"dream","content":"x"}`, `stdin: line 3: type "dream": must be one of episodic, semantic, procedural`},
		"unknown field": {`{"user_id":"11111111-1111-4111-8111-111111111111","type":"episodic","content":"x","mood":1}`, `stdin: line 3: invalid JSON: unknown field "mood"`},
		"bad valence":   {`{"user_id":"11111111-1111-4111-8111-111111111111","type":"episodic","content":"x","emotional_valence":3}`, `stdin: line 3: emotional_valence 3: must be between -1 and 1`},
		"bad time":      {`{"user_id":"11111111-1111-4111-8111-111111111111","type":"episodic","content":"x","created_at":"yesterday"}`, `stdin: line 3: invalid JSON`},
		"dimension":     {`{"user_id":"11111111-1111-4111-8111-111111111111","type":"episodic","content":"x","embedding":[1]}`, `stdin: line 3: embedding has 1 dimensions, line 1 has 2`},
		"truncated":     {`{"user_id":"11111111-1111-4111-8111-111111111111","type":`, `stdin: line 3: invalid JSON`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			in := good + "\n\n" + c.bad + "\n" + strings.Replace(good, "ran 5", "ran 6", 1) + "\n"
			r := helix(t, []string{"DATABASE_URL=" + url}, in, "import", "memories", "-")
			if r.code != 2 || !strings.HasPrefix(r.stderr, "helix: "+c.want) || !strings.Contains(r.stderr, "nothing was imported") {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, c.want)
			}
			if n := countMemories(t, url); n != 0 {
				t.Fatalf("%d rows written", n)
			}
		})
	}
}

func TestDoctor(t *testing.T) {
	t.Parallel()
	r := helix(t, []string{"DATABASE_URL=" + pgtest.URL(t)}, "", "doctor", "-o", "json")
	var rep struct {
		Healthy bool
		Checks  []struct{ Name, Status, Detail string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 || !rep.Healthy {
		t.Fatalf("exit %d %v: %s %s", r.code, err, r.stdout, r.stderr)
	}
	names := map[string]string{}
	for _, c := range rep.Checks {
		names[c.Name] = c.Status
	}
	for _, n := range []string{"config", "database", "migrations"} {
		if names[n] != "ok" {
			t.Errorf("check %s = %q", n, names[n])
		}
	}
	// README's example report has these checks, in this order (issue 49:
	// it had lost the connection path and mcp.token lines).
	doc := readme(t)
	i := strings.Index(doc, "$ helix doctor\n")
	if i < 0 {
		t.Fatal("README has no helix doctor example")
	}
	example := doc[i+len("$ helix doctor\n"):]
	example = example[:strings.Index(example, "```")]
	lines := strings.Split(strings.TrimSpace(example), "\n")
	var got []string
	for _, c := range rep.Checks {
		got = append(got, c.Name)
	}
	same := len(lines) == len(got)
	for i := 0; same && i < len(got); i++ {
		status, rest, _ := strings.Cut(lines[i], " ")
		same = status != "" && strings.HasPrefix(strings.TrimSpace(rest), got[i]+" ")
	}
	if !same {
		t.Errorf("README's helix doctor example:\n%s\nhelix doctor reports the checks %q", strings.Join(lines, "\n"), got)
	}
	r = helix(t, []string{"DATABASE_URL=" + closedPortURL(t)}, "", "doctor")
	if r.code != 4 || !strings.Contains(r.stdout, "FAIL  database") {
		t.Fatalf("unreachable: exit %d\n%s", r.code, r.stdout)
	}
	r = helix(t, nil, "", "doctor")
	if r.code != 2 || !strings.Contains(r.stdout, "no database URL") {
		t.Fatalf("no URL: exit %d\n%s", r.code, r.stdout)
	}
}

func TestConfigShowRedactsSecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte("db:\n  max-conns: 4\nmigrate:\n  status:\n    check: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"SUPABASE_DB_URL=postgres://svc:hunter2@db.example.com:5432/app", "HELIX_CONFIG=" + file}
	r := helix(t, env, "", "config", "show", "-o", "json")
	if strings.Contains(r.stdout+r.stderr, "hunter2") {
		t.Fatalf("password printed:\n%s", r.stdout)
	}
	var out struct {
		ConfigFile string `json:"config_file"`
		Settings   []struct{ Key, Value, Source string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range out.Settings {
		got[s.Key] = s.Value + " | " + s.Source
	}
	want := map[string]string{
		"database-url":       "postgres://svc:[REDACTED]@db.example.com:5432/app | env SUPABASE_DB_URL",
		"db.max-conns":       "4 | file " + file + ":2",
		"output":             "json | flag",
		"db.connect-timeout": "5s | default",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

// The final error quotes outside text escaped: a server's answer in it
// cannot drive the terminal.
func TestPrintErrorEscapes(t *testing.T) {
	var b bytes.Buffer
	PrintError(&b, false, errors.New("tool failed: \x1b[2J\x1b[Hall good"), 1, "error")
	if got, want := b.String(), "helix: tool failed: \\x1b[2J\\x1b[Hall good\n"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
