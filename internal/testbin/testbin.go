// Package testbin builds the helix binary once per test process, for tests
// that must run helix as a subprocess (exit codes, signals, two instances).
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	once sync.Once
	path string
	err  error
	out  []byte
)

// Helix returns the path of a freshly built helix binary.
func Helix(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		dir, e := os.MkdirTemp("", "helix-bin-")
		if e != nil {
			err = e
			return
		}
		path = filepath.Join(dir, "helix")
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-o", path, "./cmd/helix")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err = cmd.CombinedOutput()
	})
	if err != nil {
		t.Fatalf("build helix: %v\n%s", err, out)
	}
	return path
}

// Shared returns a path inside the team's shared/ folder, which sits beside
// the checkout (../shared), as it does on developers' machines and in CI.
func Shared(elem ...string) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
	return filepath.Join(append([]string{root}, elem...)...)
}
