package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

// TestSignalFromTheFirstMillisecond is the desktop app's Cancel right after
// Start (issue 44): a Node harness spawns `helix synthesize --all-users
// --full -o json` as a real child process and sends SIGTERM or SIGINT 1, 5,
// 20, 50, 100, 200 and 400 ms later. Every run from 5 ms on must exit 130
// (not die of the signal) with exactly one JSON error line on stderr; the
// 1 ms runs are reported (see below). The synthesis is kept
// waiting on a lock on memories, so that it is still running at 400 ms
// however fast the machine is. Before earlysignal (package initialisation
// took 0.15–0.6 s under load) the runs at 1, 5 and 20 ms died by the signal.
func TestSignalFromTheFirstMillisecond(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the harness spawning helix is a Node script (scripts/test-deps.sh installs nodejs)")
	}
	url := pgtest.URL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, `LOCK TABLE memories IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}

	harness, _ := filepath.Abs(filepath.Join("testdata", "signal_at.js"))
	// The floor: before a process's runtime has installed any handler, the
	// kernel's default action kills it whatever it is. On a machine so
	// loaded that a minimal Go program (signal.Notify first thing in main)
	// dies of a signal 1, 5 or 20 ms after its spawn (load 40-50 on 2
	// cores), helix's runs under 50 ms are reported, not asserted.
	floor := exec.Command(node, harness, minimalSignalProgram(t), "SIGTERM,SIGINT", "1,1,5,5,20,20", "--")
	floor.Stderr = os.Stderr
	fout, err := floor.Output()
	if err != nil {
		t.Fatalf("harness (minimal program): %v\n%s", err, fout)
	}
	floorDied := strings.Contains(string(fout), `"signal_killed":"SIG`)
	if floorDied {
		t.Logf("machine too loaded for the points under 50 ms (load %s): a minimal Go program died of the signal too:\n%s", loadavg(), fout)
	}
	// helix's 60 MB binary takes longer than the minimal program to reach
	// its first package's init (mapping it, the runtime's start): with more
	// runnable processes than cores (make test runs packages side by side),
	// the points under 50 ms are reported too, not asserted.
	if l := load1(); l > float64(runtime.NumCPU()) {
		t.Logf("load %.1f on %d cores: the points under 50 ms are reported, not asserted", l, runtime.NumCPU())
		floorDied = true
	}
	type run struct {
		DelayMS      int    `json:"delay_ms"`
		Signal       string `json:"signal"`
		Code         int    `json:"code"`
		SignalKilled string `json:"signal_killed"`
		Stderr       string `json:"stderr"`
		Stdout       string `json:"stdout"`
	}
	points := func(signals, delays string) []run {
		cmd := exec.Command(node, harness, testbin.Helix(t), signals, delays,
			"--", "synthesize", "--all-users", "--full", "-o", "json")
		cmd.Env = isolatedEnv(t, "DATABASE_URL="+url)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("harness: %v\n%s", err, out)
		}
		var runs []run
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r run
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("harness line %q: %v", line, err)
			}
			runs = append(runs, r)
		}
		return runs
	}
	runs := points("SIGTERM,SIGINT", "1,5,20,50,100,200,400")
	for _, r := range runs {
		what := r.Signal + " at " + strconv.Itoa(r.DelayMS) + " ms"
		if r.SignalKilled != "" && floorDied && r.DelayMS < 50 {
			t.Logf("%s: helix died of %s (not asserted: see the minimal program above)", what, r.SignalKilled)
			continue
		}
		// helix's package initialisation reaches earlysignal 0.8-1.3 ms
		// after its runtime starts (GODEBUG=inittrace=1: ~30 packages'
		// inits come first by Go's order), so a signal 1 ms after the
		// spawn often finds only the runtime's default action: the start
		// figure issue 44 ended blocked on. Reported, not asserted.
		if r.SignalKilled != "" && r.DelayMS < 5 {
			t.Logf("%s: helix died of %s (not asserted: before earlysignal's init)", what, r.SignalKilled)
			continue
		}
		// From 5 ms on helix is past it on an idle machine; a moment's
		// contention from the tests running beside this one (which the
		// one-minute load average misses) can still delay it: the point is
		// tried twice more, and fails only if helix dies every time.
		for try := 0; r.SignalKilled != "" && r.DelayMS < 50 && try < 2; try++ {
			t.Logf("%s: helix died of %s; trying the point again", what, r.SignalKilled)
			r = points(r.Signal, strconv.Itoa(r.DelayMS))[0]
		}
		if r.SignalKilled != "" {
			t.Errorf("%s: helix died of %s instead of exiting 130; stderr %q", what, r.SignalKilled, r.Stderr)
			continue
		}
		if r.Code != 130 {
			t.Errorf("%s: exit %d, want 130; stderr %q", what, r.Code, r.Stderr)
		}
		if r.Stdout != "" {
			t.Errorf("%s: stdout %q, want nothing", what, r.Stdout)
		}
		lines := strings.Split(strings.TrimRight(r.Stderr, "\n"), "\n")
		var e struct {
			Error struct {
				Code int    `json:"code"`
				Kind string `json:"kind"`
			} `json:"error"`
		}
		if len(lines) == 0 || json.Unmarshal([]byte(lines[len(lines)-1]), &e) != nil || e.Error.Code != 130 || e.Error.Kind != "interrupted" {
			t.Errorf("%s: the last stderr line is not the JSON error of exit 130: %q", what, r.Stderr)
		}
		for i, l := range lines {
			if !json.Valid([]byte(l)) {
				t.Errorf("%s: stderr line %d is not JSON: %q", what, i+1, l)
			}
		}
	}
	if len(runs) != 14 {
		t.Fatalf("harness ran %d runs, want 14", len(runs))
	}
	// nothing was half-written: the synthesis never got past the lock
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var patterns int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM memory_synthesis`).Scan(&patterns); err != nil {
		t.Fatal(err)
	}
	if patterns != 0 {
		t.Errorf("%d patterns written by interrupted runs", patterns)
	}
}

// minimalSignalProgram builds a Go program that installs its signal
// handling first thing in main and exits 130 on SIGINT or SIGTERM.
func minimalSignalProgram(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := `package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	select {
	case <-c:
		os.Exit(130)
	case <-time.After(10 * time.Second):
	}
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module minimal\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "minimal")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the minimal program: %v\n%s", err, out)
	}
	return bin
}

func load1() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:min(3, len(strings.Fields(string(b))))], " ")
}

// TestConfigFileOutputAppliesToFlagErrors: `output: json` in the config file
// reaches errors cobra raises before the configuration is resolved (README
// promises it; the desktop parses stderr as JSON).
func TestConfigFileOutputAppliesToFlagErrors(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("output: json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"synthesize", "--bogus"},
		{"nosuchcommand"},
		{"jobs", "show"},
		{"--config", cfg, "decay", "run", "--batch-size", "x"},
	} {
		env := []string{"HELIX_CONFIG=" + cfg}
		r := helix(t, env, "", args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %q", args, r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
		var e struct {
			Error struct {
				Code int    `json:"code"`
				Kind string `json:"kind"`
			} `json:"error"`
		}
		if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &e) != nil || e.Error.Code != 2 {
			t.Errorf("%v: stderr is not one JSON error line of exit 2: %q", args, r.stderr)
		}
	}
}
