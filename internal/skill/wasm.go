package skill

import (
	"github.com/helixhq/helix/internal/size"

	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

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

func (e *Executor) runWasm(ctx context.Context, s *Skill, sha string, o ExecOptions, caps Capabilities, lim Limits) runOutcome {
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
	_, callErr := mod.ExportedFunction("_start").Call(ctx)
	out := runOutcome{stdout: stdout.Bytes(), stderr: stderr.String()}
	out.status, out.err = classifyWasm(ctx, callErr, stdout, stderr, mod.ExportedMemory("memory"), lim)
	return out
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
