package skill_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/skill/skilltest"
)

// The in-process cost of one execution once the module is compiled: a fresh
// instance per call (wasm), a fresh child process per call (JS).
func BenchmarkRunWasmEcho(b *testing.B) {
	e := skilltest.Executor(b, skill.Limits{})
	s, err := skill.LoadFile(skilltest.Wasm(b, "echo"))
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, e, s)
}

func BenchmarkRunWasmEchoWat(b *testing.B) {
	e := skilltest.Executor(b, skill.Limits{})
	s, err := skill.LoadFile(filepath.Join(skilltest.SkillsDir(), "echo.wasm"))
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, e, s)
}

func BenchmarkRunJSEcho(b *testing.B) {
	e := skilltest.Executor(b, skill.Limits{})
	benchRun(b, e, jsSkill("echo", `function main(input) { return input }`))
}

func benchRun(b *testing.B, e *skill.Executor, s *skill.Skill) {
	ctx := context.Background()
	o := skill.ExecOptions{Input: []byte(`{"hello": "world", "n": [1, 2, 3]}`)}
	if res, err := e.Run(ctx, s, o); err != nil || res.Status != skill.StatusOK {
		b.Fatalf("warm-up: %+v %v", res, err)
	}
	b.ResetTimer()
	for b.Loop() {
		if res, err := e.Run(ctx, s, o); err != nil || res.Status != skill.StatusOK {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// What one `helix skill exec` process pays for a Go-built module with a warm
// disk cache: a new executor (runtime, module loaded from the cache) per run.
func BenchmarkFreshExecutorWasmEcho(b *testing.B) {
	skilltest.Executor(b, skill.Limits{}).CheckWasm(context.Background(), mustRead(b, skilltest.Wasm(b, "echo")))
	s, err := skill.LoadFile(skilltest.Wasm(b, "echo"))
	if err != nil {
		b.Fatal(err)
	}
	o := skill.ExecOptions{Input: []byte(`{"hello": "world"}`)}
	for b.Loop() {
		e, err := skill.NewExecutor(skill.ExecutorOptions{CacheDir: skilltest.CacheDir()})
		if err != nil {
			b.Fatal(err)
		}
		if res, err := e.Run(context.Background(), s, o); err != nil || res.Status != skill.StatusOK {
			b.Fatalf("%+v %v", res, err)
		}
		_ = e.Close()
	}
}

func mustRead(b *testing.B, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}
