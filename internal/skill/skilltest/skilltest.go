// Package skilltest helps tests run skills: it builds the Go test skills of
// testdata/skills to WebAssembly (cached by content hash) and gives an
// Executor whose JavaScript child is a freshly built helix.
package skilltest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"

	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/testbin"
)

// Main runs the tests of a package whose code starts JavaScript skills with
// the default executor: its child is os.Executable() (this test binary) with
// the arguments "skill __run-js", and Main serves it.
func Main(m *testing.M) {
	if skill.IsChild(os.Args) {
		os.Exit(skill.RunChild(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// Root is the repository root.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// SkillsDir is testdata/skills.
func SkillsDir() string { return filepath.Join(Root(), "testdata", "skills") }

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// Wasm returns the path of testdata/skills/<name> built with GOOS=wasip1.
// All test skills are built together, once, into a cache directory keyed by
// the hash of their sources and the Go version: later runs reuse them.
func Wasm(t testing.TB, name string) string {
	t.Helper()
	buildOnce.Do(func() { buildDir, buildErr = buildAll() })
	if buildErr != nil {
		t.Fatalf("build test skills: %v", buildErr)
	}
	p := filepath.Join(buildDir, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no test skill %s: %v", name, err)
	}
	return p
}

func buildAll() (string, error) {
	src := SkillsDir()
	var pkgs []string
	h := sha256.New()
	fmt.Fprintln(h, runtime.Version())
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".go" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Join("testdata", "skills", filepath.Dir(rel))))
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(pkgs)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "helix-test", "skills-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return dir, nil
	}
	// Built into a temporary directory and renamed: parallel test binaries never see half a build.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "build-")
	if err != nil {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", err
		}
		if tmp, err = os.MkdirTemp(filepath.Dir(dir), "build-"); err != nil {
			return "", err
		}
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("go", append([]string{"build", "-trimpath", "-ldflags=-s -w", "-o", tmp + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = Root()
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, ".complete")); statErr == nil {
			return dir, nil // another test binary won the race
		}
		return "", err
	}
	return dir, nil
}

// CacheDir is the compiled-module cache shared by test runs: compiling a
// Go-built module takes seconds, even more under -race.
func CacheDir() string {
	c, err := os.UserCacheDir()
	if err != nil {
		c = os.TempDir()
	}
	return filepath.Join(c, "helix-test", "wasm-cache")
}

// Executor returns an executor whose JavaScript child is `helix skill
// __run-js` from testbin (not the test binary: under -race it starts in
// seconds and cannot run under an address-space limit) and whose
// compiled-module cache persists between test runs.
func Executor(t testing.TB, limits skill.Limits) *skill.Executor {
	t.Helper()
	e, err := skill.NewExecutor(skill.ExecutorOptions{
		CacheDir: CacheDir(),
		JSChild:  []string{testbin.Helix(t), "skill", skill.ChildCommand},
		Limits:   limits,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}
