package skill_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/skill/skilltest"
)

// loopTimeout is the timeout of the infinite loops. Other hostile skills get
// a generous one: they must end by their own status, even on a loaded machine
// under -race.
const (
	loopTimeout    = 2 * time.Second
	hostileTimeout = 30 * time.Second
)

// strictTiming makes run fail when an execution takes longer than its timeout
// + 1 s. Unit tests assert no durations on a shared machine; scripts/bench/skill.sh sets it.
var strictTiming = os.Getenv("HELIX_SKILL_STRICT_TIMING") == "1"

func wasmSkill(t *testing.T, name string, caps ...string) *skill.Skill {
	t.Helper()
	s, err := skill.LoadFile(skilltest.Wasm(t, name))
	if err != nil {
		t.Fatal(err)
	}
	s.Capabilities = caps
	return s
}

func jsSkill(name, code string, caps ...string) *skill.Skill {
	return &skill.Skill{Name: name, Engine: skill.EngineJS, Code: []byte(code), SHA256: skill.Sum([]byte(code)), Capabilities: caps}
}

// run executes s and checks the status and that it ended within the timeout + 1 s
// (a warm-up run first, so the measured run does not include compiling the module).
func run(t *testing.T, e *skill.Executor, s *skill.Skill, input string, want skill.Status, o skill.ExecOptions) *skill.Result {
	t.Helper()
	o.Input = []byte(input)
	if o.Limits.Timeout == 0 {
		o.Limits.Timeout = hostileTimeout
	}
	if s.Engine == skill.EngineWasm {
		if err := e.CheckWasm(context.Background(), s.Code); err != nil && want == skill.StatusOK {
			t.Fatal(err)
		}
	}
	start := time.Now()
	res, err := e.Run(context.Background(), s, o)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("run %s: %v", s.Name, err)
	}
	if res.Status != want {
		t.Fatalf("%s: status %s, want %s (error %q, stderr %q, output %.200s)", s.Name, res.Status, want, res.Error, res.Stderr, res.Output)
	}
	if limit := o.Limits.Timeout + time.Second; elapsed > limit && strictTiming {
		t.Errorf("%s took %s, more than the timeout + 1 s", s.Name, elapsed)
	}
	t.Logf("%s %s: %s in %s (error: %s)", s.Engine, s.Name, res.Status, elapsed.Round(time.Millisecond), res.Error)
	return res
}

func TestWasmHostile(t *testing.T) {
	e := skilltest.Executor(t, skill.Limits{MemoryBytes: 64 << 20, OutputBytes: 1 << 20})
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "notes.txt"), []byte("granted"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(data, "passwd")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, input string
		caps        []string
		want        skill.Status
		msg         string // in the error
	}{
		{"infinite loop", `{"do": "loop"}`, nil, skill.StatusTimeout, "timeout of 2s"},
		{"memory growth", `{"do": "memhog"}`, nil, skill.StatusMemoryLimit, "memory limit of 32 MiB"},
		{"read /etc/passwd", `{"do": "read", "path": "/etc/passwd"}`, nil, skill.StatusError, "read: open /etc/passwd"},
		{"read /etc/passwd with a granted dir", `{"do": "read", "path": "/etc/passwd"}`, []string{"fs:read=" + data}, skill.StatusError, "read: open /etc/passwd"},
		{"escape a granted dir with /data/../../", `{"do": "read", "path": "/data/../../etc/passwd"}`, []string{"fs:read=" + data}, skill.StatusError, "read: open /data/../../etc/passwd"},
		{"escape a granted dir with ../../", `{"do": "read", "path": "../../../etc/passwd"}`, []string{"fs:read=" + data}, skill.StatusError, "read: open ../../../etc/passwd"},
		{"escape a granted dir by a symlink", `{"do": "read", "path": "/data/passwd"}`, []string{"fs:read=" + data}, skill.StatusError, "read: open /data/passwd"},
		{"open a socket", `{"do": "socket"}`, nil, skill.StatusError, "dial tcp 127.0.0.1:5432"},
		{"write 100 MB to stdout", `{"do": "flood"}`, nil, skill.StatusOutputLimit, "output limit of 1 MiB"},
		{"panic", `{"do": "panic"}`, nil, skill.StatusError, "panic: assignment to entry in nil map"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := skill.ExecOptions{}
			switch c.want {
			case skill.StatusTimeout:
				o.Limits.Timeout = loopTimeout
			case skill.StatusMemoryLimit:
				// wazero copies the memory as it grows: keep it small under -race
				o.Limits.MemoryBytes = 32 << 20
			}
			res := run(t, e, wasmSkill(t, "hostile", c.caps...), c.input, c.want, o)
			if !strings.Contains(res.Error, c.msg) {
				t.Errorf("error %q does not say %q", res.Error, c.msg)
			}
			if strings.Contains(string(res.Output)+res.Stderr, "root:x:0:0") {
				t.Errorf("the skill read the host's /etc/passwd")
			}
		})
	}
}

func TestWasmGrantedDir(t *testing.T) {
	e := skilltest.Executor(t, skill.Limits{})
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "notes.txt"), []byte("granted"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, e, wasmSkill(t, "hostile", "fs:read="+data), `{"do": "read", "path": "/data/notes.txt"}`, skill.StatusOK, skill.ExecOptions{})
	var out struct{ Content string }
	if err := json.Unmarshal(res.Output, &out); err != nil || out.Content != "granted" {
		t.Fatalf("output %s (%v), want the granted file's content", res.Output, err)
	}
}

// Hand-written modules: a trap (unreachable) and a module that is not a command.
var (
	wasmTrap = []byte("\x00asm\x01\x00\x00\x00" +
		"\x01\x04\x01\x60\x00\x00" + // type: () -> ()
		"\x03\x02\x01\x00" + // one function of type 0
		"\x07\x0a\x01\x06_start\x00\x00" + // export it as _start
		"\x0a\x05\x01\x03\x00\x00\x0b") // body: unreachable
	wasmNoStart = []byte("\x00asm\x01\x00\x00\x00")
)

// echo.wasm is hand-assembled (echo.wat): a module without a language runtime.
func TestWasmHandAssembledEcho(t *testing.T) {
	e := skilltest.Executor(t, skill.Limits{})
	s, err := skill.LoadFile(filepath.Join(skilltest.SkillsDir(), "echo.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	input, err := os.ReadFile(filepath.Join(skilltest.SkillsDir(), "oai-v3.0-uspto.json"))
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, e, s, string(input), skill.StatusOK, skill.ExecOptions{})
	if string(res.Output) != strings.TrimSpace(string(input)) {
		t.Fatalf("echo changed its input: %d bytes in, %d out", len(input), len(res.Output))
	}
}

func TestWasmTrapAndNoStart(t *testing.T) {
	e := skilltest.Executor(t, skill.Limits{})
	trap := &skill.Skill{Name: "trap", Engine: skill.EngineWasm, Code: wasmTrap, SHA256: skill.Sum(wasmTrap)}
	res := run(t, e, trap, `{}`, skill.StatusError, skill.ExecOptions{})
	if !strings.Contains(res.Error, "unreachable") {
		t.Errorf("error %q does not name the trap", res.Error)
	}
	noStart := &skill.Skill{Name: "lib", Engine: skill.EngineWasm, Code: wasmNoStart, SHA256: skill.Sum(wasmNoStart)}
	res = run(t, e, noStart, `{}`, skill.StatusError, skill.ExecOptions{})
	if !strings.Contains(res.Error, "no _start") {
		t.Errorf("error %q does not say the module has no _start", res.Error)
	}
	if err := e.CheckWasm(context.Background(), wasmNoStart); err == nil || !strings.Contains(err.Error(), "no _start") {
		t.Errorf("CheckWasm = %v, want a no _start error", err)
	}
}

func TestWasmCapabilities(t *testing.T) {
	e := skilltest.Executor(t, skill.Limits{})
	probe := func(caps []string, env map[string]string) (out struct {
		Env    []string
		Year   int
		Random string
	}) {
		res := run(t, e, wasmSkill(t, "hostile", caps...), `{"do": "probe"}`, skill.StatusOK, skill.ExecOptions{Env: env})
		if err := json.Unmarshal(res.Output, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	t.Setenv("HELIX_SECRET_PROBE", "leak")
	a, b := probe(nil, nil), probe(nil, nil)
	if len(a.Env) != 0 {
		t.Errorf("the skill saw environment %v, want none", a.Env)
	}
	if a.Year >= time.Now().Year() {
		t.Errorf("the skill saw the real clock (year %d) without the clock capability", a.Year)
	}
	if a.Random != b.Random {
		t.Errorf("randomness differs between runs without the random capability: %s %s", a.Random, b.Random)
	}
	c := probe([]string{"clock", "random", "env:API_BASE"}, map[string]string{"API_BASE": "https://example.org"})
	d := probe([]string{"random"}, nil)
	if c.Year != time.Now().Year() {
		t.Errorf("year %d with the clock capability, want %d", c.Year, time.Now().Year())
	}
	if c.Random == d.Random || c.Random == a.Random {
		t.Errorf("random bytes repeat with the random capability: %s %s %s", a.Random, c.Random, d.Random)
	}
	if strings.Join(c.Env, ",") != "API_BASE=https://example.org" {
		t.Errorf("environment %v, want only the declared API_BASE", c.Env)
	}
	if _, err := e.Run(context.Background(), wasmSkill(t, "hostile"), skill.ExecOptions{Input: []byte(`{"do": "probe"}`), Env: map[string]string{"API_BASE": "x"}}); err == nil {
		t.Error("an undeclared variable was passed to the skill")
	}
}

func TestJSHostile(t *testing.T) {
	e := skilltest.Executor(t, skill.Limits{MemoryBytes: 64 << 20, OutputBytes: 1 << 20})
	cases := []struct {
		name, code string
		want       skill.Status
		msg        string
	}{
		{"infinite loop", `function main(input) { for (;;) {} }`, skill.StatusTimeout, "timeout of 2s"},
		{"one huge native allocation", `function main() { return 'x'.repeat(2**40).length }`, skill.StatusMemoryLimit, "memory limit of 64 MiB"},
		{"memory growth", `const a = []; for (;;) { a.push('y'.repeat(1 << 20) + a.length) }`, skill.StatusMemoryLimit, "memory limit of 64 MiB"},
		{"eval", `return eval('1 + 1')`, skill.StatusError, "eval is not defined"},
		{"Function", `return Function('return this')()`, skill.StatusError, "Function is not defined"},
		{"Function via a function's constructor", `return (function(){}).constructor('return 1')()`, skill.StatusError, "code generation from strings is disabled"},
		{"Function via a generator's constructor", `return (function*(){}).constructor('yield 1')().next().value`, skill.StatusError, "code generation from strings is disabled"},
		{"Function via an async function's constructor", `return Object.getPrototypeOf(async function(){}).constructor('return 1')`, skill.StatusError, "code generation from strings is disabled"},
		{"globalThis.eval", `return globalThis['ev' + 'al']('1')`, skill.StatusError, "no member 'eval'"},
		{"require", `return require('fs')`, skill.StatusError, "require is not defined"},
		{"big output", `return 'z'.repeat(2 << 20)`, skill.StatusOutputLimit, "output limit of 1 MiB"},
		{"throw", `function main(input) { throw new Error('boom ' + input.n) }`, skill.StatusError, "boom 7"},
		{"stack overflow", `function main() { return main() }`, skill.StatusError, "stack overflow"},
		{"syntax error", `function main( {`, skill.StatusError, "skill.js"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := skill.ExecOptions{}
			if c.want == skill.StatusTimeout {
				o.Limits.Timeout = loopTimeout
			}
			res := run(t, e, jsSkill("hostile", c.code), `{"n": 7}`, c.want, o)
			if !strings.Contains(res.Error, c.msg) {
				t.Errorf("error %q does not say %q", res.Error, c.msg)
			}
		})
	}
}

func TestJSSandbox(t *testing.T) {
	e := skilltest.Executor(t, skill.Limits{})
	code := `function main(input) {
	console.log('probing', input.k);
	return { year: new Date().getFullYear(), random: Math.random(), env: env, hasEval: typeof eval, now: Date.now() > 0 };
}`
	probe := func(caps []string, o skill.ExecOptions) (out struct {
		Year   int
		Random float64
		Env    map[string]string
	}, stderr string) {
		res := run(t, e, jsSkill("probe", code, caps...), `{"k": "v"}`, skill.StatusOK, o)
		if err := json.Unmarshal(res.Output, &out); err != nil {
			t.Fatal(err)
		}
		return out, res.Stderr
	}
	a, log := probe(nil, skill.ExecOptions{})
	b, _ := probe(nil, skill.ExecOptions{})
	if log != "probing v\n" {
		t.Errorf("console.log went to %q, want the skill's log", log)
	}
	if a.Year >= time.Now().Year() || a.Random != b.Random || len(a.Env) != 0 {
		t.Errorf("without capabilities: %+v %+v, want a fixed clock, a fixed seed and no env", a, b)
	}
	c, _ := probe([]string{"clock", "random", "env:TOKEN"}, skill.ExecOptions{Env: map[string]string{"TOKEN": "t"}})
	if c.Year != time.Now().Year() || c.Random == a.Random || c.Env["TOKEN"] != "t" {
		t.Errorf("with capabilities: %+v", c)
	}
}

// The happy paths: the same transformation of a real OpenAPI document in
// both engines, checked against the document itself.
func TestHappyPathBothEngines(t *testing.T) {
	e := skilltest.Executor(t, skill.Limits{})
	js, err := os.ReadFile(filepath.Join(skilltest.SkillsDir(), "openapi-ops.js"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{"oai-v3.0-uspto.json", "oai-v2.0-json-petstore.json"} {
		input, err := os.ReadFile(filepath.Join(skilltest.SkillsDir(), doc))
		if err != nil {
			t.Fatal(err)
		}
		want := operations(t, input)
		for _, s := range []*skill.Skill{wasmSkill(t, "openapi-ops"), jsSkill("openapi-ops", string(js))} {
			res := run(t, e, s, string(input), skill.StatusOK, skill.ExecOptions{})
			var got struct {
				Count      int
				Operations []struct{ Method, Path string }
			}
			if err := json.Unmarshal(res.Output, &got); err != nil {
				t.Fatalf("%s: %v", s.Engine, err)
			}
			if got.Count != len(want) || len(got.Operations) != len(want) {
				t.Fatalf("%s on %s: %d operations, want %d", s.Engine, doc, got.Count, len(want))
			}
			for _, op := range got.Operations {
				if !want[op.Method+" "+op.Path] {
					t.Errorf("%s on %s: operation %s %s is not in the document", s.Engine, doc, op.Method, op.Path)
				}
			}
			if !strings.Contains(res.Stderr, "operations") {
				t.Errorf("%s: the skill's log %q was not captured", s.Engine, res.Stderr)
			}
		}
	}
}

func operations(t *testing.T, doc []byte) map[string]bool {
	var d struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	for p, item := range d.Paths {
		for m := range item {
			switch m {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
				ops[strings.ToUpper(m)+" "+p] = true
			}
		}
	}
	return ops
}

// Composite skills run steps in parallel on one executor and one *Skill.
func TestConcurrentRuns(t *testing.T) {
	e := skilltest.Executor(t, skill.Limits{})
	wasm, err := skill.LoadFile(filepath.Join(skilltest.SkillsDir(), "echo.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	wasm.SHA256 = "" // not known: computed per run, never written to the shared skill
	js := jsSkill("echo", `return input`)
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			s := wasm
			if i%2 == 1 {
				s = js
			}
			in := fmt.Sprintf(`{"i":%d}`, i)
			res, err := e.Run(context.Background(), s, skill.ExecOptions{Input: []byte(in)})
			switch {
			case err != nil:
				errs <- err
			case res.Status != skill.StatusOK || string(res.Output) != in:
				errs <- fmt.Errorf("%s run %d: %s %s %s", s.Engine, i, res.Status, res.Output, res.Error)
			default:
				errs <- nil
			}
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// Issue 22, finding 7: code beyond the cap is refused before anything runs,
// and the timeout bounds the whole call, sending and parsing the code included.
func TestJSCodeSizeAndWholeCallTimeout(t *testing.T) {
	e, err := skill.NewExecutor(skill.ExecutorOptions{CacheDir: "-", MaxCodeBytes: 4 << 20,
		JSChild: skilltest.Executor(t, skill.Limits{}).JSChild()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// ~3.5 MB of array literal: far more to parse than 100 ms allows on any machine.
	big := "var data = [" + strings.Repeat("1234567,", 440_000) + "0];\nfunction main() { return data.length }"
	res, err := e.Run(context.Background(), jsSkill("big", big), skill.ExecOptions{Input: []byte(`{}`), Limits: skill.Limits{Timeout: 100 * time.Millisecond}})
	if err != nil || res.Status != skill.StatusTimeout {
		t.Fatalf("a script that cannot even be parsed within its timeout: status %s (%s), %v", res.Status, res.Error, err)
	}
	huge := big + strings.Repeat(" ", 1<<20)
	res, err = e.Run(context.Background(), jsSkill("huge", huge), skill.ExecOptions{Input: []byte(`{}`)})
	var ue *skill.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "more than the limit of 4 MiB (skill.max-code-size)") || res.Status != "" {
		t.Fatalf("a skill over the code size cap: %v (status %q)", err, res.Status)
	}
}
