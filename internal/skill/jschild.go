package skill

import (
	"github.com/helixhq/helix/internal/size"

	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
)

// ChildCommand is the hidden `helix skill` subcommand that runs one
// JavaScript skill: goja has no memory limit, and one native call
// ('x'.repeat(2**40)) cannot be interrupted, so a memory bomb must kill a
// child process rather than helix.
const ChildCommand = "__run-js"

// IsChild reports whether args (os.Args) start the child: `helix skill
// __run-js`, which main hands to RunChild before building any command.
func IsChild(args []string) bool {
	return len(args) == 3 && args[1] == "skill" && args[2] == ChildCommand
}

// childRequest is what the parent writes on the child's stdin.
type childRequest struct {
	Code        string            `json:"code"`
	Input       json.RawMessage   `json:"input"`
	TimeoutMS   int64             `json:"timeout_ms"`
	MemoryBytes int64             `json:"memory_bytes"`
	OutputBytes int64             `json:"output_bytes"`
	Clock       bool              `json:"clock"`
	Random      bool              `json:"random"`
	Env         map[string]string `json:"env"`
}

// childResponse is the one JSON line the child writes on stdout.
type childResponse struct {
	Status Status          `json:"status"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
	Log    string          `json:"log,omitempty"`
}

// exitMemoryLimit is the child's exit code when its watchdog stops it.
const exitMemoryLimit = 3

// RunChild runs the JavaScript skill described on in and writes its outcome
// on out. It returns the process exit code; it may also end the process
// itself when the skill exceeds its memory limit.
func RunChild(in io.Reader, out io.Writer) int {
	var req childRequest
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		fmt.Fprintf(os.Stderr, "helix skill %s: read request: %v\n", ChildCommand, err)
		return 2
	}
	var mu sync.Mutex // one response only, from the script or the watchdog
	respond := func(r childResponse) {
		mu.Lock()
		b, _ := json.Marshal(r)
		_, _ = out.Write(append(b, '\n'))
	}
	log := &cappedBuffer{max: StderrCap}
	limitMemory(req.MemoryBytes, func() {
		respond(childResponse{Status: StatusMemoryLimit, Log: log.String(),
			Error: fmt.Sprintf("the skill needed more than the memory limit of %s", size.Format(req.MemoryBytes))})
		// The script may be inside a native call that nothing can interrupt:
		// the only way to stop it is to end the process, here.
		os.Exit(exitMemoryLimit)
	})
	respond(runScript(&req, log))
	return 0
}

// limitMemory caps the address space (a backstop against one huge
// allocation) and watches the heap: past the limit it collects garbage, and
// if the heap is still too large the skill has exceeded its memory.
func limitMemory(limit int64, exceeded func()) {
	if vm := vmSize(); vm > 0 && !raceEnabled {
		limitAddressSpace(uint64(vm + 2*limit + 512<<20))
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	baseline := heap()
	go func() {
		for range time.Tick(2 * time.Millisecond) {
			if heap()-baseline <= limit {
				continue
			}
			runtime.GC()
			if heap()-baseline > limit {
				exceeded()
			}
		}
	}()
}

// vmSize is this process's virtual memory size from /proc, 0 if unknown.
func vmSize() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

type interruptTimeout struct{}

const maxCallDepth = 5000

func runScript(req *childRequest, log *cappedBuffer) childResponse {
	vm := goja.New()
	vm.SetMaxCallStackSize(maxCallDepth)
	fail := func(err error) childResponse {
		return childResponse{Status: StatusError, Error: err.Error(), Log: log.String()}
	}
	if err := sandbox(vm, req, log); err != nil {
		return fail(err)
	}
	main, err := loadMain(vm, req.Code)
	if err != nil {
		return jsFailure(err, req, log)
	}
	jsonObj := vm.Get("JSON").ToObject(vm)
	parse, _ := goja.AssertFunction(jsonObj.Get("parse"))
	stringify, _ := goja.AssertFunction(jsonObj.Get("stringify"))
	input, err := parse(goja.Undefined(), vm.ToValue(string(req.Input)))
	if err != nil {
		return fail(fmt.Errorf("input: %w", err))
	}
	timer := time.AfterFunc(time.Duration(req.TimeoutMS)*time.Millisecond, func() { vm.Interrupt(interruptTimeout{}) })
	defer timer.Stop()
	v, err := main(goja.Undefined(), input)
	if err != nil {
		return jsFailure(err, req, log)
	}
	if p, ok := v.Export().(*goja.Promise); ok {
		switch p.State() {
		case goja.PromiseStateFulfilled:
			v = p.Result()
		case goja.PromiseStateRejected:
			return fail(fmt.Errorf("the skill's promise was rejected: %s", p.Result()))
		default:
			return fail(errors.New("the skill's promise never settled: skills have no timers or I/O to wait for"))
		}
	}
	s, err := stringify(goja.Undefined(), v)
	if err != nil {
		return jsFailure(fmt.Errorf("the skill's result is not JSON-serializable: %w", err), req, log)
	}
	output := "null"
	if !goja.IsUndefined(s) {
		output = s.String()
	}
	if int64(len(output)) > req.OutputBytes {
		return childResponse{Status: StatusOutputLimit, Log: log.String(),
			Error: fmt.Sprintf("the skill's result (%d bytes) is larger than the output limit of %s", len(output), size.Format(req.OutputBytes))}
	}
	return childResponse{Status: StatusOK, Output: json.RawMessage(output), Log: log.String()}
}

func jsFailure(err error, req *childRequest, log *cappedBuffer) childResponse {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if _, ok := ie.Value().(interruptTimeout); ok {
			return childResponse{Status: StatusTimeout, Log: log.String(),
				Error: fmt.Sprintf("the skill ran longer than the timeout of %s and was stopped", time.Duration(req.TimeoutMS)*time.Millisecond)}
		}
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		err = fmt.Errorf("stack overflow: the skill nests calls deeper than %d:%s", maxCallDepth, err)
	}
	return childResponse{Status: StatusError, Error: err.Error(), Log: log.String()}
}

// sandbox removes every way to compile code from a string and installs the
// few globals a skill gets: console (to the log), env (declared values), and
// a fixed clock and seeded Math.random unless granted the real ones.
func sandbox(vm *goja.Runtime, req *childRequest, log *cappedBuffer) error {
	// A script function, so that the error names no Go internals.
	refuse, err := vm.RunScript("sandbox", `(function () { throw new TypeError("code generation from strings is disabled in skills") })`)
	if err != nil {
		return err
	}
	// Function, GeneratorFunction, AsyncFunction and AsyncGeneratorFunction are
	// all reachable through their prototypes' constructor property.
	for _, src := range []string{"(function(){})", "(function*(){})", "(async function(){})", "(async function*(){})"} {
		fn, err := vm.RunString(src)
		if err != nil {
			continue // a syntax goja does not have: nothing to remove
		}
		proto := fn.ToObject(vm).Prototype()
		if err := proto.DefineDataProperty("constructor", refuse, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	g := vm.GlobalObject()
	for _, name := range []string{"eval", "Function"} {
		if err := g.Delete(name); err != nil {
			return err
		}
	}
	console := vm.NewObject()
	logf := func(call goja.FunctionCall) goja.Value {
		parts := make([]string, len(call.Arguments))
		for i, a := range call.Arguments {
			parts[i] = a.String()
		}
		_, _ = log.Write([]byte(strings.Join(parts, " ") + "\n"))
		return goja.Undefined()
	}
	for _, m := range []string{"log", "info", "warn", "error", "debug"} {
		_ = console.Set(m, logf)
	}
	_ = g.Set("console", console)
	env := vm.NewObject()
	for k, v := range req.Env {
		_ = env.Set(k, v)
	}
	_ = g.Set("env", env)
	if !req.Clock {
		vm.SetTimeSource(func() time.Time { return time.Unix(0, 0).UTC() })
	}
	if !req.Random {
		vm.SetRandSource(rand.New(rand.NewPCG(1, 2)).Float64)
	}
	return nil
}

// loadMain returns the skill's entry point: main from a script that defines
// it, or else the code as the body of function(input).
func loadMain(vm *goja.Runtime, code string) (goja.Callable, error) {
	if prog, err := parser.ParseFile(nil, "skill.js", code, 0); err == nil && declaresMain(prog) {
		if _, err := vm.RunScript("skill.js", code); err != nil {
			return nil, err
		}
		v, err := vm.RunString("main") // also finds a const or let binding
		if err != nil {
			return nil, err
		}
		main, ok := goja.AssertFunction(v)
		if !ok {
			return nil, errors.New("main is not a function")
		}
		return main, nil
	}
	// Kept on the first line so that error positions match the skill's lines.
	fn, err := vm.RunScript("skill.js", "(function (input) {"+code+"\n})")
	if err != nil {
		return nil, err
	}
	main, _ := goja.AssertFunction(fn)
	return main, nil
}

func declaresMain(prog *ast.Program) bool {
	for _, st := range prog.Body {
		switch d := st.(type) {
		case *ast.FunctionDeclaration:
			if d.Function.Name != nil && d.Function.Name.Name == "main" {
				return true
			}
		case *ast.VariableStatement:
			for _, b := range d.List {
				if id, ok := b.Target.(*ast.Identifier); ok && id.Name == "main" {
					return true
				}
			}
		case *ast.LexicalDeclaration:
			for _, b := range d.List {
				if id, ok := b.Target.(*ast.Identifier); ok && id.Name == "main" {
					return true
				}
			}
		}
	}
	return false
}

// CheckJS reports a syntax error in a script, in either form (a script
// defining main, or a function body).
func CheckJS(code []byte) error {
	if prog, err := parser.ParseFile(nil, "skill.js", code, 0); err == nil && declaresMain(prog) {
		return nil
	}
	_, err := parser.ParseFile(nil, "skill.js", "(function (input) {"+string(code)+"\n})", 0)
	return err
}
