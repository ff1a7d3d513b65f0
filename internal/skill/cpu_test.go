package skill_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/testbin"
)

// TestJSCPULimit: a busy loop with a long wall-clock timeout ends on its CPU
// time, and the cost helix records is the child's own, as /usr/bin/time
// (wrapped around the child) measures it.
func TestJSCPULimit(t *testing.T) {
	timeBin, err := exec.LookPath("time")
	if err != nil {
		if _, err = os.Stat("/usr/bin/time"); err != nil {
			t.Skip("GNU time (/usr/bin/time) is not installed: apt-get install time")
		}
		timeBin = "/usr/bin/time"
	}
	report := filepath.Join(t.TempDir(), "time.txt")
	e := netExecutor(t, skill.NetLimits{}, nil, timeBin, "-f", "%U %S %M", "-o", report, testbin.Helix(t), "skill", skill.ChildCommand)
	// status cpu_limit, not timeout: the CPU time, not the wall clock, ended it
	res := run(t, e, jsSkill("spin", `function main() { for (;;) {} }`), `{}`, skill.StatusCPULimit,
		skill.ExecOptions{Limits: skill.Limits{Timeout: 60 * time.Second, CPU: time.Second}})
	if !strings.Contains(res.Error, "CPU-time limit of 1s") || res.Limits.CPU != time.Second {
		t.Fatalf("error %q, limits %+v", res.Error, res.Limits)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	f := strings.Fields(lines[len(lines)-1]) // GNU time first notes a non-zero exit status
	if len(f) != 3 {
		t.Fatalf("time's report %q", b)
	}
	user, _ := strconv.ParseFloat(f[0], 64)
	sys, _ := strconv.ParseFloat(f[1], 64)
	kb, _ := strconv.ParseInt(f[2], 10, 64)
	timeMS := (user + sys) * 1000
	t.Logf("helix: cpu %.0f ms, peak %d KiB; /usr/bin/time: cpu %.0f ms, peak %d KiB", res.CPUMS, res.PeakRSSBytes>>10, timeMS, kb)
	if res.CPUMS < 900 || res.CPUMS > 3000 { // the child stops itself at the limit, measured every 10 ms
		t.Errorf("cpu_ms %.0f: want about the 1 s limit", res.CPUMS)
	}
	// time's figures are its child's plus its own (a millisecond or two), at 10 ms resolution
	if d := res.CPUMS - timeMS; d < -50 || d > 50 {
		t.Errorf("cpu_ms %.0f, /usr/bin/time says %.0f", res.CPUMS, timeMS)
	}
	// the child's own VmHWM; time's figure is its child's ru_maxrss
	if d := res.PeakRSSBytes - kb<<10; d < -(2<<20) || d > 2<<20 || res.PeakRSSBytes < 4<<20 {
		t.Errorf("peak_rss_bytes %d, /usr/bin/time says %d KiB", res.PeakRSSBytes, kb)
	}
}

func TestWasmCPULimit(t *testing.T) {
	e := netExecutor(t, skill.NetLimits{}, nil)
	res := run(t, e, wasmSkill(t, "hostile"), `{"do": "loop"}`, skill.StatusCPULimit,
		skill.ExecOptions{Limits: skill.Limits{Timeout: 60 * time.Second, CPU: time.Second}})
	if !strings.Contains(res.Error, "CPU-time limit of 1s") || res.CPUMS < 1000 || res.CPUMS > 5000 {
		t.Fatalf("error %q, cpu_ms %.0f", res.Error, res.CPUMS)
	}
}

// TestCostOfEveryRun: every run kind reports a CPU time and a peak memory
// that are non-zero and plausible.
func TestCostOfEveryRun(t *testing.T) {
	e := netExecutor(t, skill.NetLimits{}, nil)
	js := run(t, e, jsSkill("sum", `function main(input) { let s = 0; for (let i = 0; i < 1e6; i++) s += i; return s; }`), `{}`, skill.StatusOK, skill.ExecOptions{})
	wasm := run(t, e, wasmSkill(t, "echo"), `{"a": 1}`, skill.StatusOK, skill.ExecOptions{})
	for _, r := range []*skill.Result{js, wasm} {
		t.Logf("%s: cpu %.3f ms, peak %d KiB, wall %.1f ms", r.Engine, r.CPUMS, r.PeakRSSBytes>>10, r.DurationMS)
		if r.CPUMS <= 0 || r.CPUMS > 10_000 || r.PeakRSSBytes < 64<<10 || r.PeakRSSBytes > 1<<30 {
			t.Errorf("%s: cpu_ms %.3f, peak_rss_bytes %d", r.Engine, r.CPUMS, r.PeakRSSBytes)
		}
	}
	// a wasm instance's memory grows with what it allocates
	big := run(t, e, wasmSkill(t, "hostile"), `{"do": "memhog"}`, skill.StatusMemoryLimit, skill.ExecOptions{Limits: skill.Limits{MemoryBytes: 32 << 20}})
	if big.PeakRSSBytes < 24<<20 {
		t.Errorf("memhog peak_rss_bytes %d, want near the 32 MiB limit", big.PeakRSSBytes)
	}
}
