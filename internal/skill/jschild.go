package skill

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"

	"github.com/helixhq/helix/internal/size"
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
	TimeoutMS   int64             `json:"timeout_ms"` // time left of the call when the request was sent
	LimitMS     int64             `json:"limit_ms"`   // the timeout as the user set it, for messages
	MemoryBytes int64             `json:"memory_bytes"`
	OutputBytes int64             `json:"output_bytes"`
	CPUMS       int64             `json:"cpu_ms"` // CPU time the child may use, 0: no cap
	Clock       bool              `json:"clock"`
	Random      bool              `json:"random"`
	Env         map[string]string `json:"env"`

	// net is the network channel helix passed the child process (fds 3
	// and 4), opened by RunChild alone: a script run in-process (tests) has
	// none, and must never wrap whatever that process's fds 3 and 4 are
	// (their finalizer would close another file's descriptor).
	net *netChannel
}

// childResponse is the one JSON line the child writes on stdout.
type childResponse struct {
	Status Status          `json:"status"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
	Log    string          `json:"log,omitempty"`
	// PeakRSS is the child's own peak resident set (VmHWM), 0 if unknown.
	// The parent's rusage cannot tell it: a child started by vfork (as Go
	// starts processes) shares its parent's memory until exec, and Linux
	// carries that high-water mark into the child's ru_maxrss.
	PeakRSS int64 `json:"peak_rss_bytes,omitempty"`
}

// Exit codes of a child that its own watchdogs stop.
const (
	exitMemoryLimit = 3
	exitTimeout     = 4
	exitCPULimit    = 5
)

// The child's ends of the network channel (exec.Cmd.ExtraFiles): it writes
// request documents on one and reads response documents on the other, one
// JSON document a line. helix makes the requests (net.go), never the child.
const (
	childNetOut = 3
	childNetIn  = 4
)

// maxErrorText bounds the error text of a failed script (a thrown 20 MB
// string is 8 KiB and a note of what was dropped).
const maxErrorText = 8 << 10

// RunChild runs the JavaScript skill described on in and writes its outcome
// on out. It returns the process exit code; it may also end the process
// itself when the skill exceeds its memory limit or its time.
//
// The child enforces its own deadline, whatever its parent does: the clock
// starts when the request's first byte arrives (nothing of the skill can run
// before), the script is interrupted at the timeout, and the process ends
// half the parent's grace period later if the script is inside a native call
// that cannot be interrupted. On Linux the child also dies with its parent
// (PR_SET_PDEATHSIG, set by startJS); a child still waiting for its request
// ends when the parent's end of stdin closes.
func RunChild(in io.Reader, out io.Writer) int {
	fr := &firstByteReader{r: in}
	var req childRequest
	if err := json.NewDecoder(fr).Decode(&req); err != nil {
		fmt.Fprintf(os.Stderr, "helix skill %s: read request: %v\n", ChildCommand, err)
		return 2
	}
	deadline := fr.first.Add(time.Duration(req.TimeoutMS) * time.Millisecond)
	req.net = openNetChannel()
	var mu sync.Mutex // one response only, from the script or a watchdog
	respond := func(r childResponse) {
		mu.Lock()
		r.PeakRSS = procStatusBytes("VmHWM:")
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
	if req.CPUMS > 0 {
		cpu := time.Duration(req.CPUMS) * time.Millisecond
		limitCPU(cpu, func() {
			respond(cpuResponse(cpu, log))
			os.Exit(exitCPULimit)
		})
	}
	time.AfterFunc(time.Until(deadline)+childGrace/2, func() {
		respond(timeoutResponse(&req, log))
		os.Exit(exitTimeout)
	})
	respond(runScript(&req, deadline, log))
	return 0
}

// firstByteReader notes when the first byte arrived.
type firstByteReader struct {
	r     io.Reader
	first time.Time
}

func (f *firstByteReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n > 0 && f.first.IsZero() {
		f.first = time.Now()
	}
	return n, err
}

func cpuResponse(limit time.Duration, log *cappedBuffer) childResponse {
	return childResponse{Status: StatusCPULimit, Log: log.String(), Error: cpuLimitText(limit)}
}

func cpuLimitText(limit time.Duration) string {
	return fmt.Sprintf("the skill used more than the CPU-time limit of %s and was stopped (skill.cpu-limit)", limit)
}

func timeoutResponse(req *childRequest, log *cappedBuffer) childResponse {
	return childResponse{Status: StatusTimeout, Log: log.String(),
		Error: fmt.Sprintf("the skill ran longer than the timeout of %s and was stopped", time.Duration(cmp.Or(req.LimitMS, req.TimeoutMS))*time.Millisecond)}
}

// limitMemory caps the address space (a backstop against one huge
// allocation) and watches the heap: past the limit it collects garbage, and
// if the heap is still too large the skill has exceeded its memory.
func limitMemory(limit int64, exceeded func()) {
	if vm := procStatusBytes("VmSize:"); vm > 0 && !raceEnabled {
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

// procStatusBytes is a size field of /proc/self/status (VmSize: the
// virtual memory size, VmHWM: the peak resident set), 0 if unknown.
func procStatusBytes(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
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

// runScript runs the script until deadline: its top-level code, main, and
// the serialisation of the result (getters and toJSON are the skill's code
// too) are all interrupted there. Nothing the script does reaches the user
// as a Go panic: a JavaScript value goja throws while helix converts it is
// classified like any other failure.
func runScript(req *childRequest, deadline time.Time, log *cappedBuffer) (resp childResponse) {
	vm := goja.New()
	vm.SetMaxCallStackSize(maxCallDepth)
	timer := time.AfterFunc(time.Until(deadline), func() { vm.Interrupt(interruptTimeout{}) })
	defer timer.Stop()
	defer func() {
		if r := recover(); r != nil {
			resp = jsFailure(panicError(r), req, log)
		}
	}()
	fail := func(err error) childResponse {
		if isTimeout(err) {
			// the deadline came while helix set up the sandbox or read the
			// input (a large request can take most of a short timeout)
			return timeoutResponse(req, log)
		}
		return childResponse{Status: StatusError, Error: capText(err.Error()), Log: log.String()}
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
	v, err := main(goja.Undefined(), input)
	if err != nil {
		return jsFailure(err, req, log)
	}
	// Export would call the result's getters: look at the type first.
	if o, ok := v.(*goja.Object); ok && o.ExportType() == reflect.TypeOf((*goja.Promise)(nil)) {
		if p, ok := o.Export().(*goja.Promise); ok {
			switch p.State() {
			case goja.PromiseStateFulfilled:
				v = p.Result()
			case goja.PromiseStateRejected:
				return jsFailure(&rejected{p.Result()}, req, log)
			default:
				return fail(errors.New("the skill's promise never settled: skills have no timers or I/O to wait for"))
			}
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

// rejected is a promise's rejection value; its text is the script's (toString).
type rejected struct{ v goja.Value }

func (r *rejected) Error() string { return "the skill's promise was rejected: " + r.v.String() }

// panicError turns what goja panicked with into an error.
func panicError(r any) error {
	if err, ok := r.(error); ok {
		return err
	}
	return fmt.Errorf("%v", r)
}

func jsFailure(err error, req *childRequest, log *cappedBuffer) childResponse {
	if isTimeout(err) {
		return timeoutResponse(req, log)
	}
	msg, terr := errorText(err)
	if terr != nil {
		if isTimeout(terr) {
			return timeoutResponse(req, log)
		}
		msg = "the skill threw a value that cannot be shown: converting it to a string failed"
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		msg = fmt.Sprintf("stack overflow: the skill nests calls deeper than %d:%s", maxCallDepth, msg)
	}
	return childResponse{Status: StatusError, Error: msg, Log: log.String()}
}

func isTimeout(err error) bool {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		_, ok := ie.Value().(interruptTimeout)
		return ok
	}
	return false
}

// errorText is err's message, capped. Rendering a thrown value runs its
// toString, which is the skill's code: it may throw, or loop until the
// deadline's interrupt, and either arrives here as a panic.
func errorText(err error) (msg string, terr error) {
	defer func() {
		if r := recover(); r != nil {
			terr = panicError(r)
		}
	}()
	return capText(err.Error()), nil
}

func capText(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	cut := maxErrorText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("[… %d more bytes dropped]", len(s)-cut)
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
	if err := installFetch(vm, req.net); err != nil {
		return err
	}
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

// netChannel is the child's side of the network channel.
type netChannel struct {
	out *os.File
	in  *bufio.Reader
}

// openNetChannel opens the descriptors helix passed, nil if there are none
// (a child started by hand).
func openNetChannel() *netChannel {
	out, in := os.NewFile(childNetOut, "net-out"), os.NewFile(childNetIn, "net-in")
	if out == nil || in == nil {
		return nil
	}
	if _, err := out.Stat(); err != nil {
		return nil
	}
	return &netChannel{out: out, in: bufio.NewReaderSize(in, 64<<10)}
}

// roundTrip sends one request document and waits for its response. It
// cannot be interrupted, but helix answers within the request timeout,
// itself within the run's deadline, and the child's own watchdog ends it.
func (c *netChannel) roundTrip(doc string) (string, error) {
	if c == nil {
		return "", errors.New("this JavaScript runner has no network channel")
	}
	if _, err := c.out.Write([]byte(doc + "\n")); err != nil {
		return "", fmt.Errorf("send the request to helix: %w", err)
	}
	line, err := c.in.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("read helix's answer: %w", err)
	}
	return line, nil
}

// fetchJS is the skill's fetch: a subset of the WHATWG API over helix's
// host function. The request is made synchronously and the promise is
// already settled when fetch returns: `await fetch(url)` in an async main,
// or fetch(url).then(...), both work without an event loop.
const fetchJS = `(function (raw) {
	"use strict";
	var parse = JSON.parse, stringify = JSON.stringify, P = Promise;
	function Headers(h) { this._h = h || {}; }
	Headers.prototype.get = function (n) { var v = this._h[String(n).toLowerCase()]; return v === undefined ? null : v; };
	Headers.prototype.has = function (n) { return Object.prototype.hasOwnProperty.call(this._h, String(n).toLowerCase()); };
	Headers.prototype.forEach = function (f) { for (var k in this._h) f(this._h[k], k, this); };
	return function fetch(url, init) {
		var req, r;
		try {
			init = init || {};
			var headers = {};
			var h = init.headers || {};
			if (h instanceof Headers) h = h._h;
			if (Array.isArray(h)) { for (var i = 0; i < h.length; i++) headers[String(h[i][0])] = String(h[i][1]); }
			else { for (var k in h) headers[k] = String(h[k]); }
			req = { url: String(url), method: init.method === undefined ? "GET" : String(init.method), headers: headers };
			if (init.body !== undefined && init.body !== null) req.body = typeof init.body === "string" ? init.body : stringify(init.body);
			r = parse(raw(stringify(req)));
		} catch (e) {
			return P.reject(e);
		}
		if (r.error) {
			return P.reject(new TypeError("fetch " + req.method + " " + (r.origin || "(bad request)") + ": " + r.error));
		}
		var body = r.body || "";
		return P.resolve({
			status: r.status, statusText: r.status_text || "", ok: r.status >= 200 && r.status < 300,
			url: r.url, redirected: r.url !== req.url, headers: new Headers(r.headers),
			text: function () { return P.resolve(body); },
			json: function () { try { return P.resolve(parse(body)); } catch (e) { return P.reject(e); } }
		});
	};
})`

// installFetch defines fetch. The host function it wraps stays in the
// closure: a skill sees only fetch.
func installFetch(vm *goja.Runtime, ch *netChannel) error {
	mk, err := vm.RunScript("fetch", fetchJS)
	if err != nil {
		return err
	}
	ctor, ok := goja.AssertFunction(mk)
	if !ok {
		return errors.New("fetch: not a function")
	}
	raw := func(call goja.FunctionCall) goja.Value {
		doc := call.Argument(0).String()
		line, err := ch.roundTrip(doc)
		if err != nil {
			panic(vm.NewTypeError(err.Error()))
		}
		return vm.ToValue(line)
	}
	fetch, err := ctor(goja.Undefined(), vm.ToValue(raw))
	if err != nil {
		return err
	}
	return vm.GlobalObject().Set("fetch", fetch)
}
