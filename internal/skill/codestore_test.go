package skill

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

func testExecutor(t *testing.T, cacheDir string) *Executor {
	t.Helper()
	e, err := NewExecutor(ExecutorOptions{CacheDir: cacheDir, JSChild: []string{testbin.Helix(t), "skill", ChildCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// A stored skill's code is kept in the executor's cache directory, so a warm
// run does not fetch it from the database; a damaged copy is never run.
func TestResolveKeepsCode(t *testing.T) {
	ctx := context.Background()
	tx := pgtest.Tx(t)
	wasm, err := os.ReadFile(filepath.Join("..", "..", "testdata", "skills", "echo.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Add(ctx, tx, &Skill{Name: "echo", Engine: EngineWasm, Code: wasm}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := testExecutor(t, dir).Resolve(ctx, tx, "echo")
	if err != nil || !bytes.Equal(s.Code, wasm) {
		t.Fatalf("cold resolve: %d bytes, %v; want the stored %d bytes", len(s.Code), err, len(wasm))
	}
	kept := filepath.Join(dir, "skills", s.SHA256)
	if b, err := os.ReadFile(kept); err != nil || !bytes.Equal(b, wasm) {
		t.Fatalf("cache copy: %d bytes, %v", len(b), err)
	}
	// The registry is the truth: the cache copy must hash to its sha256.
	if err := os.WriteFile(kept, append([]byte("\x00asm"), make([]byte, len(wasm))...), 0o600); err != nil {
		t.Fatal(err)
	}
	e := testExecutor(t, dir)
	s, err = e.Resolve(ctx, tx, "echo")
	if err != nil || !bytes.Equal(s.Code, wasm) {
		t.Fatalf("resolve with a damaged copy: %d bytes, %v", len(s.Code), err)
	}
	if b, _ := os.ReadFile(kept); !bytes.Equal(b, wasm) {
		t.Error("the damaged copy was not replaced")
	}
	res, err := e.Exec(ctx, tx, s, ExecOptions{Input: []byte(`{"a":1}`)})
	if err != nil || res.Status != StatusOK || string(res.Output) != `{"a":1}` {
		t.Fatalf("exec = %+v, %v", res, err)
	}
}

// A JavaScript child is started ahead of need for a .js file, and for a
// stored skill that resolved to JavaScript last time; a wrong guess costs
// only the child, which Close ends.
func TestPrestartJS(t *testing.T) {
	ctx := context.Background()
	tx := pgtest.Tx(t)
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "double.js")
	if err := os.WriteFile(file, []byte(`function main(input) { return input.n * 2 }`), 0o600); err != nil {
		t.Fatal(err)
	}
	e := testExecutor(t, dir)
	e.Prestart(file)
	if e.jsReady == nil {
		t.Fatal("no child started for a .js file")
	}
	s, err := e.Resolve(ctx, tx, file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(ctx, s, ExecOptions{Input: []byte(`{"n":21}`)})
	if err != nil || res.Status != StatusOK || string(res.Output) != "42" || e.jsReady != nil {
		t.Fatalf("run with the prestarted child = %+v, %v (child still waiting: %v)", res, err, e.jsReady != nil)
	}
	e.Prestart(filepath.Join("..", "..", "testdata", "skills", "echo.wasm"))
	if e.jsReady != nil {
		t.Fatal("a child was started for a .wasm file")
	}

	if _, err := Add(ctx, tx, &Skill{Name: "flip", Engine: EngineJS, Code: []byte(`return "js"`)}); err != nil {
		t.Fatal(err)
	}
	e = testExecutor(t, dir)
	e.Prestart("flip") // never resolved: no guess
	if e.jsReady != nil {
		t.Fatal("a child was started for a skill never resolved")
	}
	if _, err := e.Resolve(ctx, tx, "flip"); err != nil {
		t.Fatal(err)
	}
	e = testExecutor(t, dir)
	e.Prestart("flip")
	p := e.jsReady
	if p == nil {
		t.Fatal("no child started for a skill that was JavaScript last time")
	}
	// flip@2 is WebAssembly: the guess is wrong, the run is right.
	wasm, err := os.ReadFile(filepath.Join("..", "..", "testdata", "skills", "echo.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Add(ctx, tx, &Skill{Name: "flip", Engine: EngineWasm, Code: wasm}); err != nil {
		t.Fatal(err)
	}
	s, err = e.Resolve(ctx, tx, "flip")
	if err != nil || s.Engine != EngineWasm {
		t.Fatalf("flip = %v, %v; want the wasm version 2", s, err)
	}
	if res, err := e.Run(ctx, s, ExecOptions{Input: []byte(`[1]`)}); err != nil || string(res.Output) != "[1]" {
		t.Fatalf("run flip@2 = %+v, %v", res, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if p.cmd.ProcessState == nil {
		t.Error("Close left the unused child running")
	}
	e = testExecutor(t, dir)
	if e.Prestart("flip"); e.jsReady != nil {
		t.Error("a child was started for a skill that is no longer JavaScript")
	}
}
