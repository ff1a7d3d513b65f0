package skill

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

const wasmPage = 64 << 10

// GuestDataDir is where an fs:read directory appears inside a wasm skill.
const GuestDataDir = "/data"

// CheckWasm compiles a module and checks it is a WASI command (exports _start).
func (e *Executor) CheckWasm(ctx context.Context, code []byte) error {
	r := wazero.NewRuntimeWithConfig(ctx, e.runtimeConfig(DefaultMemoryBytes))
	defer r.Close(ctx)
	cm, err := r.CompileModule(ctx, code)
	if err != nil {
		return fmt.Errorf("invalid WebAssembly module: %w", err)
	}
	return checkCommand(cm)
}

func checkCommand(cm wazero.CompiledModule) error {
	if _, ok := cm.ExportedFunctions()["_start"]; !ok {
		return errors.New("the module exports no _start function: build a WASI command (e.g. GOOS=wasip1 GOARCH=wasm go build), not a library")
	}
	return nil
}

// runtimeConfig is the same for checking and running, so that the module
// compiled by CheckWasm (at `skill add`) is the one found in the cache.
func (e *Executor) runtimeConfig(memoryBytes int64) wazero.RuntimeConfig {
	return wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32(max(memoryBytes/wasmPage, 1))).
		WithCompilationCache(e.cache)
}

func (e *Executor) runWasm(ctx context.Context, s *Skill, o ExecOptions, caps Capabilities, lim Limits) runOutcome {
	r := wazero.NewRuntimeWithConfig(ctx, e.runtimeConfig(lim.MemoryBytes))
	defer r.Close(context.WithoutCancel(ctx))
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
		return runOutcome{status: StatusError, err: "instantiate WASI: " + err.Error()}
	}
	// Compiling is helix's work, not the skill's: it is outside the timeout
	// (and once per module thanks to the cache).
	cm, err := r.CompileModule(ctx, s.Code)
	if err != nil {
		return runOutcome{status: StatusError, err: "invalid WebAssembly module: " + err.Error()}
	}
	if err := checkCommand(cm); err != nil {
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

	mod, err := r.InstantiateModule(ctx, cm, mcfg)
	if err != nil {
		return runOutcome{status: StatusError, err: "instantiate: " + err.Error(), stderr: stderr.String()}
	}
	_, callErr := mod.ExportedFunction("_start").Call(ctx)
	out := runOutcome{stdout: stdout.Bytes(), stderr: stderr.String()}
	out.status, out.err = classifyWasm(ctx, callErr, stdout, stderr, mod.ExportedMemory("memory"), lim)
	return out
}

func classifyWasm(ctx context.Context, callErr error, stdout, stderr *cappedBuffer, mem api.Memory, lim Limits) (Status, string) {
	if stdout.overrun() {
		return StatusOutputLimit, fmt.Sprintf("the skill wrote more than the output limit of %s", formatBytes(lim.OutputBytes))
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
			return StatusMemoryLimit, fmt.Sprintf("the skill needed more than the memory limit of %s: %v", formatBytes(lim.MemoryBytes), callErr)
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
		return StatusMemoryLimit, fmt.Sprintf("the skill needed more than the memory limit of %s (exit code %d)", formatBytes(lim.MemoryBytes), code)
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

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
