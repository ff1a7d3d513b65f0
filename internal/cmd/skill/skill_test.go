package skill_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	skillcmd "github.com/helixhq/helix/internal/cmd/skill"
	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/skill/skilltest"
	"github.com/helixhq/helix/internal/testbin"
)

func TestMain(m *testing.M) { skilltest.Main(m) }

func TestExecArgs(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	var got *skillcmd.ExecOptions
	cmd := skillcmd.NewCmdExec(f, func(o *skillcmd.ExecOptions) error { got = o; return nil })
	cmd.SetArgs(strings.Fields("rank@1.2.0 --input @in.json --user-id 6f1c2d4e-8a9b-4c3d-9e8f-7a6b5c4d3e2f --timeout 2s --memory 64MiB --output-limit 1KiB --env A=b --env C=d --log"))
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Skill != "rank@1.2.0" || got.Input != "@in.json" || got.UserID.String() != "6f1c2d4e-8a9b-4c3d-9e8f-7a6b5c4d3e2f" ||
		got.Limits.Timeout != 2*time.Second || got.Limits.Memory != "64MiB" || got.Limits.OutputLimit != "1KiB" ||
		strings.Join(got.Env, ",") != "A=b,C=d" || !got.Log {
		t.Fatalf("options = %+v", got)
	}
}

func TestAddArgs(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	var got *skillcmd.AddOptions
	cmd := skillcmd.NewCmdAdd(f, func(o *skillcmd.AddOptions) error { got = o; return nil })
	cmd.SetArgs(strings.Fields("rank.js --name rank --version 1.2.0 --params s.json --capability clock --capability fs:read=/srv --timeout 5s"))
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.File != "rank.js" || got.Name != "rank" || got.Version != "1.2.0" || got.Params != "s.json" ||
		strings.Join(got.Capabilities, " ") != "clock fs:read=/srv" || got.Limits.Timeout != 5*time.Second {
		t.Fatalf("options = %+v", got)
	}
}

// run executes argv against a Factory on db and returns stdout, stderr and the exit code.
func run(t *testing.T, tty bool, pool func(*cmdtest.Streams) *cmdutil.Factory, argv string, stdin string) (string, string, cmdutil.ExitCode) {
	t.Helper()
	var s cmdtest.Streams
	f := pool(&s)
	f.IOStreams.SetStdoutTTY(tty)
	s.In.WriteString(stdin)
	cmd := skillcmd.NewCmdSkill(f)
	cmd.SetFlagErrorFunc(cmdutil.WrapFlagError) // as under the root
	cmd.SetArgs(strings.Fields(argv))
	cmd.SetOut(s.Err)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	code, _ := cmdutil.ExitCodeFor(context.Background(), err)
	if err != nil {
		s.Err.WriteString("error: " + err.Error() + "\n")
	}
	return s.Out.String(), s.Err.String(), code
}

func TestAddExecListShow(t *testing.T) {
	t.Setenv("HELIX_SKILL_CACHE_DIR", skilltest.CacheDir())
	db := pgtest.New(t)
	factory := func(s *cmdtest.Streams) *cmdutil.Factory {
		f, streams := cmdtest.Factory(t, false)
		*s = streams
		return cmdtest.WithDB(f, db)
	}
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema.json")
	if err := os.WriteFile(schema, []byte(`{"type": "object", "required": ["paths"], "properties": {"paths": {"type": "object"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	wasm := skilltest.Wasm(t, "openapi-ops")
	js := filepath.Join(skilltest.SkillsDir(), "openapi-ops.js")
	petstore := filepath.Join(skilltest.SkillsDir(), "oai-v2.0-json-petstore.json")

	out, errOut, code := run(t, false, factory, "add "+wasm+" --name openapi-ops --params "+schema, "")
	if code != 0 || !strings.HasPrefix(out, "added openapi-ops@1 (wasm, ") {
		t.Fatalf("add wasm: %d %q %q", code, out, errOut)
	}
	out, _, code = run(t, false, factory, "add "+wasm+" --name openapi-ops", "")
	if code != 0 || !strings.HasPrefix(out, "already stored: openapi-ops@1 ") {
		t.Fatalf("add again: %d %q", code, out)
	}
	out, _, code = run(t, false, factory, "add "+js+" --name openapi-ops --version 2.0.0-js --params "+schema, "")
	if code != 0 || !strings.HasPrefix(out, "added openapi-ops@2.0.0-js (js, ") {
		t.Fatalf("add js: %d %q", code, out)
	}
	_, errOut, code = run(t, false, factory, "add "+js+" --name openapi-ops --version 1", "")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "openapi-ops@1 holds other code") {
		t.Fatalf("add over another version: %d %q", code, errOut)
	}

	// The same real document through both engines, from stdin and from a file.
	doc, err := os.ReadFile(petstore)
	if err != nil {
		t.Fatal(err)
	}
	wasmOut, errOut, code := run(t, false, factory, "exec openapi-ops@1 --input -", string(doc))
	if code != 0 {
		t.Fatalf("exec wasm: %d %q", code, errOut)
	}
	jsOut, errOut, code := run(t, false, factory, "exec openapi-ops --input @"+petstore, "")
	if code != 0 {
		t.Fatalf("exec js: %d %q", code, errOut)
	}
	if wasmOut != jsOut || !strings.Contains(wasmOut, `"operation_id":"showPetById"`) || strings.Count(wasmOut, "\n") != 1 {
		t.Fatalf("wasm and js outputs differ or are not one JSON line:\n%s\n%s", wasmOut, jsOut)
	}

	_, errOut, code = run(t, false, factory, `exec openapi-ops --input {"paths":[]}`, "")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "at /paths:") {
		t.Fatalf("invalid input: %d %q, want exit 2 naming /paths", code, errOut)
	}
	out, _, code = run(t, false, factory, `exec openapi-ops@1 --output-limit 10 --input {"paths":{"/a":{"get":{}}}}`, "")
	if code != cmdutil.ExitFailed || out != "" {
		t.Fatalf("output limit: %d %q", code, out)
	}

	f, s := cmdtest.Factory(t, false)
	f.Global.Output = "json"
	cmd := skillcmd.NewCmdSkill(cmdtest.WithDB(f, db))
	cmd.SetArgs([]string{"exec", "openapi-ops@1", "--input", `{"paths":{}}`, "--user-id", "6f1c2d4e-8a9b-4c3d-9e8f-7a6b5c4d3e2f"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	var rec struct {
		ExecutionID int64           `json:"execution_id"`
		Status      string          `json:"status"`
		Output      json.RawMessage `json:"output"`
		Stderr      string          `json:"stderr"`
		Limits      struct {
			TimeoutMS int64 `json:"timeout_ms"`
		} `json:"limits"`
	}
	if err := json.Unmarshal(s.Out.Bytes(), &rec); err != nil {
		t.Fatalf("--output json: %v\n%s", err, s.Out)
	}
	if rec.ExecutionID == 0 || rec.Status != "ok" || compact(t, rec.Output) != `{"count":0,"operations":[]}` || rec.Stderr != "0 operations\n" || rec.Limits.TimeoutMS != 30000 {
		t.Fatalf("record = %+v", rec)
	}

	var created, lastUsed time.Time
	var uses int
	if err := db.QueryRow(context.Background(), `SELECT created_at, usage_count, last_used_at FROM helix_skills WHERE version = '2.0.0-js'`).Scan(&created, &uses, &lastUsed); err != nil {
		t.Fatal(err)
	}
	if uses != 2 {
		t.Errorf("usage_count of openapi-ops@2.0.0-js = %d after two runs, want 2", uses)
	}
	out, _, _ = run(t, false, factory, "list", "")
	want := "openapi-ops\t2.0.0-js\tjs\t" + size(t, js) + "\t2\t-\t" + cmdutil.FormatTime(created) + "\tshared\ttrue\t2\t" + cmdutil.FormatTime(lastUsed) + "\n"
	if out != want {
		t.Fatalf("list (not a TTY) =\n%q\nwant\n%q", out, want)
	}
	out, _, _ = run(t, true, factory, "list", "")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "NAME ") || !strings.Contains(lines[1], "2.0.0-js") {
		t.Fatalf("list (TTY) =\n%s", out)
	}
	out, _, code = run(t, true, factory, "show openapi-ops@1", "")
	for _, w := range []string{"engine:        wasm", `"required": ["paths"]`, "recent executions (5):", "invalid_input", "output_limit"} {
		if code != 0 || !strings.Contains(out, w) {
			t.Fatalf("show does not say %q:\n%s", w, out)
		}
	}
	_, errOut, code = run(t, false, factory, "show nothing-here", "")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "skill not found: nothing-here") {
		t.Fatalf("show missing: %d %q", code, errOut)
	}
}

func compact(t *testing.T, b []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func size(t *testing.T, path string) string {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.FormatInt(st.Size(), 10)
}

// The real binary: a JavaScript memory bomb kills the child, and helix
// reports memory_limit with exit 1; an infinite loop is stopped at the timeout.
func TestHelixSurvivesHostileJS(t *testing.T) {
	bin := testbin.Helix(t)
	url := pgtest.URL(t)
	dir := t.TempDir()
	for name, code := range map[string]string{
		"bomb.js": `function main() { return 'x'.repeat(2**40).length }`,
		"loop.js": `while (true) {}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ file, args, status string }{
		{"bomb.js", "", "memory_limit: the skill needed more than the memory limit of 128 MiB"},
		{"loop.js", "--timeout 1s", "timeout: the skill ran longer than the timeout of 1s"},
	} {
		cmd := exec.Command(bin, append([]string{"skill", "exec", filepath.Join(dir, c.file)}, strings.Fields(c.args)...)...)
		cmd.Env = append(os.Environ(), "HELIX_DATABASE_URL="+url)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), c.status) {
			t.Errorf("%s: %v\n%s\nwant exit 1 and %q", c.file, err, out, c.status)
		}
	}
}

// TestFileRunsAndInterruptedRuns: runs of a skill file named like a
// registry skill are recorded but stay out of the registry skill's history
// (skill show); a run stopped mid-way is recorded as interrupted and
// prints nothing on stdout.
func TestFileRunsAndInterruptedRuns(t *testing.T) {
	t.Setenv("HELIX_SKILL_CACHE_DIR", skilltest.CacheDir())
	db := pgtest.New(t)
	factory := func(s *cmdtest.Streams) *cmdutil.Factory {
		f, streams := cmdtest.Factory(t, false)
		*s = streams
		return cmdtest.WithDB(f, db)
	}
	dir := t.TempDir()
	reg := filepath.Join(dir, "registry-hello.js")
	file := filepath.Join(dir, "hello.js")
	loop := filepath.Join(dir, "loop.js")
	for p, code := range map[string]string{
		reg:  `function main(x) { return {from: "registry"}; }`,
		file: `function main(x) { return {from: "file"}; }`,
		loop: `function main(x) { for (;;) {} }`,
	} {
		if err := os.WriteFile(p, []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, errOut, code := run(t, false, factory, "add "+reg+" --name hello --version 1.0.0", ""); code != 0 {
		t.Fatalf("add: %d %s", code, errOut)
	}
	for _, target := range []string{"hello", file} {
		if _, errOut, code := run(t, false, factory, "exec "+target, ""); code != 0 {
			t.Fatalf("exec %s: %d %s", target, code, errOut)
		}
	}
	var ss cmdtest.Streams
	jf := factory(&ss)
	jf.Global.Output = "json"
	out, errOut, code := run(t, false, func(s *cmdtest.Streams) *cmdutil.Factory { *s = ss; return jf }, "show hello", "")
	var shown struct {
		Executions []struct{ Version, Status string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil {
		t.Fatalf("show: %d %q %s", code, out, errOut)
	}
	if len(shown.Executions) != 1 || shown.Executions[0].Version != "1.0.0" {
		t.Errorf("skill show hello lists %+v, want the one registry run (the file run is kept apart)", shown.Executions)
	}
	var fileRuns int
	if err := db.QueryRow(context.Background(), `SELECT count(*) FROM skill_executions WHERE skill_name = 'hello' AND skill_version IS NULL AND skill_id IS NULL`).Scan(&fileRuns); err != nil || fileRuns != 1 {
		t.Errorf("file runs recorded: %d (%v), want 1", fileRuns, err)
	}

	// interrupted: the context a signal cancels ends mid-loop
	var s cmdtest.Streams
	f := factory(&s)
	cmd := skillcmd.NewCmdSkill(f)
	cmd.SetArgs([]string{"exec", loop, "--timeout", "60s"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(3*time.Second, cancel)
	err := cmd.ExecuteContext(ctx)
	if c, _ := cmdutil.ExitCodeFor(ctx, err); c != cmdutil.ExitInterrupted || s.Out.Len() != 0 {
		t.Errorf("interrupted exec: exit %d (%v), stdout %q", c, err, s.Out)
	}
	var status, msg string
	var output *string
	if err := db.QueryRow(context.Background(), `SELECT status, coalesce(error, ''), output FROM skill_executions WHERE skill_name = 'loop'`).Scan(&status, &msg, &output); err != nil {
		t.Fatalf("no skill_executions row for the interrupted run: %v", err)
	}
	if status != "interrupted" || !strings.HasPrefix(msg, "interrupted before it finished") || output != nil {
		t.Errorf("interrupted row: %s %q %v", status, msg, output)
	}
}

// Issue 32, finding 9: --timeout 0s is refused (exit 2), never read as the
// default 30 s; a run without the flag still gets the default.
func TestZeroTimeoutRefused(t *testing.T) {
	t.Setenv("HELIX_SKILL_CACHE_DIR", skilltest.CacheDir())
	db := pgtest.New(t)
	factory := func(s *cmdtest.Streams) *cmdutil.Factory {
		f, streams := cmdtest.Factory(t, false)
		*s = streams
		return cmdtest.WithDB(f, db)
	}
	js := filepath.Join(skilltest.SkillsDir(), "openapi-ops.js")
	for _, argv := range []string{"exec " + js + " --timeout 0s", "exec " + js + " --timeout 0", "add " + js + " --name z --timeout 0s"} {
		_, stderr, code := run(t, false, factory, argv, "")
		if code != cmdutil.ExitUsage || !strings.Contains(stderr, "invalid --timeout 0s") {
			t.Errorf("%s: exit %d, want 2\n%s", argv, code, stderr)
		}
	}
	var n int
	if err := db.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM skill_executions) + (SELECT count(*) FROM helix_skills)`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d rows written (%v), want none", n, err)
	}
}

// TestExecNetwork: a stored skill granted a loopback host fetches JSON from
// it with --allow-private (exit 0, the cost and the request in the JSON
// record), is refused without it (status refused, exit 1), and skill show
// lists both runs' requests and cost.
func TestExecNetwork(t *testing.T) {
	t.Setenv("HELIX_SKILL_CACHE_DIR", skilltest.CacheDir())
	db := pgtest.New(t)
	factory := func(s *cmdtest.Streams) *cmdutil.Factory {
		f, streams := cmdtest.Factory(t, false)
		*s = streams
		return cmdtest.WithDB(f, db)
	}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"current": {"temperature_2m": 21.5}, "city": %q}`, r.URL.Query().Get("city"))
	}))
	defer api.Close()
	host := strings.TrimPrefix(api.URL, "http://")
	file := filepath.Join(t.TempDir(), "weather.js")
	code := `async function main(input) {
		const r = await fetch(env.API_BASE + "/v1/forecast?city=" + encodeURIComponent(input.city));
		const body = await r.json();
		return { city: body.city, temp_c: body.current.temperature_2m };
	}`
	if err := os.WriteFile(file, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, c := run(t, false, factory, "add "+file+" --capability net:http="+host+" --capability env:API_BASE", ""); c != 0 {
		t.Fatalf("add: %d %s", c, errOut)
	}
	var ss cmdtest.Streams
	jf := factory(&ss)
	jf.Global.Output = "json"
	out, errOut, c := run(t, false, func(s *cmdtest.Streams) *cmdutil.Factory { *s = ss; return jf },
		"exec weather --allow-private --cpu-limit 5s --env API_BASE="+api.URL+` --input {"city":"Oslo"}`, "")
	var res struct {
		Status       string          `json:"status"`
		Output       json.RawMessage `json:"output"`
		CPUMS        float64         `json:"cpu_ms"`
		PeakRSSBytes int64           `json:"peak_rss_bytes"`
		Limits       struct {
			CPUMS int64 `json:"cpu_ms"`
		} `json:"limits"`
		Network struct {
			Requests int      `json:"requests"`
			Hosts    []string `json:"hosts"`
		} `json:"network"`
	}
	if c != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Status != "ok" || string(res.Output) != `{"city":"Oslo","temp_c":21.5}` ||
		res.CPUMS <= 0 || res.PeakRSSBytes <= 0 || res.Limits.CPUMS != 5000 || res.Network.Requests != 1 || res.Network.Hosts[0] != api.URL+"" {
		t.Fatalf("exec --allow-private: %d %s %s", c, out, errOut)
	}
	_, errOut, c = run(t, false, factory, "exec weather --env API_BASE="+api.URL+` --input {"city":"Oslo"}`, "")
	if c != cmdutil.ExitFailed || !strings.Contains(errOut, "weather: refused: ") || !strings.Contains(errOut, "only with the private-address opt-in (--allow-private)") {
		t.Fatalf("exec without --allow-private: %d %s", c, errOut)
	}
	out, _, c = run(t, false, factory, "show weather", "")
	if c != 0 || !strings.Contains(out, "\trefused\t") || !strings.Contains(out, "\t0 (1 refused)\t") || !strings.Contains(out, "\t1\t") || !strings.Contains(out, "iB\t") {
		t.Fatalf("show: %d\n%s", c, out)
	}
	if _, errOut, c := run(t, false, factory, "exec weather --cpu-limit 0s", ""); c != cmdutil.ExitUsage || !strings.Contains(errOut, "invalid --cpu-limit") {
		t.Fatalf("--cpu-limit 0s: %d %s", c, errOut)
	}
}
