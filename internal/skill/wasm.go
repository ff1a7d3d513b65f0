package skill

import (
	"github.com/helixhq/helix/internal/size"

	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

const wasmPage = 64 << 10

// GuestDataDir is where an fs:read directory appears inside a wasm skill.
const GuestDataDir = "/data"

// CheckWasm compiles a module and checks it is a WASI command (exports _start).
// The module and its compiled code stay in the caches, so the first run is warm.
func (e *Executor) CheckWasm(ctx context.Context, code []byte) error {
	rt, err := e.wasmRuntime(e.limits.MemoryBytes)
	if err != nil {
		return err
	}
	sha := Sum(code)
	if _, err = rt.compile(ctx, code, sha); err != nil {
		return err
	}
	e.keepCode(sha, code)
	return nil
}

// wasmRuntime is one wazero runtime (the memory limit is per runtime) with
// WASI and the modules it has compiled. Instances are not shared: each
// execution instantiates its module afresh.
type wasmRuntime struct {
	r       wazero.Runtime
	mu      sync.Mutex
	modules map[string]wazero.CompiledModule // by sha256 of the code
}

func (e *Executor) wasmRuntime(memoryBytes int64) (*wasmRuntime, error) {
	pages := uint32(max(memoryBytes/wasmPage, 1))
	e.runtimesMu.Lock()
	defer e.runtimesMu.Unlock()
	if rt, ok := e.runtimes[pages]; ok {
		return rt, nil
	}
	ctx := context.Background()
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(pages).
		WithCompilationCache(e.cache)
	r := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
		_ = r.Close(ctx)
		return nil, fmt.Errorf("instantiate WASI: %w", err)
	}
	if err := instantiateHostNet(ctx, r); err != nil {
		_ = r.Close(ctx)
		return nil, fmt.Errorf("instantiate the helix host module: %w", err)
	}
	rt := &wasmRuntime{r: r, modules: map[string]wazero.CompiledModule{}}
	e.runtimes[pages] = rt
	return rt, nil
}

// compile returns the compiled module, from memory, the disk cache, or by compiling it.
func (rt *wasmRuntime) compile(ctx context.Context, code []byte, key string) (wazero.CompiledModule, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if cm, ok := rt.modules[key]; ok {
		return cm, nil
	}
	cm, err := rt.r.CompileModule(ctx, code)
	if err != nil {
		return nil, fmt.Errorf("invalid WebAssembly module: %w", err)
	}
	if err := checkCommand(cm); err != nil {
		_ = cm.Close(ctx)
		return nil, err
	}
	rt.modules[key] = cm
	return cm, nil
}

func checkCommand(cm wazero.CompiledModule) error {
	if _, ok := cm.ExportedFunctions()["_start"]; !ok {
		return errors.New("the module exports no _start function: build a WASI command (e.g. GOOS=wasip1 GOARCH=wasm go build), not a library")
	}
	return nil
}

func (e *Executor) runWasm(ctx context.Context, s *Skill, sha string, o ExecOptions, caps Capabilities, lim Limits, netS *netSession) runOutcome {
	rt, err := e.wasmRuntime(lim.MemoryBytes)
	if err != nil {
		return runOutcome{status: StatusError, err: err.Error()}
	}
	// Compiling is helix's work, not the skill's: it is outside the timeout
	// (and once per module thanks to the caches).
	cm, err := rt.compile(ctx, s.Code, sha)
	if err != nil {
		return runOutcome{status: StatusError, err: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	ctx = context.WithValue(ctx, wasmNetKey{}, &wasmNet{s: netS})

	stdout := &cappedBuffer{max: lim.OutputBytes, onOverrun: cancel}
	stderr := &cappedBuffer{max: StderrCap}
	// No WithSysWalltime/WithSysNanotime/WithRandSource by default: wazero then
	// gives a fixed clock and a deterministic random source.
	mcfg := wazero.NewModuleConfig().
		WithName("").
		WithArgs(s.Name).
		WithStdin(bytes.NewReader(o.Input)).
		WithStdout(stdout).
		WithStderr(stderr).
		WithStartFunctions() // _start is called below, so the memory can be inspected after a crash
	if caps.Clock {
		mcfg = mcfg.WithSysWalltime().WithSysNanotime().WithSysNanosleep()
	} else {
		// wazero's own fake wall clock starts at 2022-01-01; helix's skills
		// (wasm and js alike) see 1970-01-01T00:00:00Z. The monotonic clock
		// stays wazero's fake (+1 ms per reading) and sleeping returns at once.
		mcfg = mcfg.WithWalltime(func() (int64, int32) { return 0, 0 }, sys.ClockResolution(1))
	}
	if caps.Random {
		mcfg = mcfg.WithRandSource(rand.Reader)
	}
	for k, v := range o.Env {
		mcfg = mcfg.WithEnv(k, v)
	}
	if caps.FSRead != "" {
		// wazero's own directory mounts follow ../ and symlinks out of the
		// directory; an os.Root cannot be escaped, and fs.FS is read-only.
		root, err := os.OpenRoot(caps.FSRead)
		if err != nil {
			return runOutcome{status: StatusError, err: "granted directory: " + err.Error()}
		}
		defer root.Close()
		mcfg = mcfg.WithFSConfig(wazero.NewFSConfig().WithFSMount(root.FS(), GuestDataDir))
	}

	mod, err := rt.r.InstantiateModule(experimental.WithMemoryAllocator(ctx, newMemoryAllocator()), cm, mcfg)
	if err != nil {
		return runOutcome{status: StatusError, err: "instantiate: " + err.Error(), stderr: stderr.String()}
	}
	defer mod.Close(context.WithoutCancel(ctx))
	stackOver, stackPeak, stopWatch := watchStack(lim.MemoryBytes, cancel)
	cpu, cpuOver, callErr := callMeasured(ctx, mod.ExportedFunction("_start"), lim.CPU, cancel)
	stopWatch()
	out := runOutcome{stdout: stdout.Bytes(), stderr: stderr.String(), cpuMS: float64(cpu.Microseconds()) / 1000}
	// The instance's memory: its linear memory (which only grows, so its
	// size at the end is its peak) and the most the call stack took.
	mem := mod.ExportedMemory("memory")
	if mem != nil {
		out.peakRSS = int64(mem.Size())
	}
	out.peakRSS += max(stackPeak.Load(), 0)
	// wazero's own ceiling (400 MB), when the limit is higher, says "stack overflow".
	switch {
	case cpuOver:
		out.status, out.err = StatusCPULimit, cpuLimitText(lim.CPU)
	case stackOver.Load() || callErr != nil && strings.Contains(callErr.Error(), "stack overflow"):
		out.status, out.err = StatusMemoryLimit, fmt.Sprintf("the skill's call stack needed more than the memory limit of %s (runaway recursion?)", size.Format(lim.MemoryBytes))
	default:
		out.status, out.err = classifyWasm(ctx, callErr, stdout, stderr, mem, lim)
	}
	return out
}

// callMeasured calls fn on a goroutine locked to its thread, measuring the
// thread's CPU time (the guest runs on the calling goroutine) and cancelling
// the call past limit (0: no cap); cpuOver says it was cancelled for that.
func callMeasured(ctx context.Context, fn api.Function, limit time.Duration, cancel func()) (cpu time.Duration, cpuOver bool, callErr error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	clock := threadCPUClock()
	start := clock()
	var over atomic.Bool
	done := make(chan struct{})
	if limit > 0 {
		go func() {
			t := time.NewTicker(10 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
				}
				if clock()-start >= limit {
					over.Store(true)
					cancel()
					return
				}
			}
		}()
	}
	_, callErr = fn.Call(ctx)
	cpu = clock() - start
	close(done)
	return cpu, over.Load() || limit > 0 && cpu >= limit && callErr != nil, callErr
}

// watchStack bounds the guest's call stack by the memory limit. wazero keeps
// wasm frames on a stack of its own, a Go slice it doubles up to 400 MB,
// outside the linear memory that WithMemoryLimitPages caps: a recursion
// bomb reached 190 MB under a 64 MiB cap. The linear memory is an mmap
// (memory_mmap.go), not Go heap, so while the module runs the heap grows by
// the stack and little else (output is capped). Past the limit, after a
// collection, the run is cancelled and reported as memory_limit. Checked
// every 2 ms: between checks the stack can at most double once more.
func watchStack(limit int64, cancel func()) (*atomic.Bool, *atomic.Int64, func()) {
	var over atomic.Bool
	var peak atomic.Int64
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	baseline := heap()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			grown := heap() - baseline
			if grown > peak.Load() {
				peak.Store(grown)
			}
			if grown <= limit {
				continue
			}
			runtime.GC()
			if heap()-baseline > limit {
				over.Store(true)
				cancel()
				return
			}
		}
	}()
	return &over, &peak, func() { close(done) }
}

func classifyWasm(ctx context.Context, callErr error, stdout, stderr *cappedBuffer, mem api.Memory, lim Limits) (Status, string) {
	if stdout.overrun() {
		return StatusOutputLimit, fmt.Sprintf("the skill wrote more than the output limit of %s", size.Format(lim.OutputBytes))
	}
	var exit *sys.ExitError
	code := uint32(0)
	if errors.As(callErr, &exit) {
		code = exit.ExitCode()
		switch code {
		case sys.ExitCodeDeadlineExceeded:
			return StatusTimeout, fmt.Sprintf("the skill ran longer than the timeout of %s and was stopped", lim.Timeout)
		case sys.ExitCodeContextCanceled:
			return StatusError, "cancelled"
		}
	} else if callErr != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return StatusTimeout, fmt.Sprintf("the skill ran longer than the timeout of %s and was stopped", lim.Timeout)
		}
		if nearMemoryLimit(mem, lim) {
			return StatusMemoryLimit, fmt.Sprintf("the skill needed more than the memory limit of %s: %v", size.Format(lim.MemoryBytes), callErr)
		}
		return StatusError, "the skill crashed: " + firstLine(callErr.Error())
	}
	if code == 0 {
		return StatusOK, ""
	}
	log := stderr.String()
	// A guest's allocator reports a refused memory.grow in its own words
	// (Go: "out of memory"); the memory being at the cap confirms it.
	if strings.Contains(log, "out of memory") || nearMemoryLimit(mem, lim) {
		return StatusMemoryLimit, fmt.Sprintf("the skill needed more than the memory limit of %s (exit code %d)", size.Format(lim.MemoryBytes), code)
	}
	msg := fmt.Sprintf("the skill exited with code %d", code)
	if l := lastLines(log, 3); l != "" {
		msg += ": " + l
	}
	return StatusError, msg
}

// nearMemoryLimit reports whether the guest's memory is within 8 MiB of the
// cap: the runtime of a garbage-collected guest grows in chunks of a few MiB.
func nearMemoryLimit(mem api.Memory, lim Limits) bool {
	if mem == nil {
		return false
	}
	return int64(mem.Size())+8<<20 >= lim.MemoryBytes
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	// a Go panic's useful part is its first line, the rest is a goroutine trace
	for _, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return l
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
