// Package testbin builds the helix binary for tests that must run helix as
// a subprocess (exit codes, signals, two instances).
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
)

var (
	once sync.Once
	path string
	err  error
	out  []byte
)

// Helix returns the path of a helix binary built from this checkout's
// current sources. Every test binary of a `go test ./...` asks for it, so it
// is built into one place per checkout (the user's cache directory, keyed by
// the checkout's path) under a file lock: the first test binary links it,
// and for the others `go build` finds it up to date and returns in a moment
// instead of linking 60 MB again. go build still rebuilds it whenever a
// source has changed.
func Helix(t testing.TB) string {
	t.Helper()
	once.Do(func() { path, out, err = build() })
	if err != nil {
		t.Fatalf("build helix: %v\n%s", err, out)
	}
	return path
}

func build() (string, []byte, error) {
	_, file, _, _ := runtime.Caller(0)
	root, err := filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
	if err != nil {
		return "", nil, err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(cache, "helix-test", "bin-"+hex.EncodeToString(sum[:])[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", nil, err
	}
	defer lock.Close()
	// Released when lock is closed. go build replaces the binary by a
	// rename, so processes started from the old one are unaffected.
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", nil, err
	}
	p := filepath.Join(dir, "helix")
	cmd := exec.Command("go", "build", "-o", p, "./cmd/helix")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	return p, out, err
}

// Shared returns a path inside the team's shared/ folder, which sits beside
// the checkout (../shared), as it does on developers' machines and in CI.
func Shared(elem ...string) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
	return filepath.Join(append([]string{root}, elem...)...)
}

// Main runs the package's tests with up to parallel of them at a time
// unless the command line sets -parallel. It is for packages whose tests
// spend their time waiting (on helix processes, PostgreSQL, leases, 1 s
// schedules, lock expiries) rather than on the CPU: the default, GOMAXPROCS,
// is 2 on a two-core machine and leaves it idle while two tests sleep.
func Main(m *testing.M, parallel int) {
	Parallel(parallel)
	os.Exit(m.Run())
}

// Parallel is Main's setting alone, for a TestMain that runs m itself
// (goleak.VerifyTestMain): call it first.
func Parallel(n int) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set && n > runtime.GOMAXPROCS(0) {
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}
