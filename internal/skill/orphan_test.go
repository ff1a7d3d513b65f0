package skill_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/testbin"
)

// TestMain lets this test binary play a helix that runs a JavaScript skill
// (HELIX_TEST_JS_PARENT=helix binary): the orphan test SIGKILLs it.
func TestMain(m *testing.M) {
	if helix := os.Getenv("HELIX_TEST_JS_PARENT"); helix != "" {
		os.Exit(jsParent(helix))
	}
	os.Exit(m.Run())
}

func jsParent(helix string) int {
	e, err := skill.NewExecutor(skill.ExecutorOptions{CacheDir: "-", JSChild: []string{helix, "skill", skill.ChildCommand}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Top-level code that never ends, beside main, under a long timeout.
	s := &skill.Skill{Name: "spin", Engine: skill.EngineJS, Code: []byte("while (true) {}\nfunction main() { return 1 }")}
	res, err := e.Run(context.Background(), s, skill.ExecOptions{Input: []byte(`{}`), Limits: skill.Limits{Timeout: 10 * time.Minute}})
	fmt.Println(res, err)
	return 0
}

// childrenOf lists the pids of `helix skill __run-js` processes whose parent is ppid.
func childrenOf(ppid int) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		cmd, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		if len(f) > 1 && f[1] == strconv.Itoa(ppid) && bytes.Contains(cmd, []byte(skill.ChildCommand)) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			out = append(out, pid)
		}
	}
	return out
}

// alive reports whether pid runs (a zombie waiting to be reaped does not).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// Issue 22, finding 1: a JavaScript child whose top-level code loops must not
// outlive a SIGKILLed helix.
func TestJSChildDiesWithParent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc and relies on PR_SET_PDEATHSIG: Linux only (elsewhere the child's own deadline stops it)")
	}
	helix := testbin.Helix(t)
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), "HELIX_TEST_JS_PARENT="+helix)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = parent.Process.Kill(); _ = parent.Wait() }()
	var kids []int
	for start := time.Now(); len(kids) == 0; kids = childrenOf(parent.Process.Pid) {
		if time.Since(start) > 60*time.Second {
			t.Fatal("the parent started no JavaScript child within 60 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // let it reach the loop
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		still := 0
		for _, k := range kids {
			if alive(k) {
				still++
			}
		}
		if still == 0 {
			t.Logf("child %v gone %s after the parent's SIGKILL", kids, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) > 10*time.Second {
			for _, k := range kids {
				_ = syscall.Kill(k, syscall.SIGKILL)
			}
			t.Fatalf("child %v still running 10 s after its parent was SIGKILLed", kids)
		}
	}
}

// The child keeps its own deadline, from the request's first byte, whatever
// the parent does: here the "parent" keeps stdin open and never kills it.
func TestJSChildOwnDeadline(t *testing.T) {
	helix := testbin.Helix(t)
	child := exec.Command(helix, "skill", skill.ChildCommand)
	child.Env = []string{"GOTRACEBACK=none"}
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var out bytes.Buffer
	child.Stdout = &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	req, _ := json.Marshal(map[string]any{"code": "while (true) {}\nfunction main() {}", "input": map[string]any{},
		"timeout_ms": 300, "memory_bytes": 64 << 20, "output_bytes": 1 << 20})
	if _, err := stdin.Write(append(req, '\n')); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = child.Process.Kill()
		t.Fatal("the child ignored its own timeout of 300 ms for 30 s")
	}
	var resp struct{ Status, Error string }
	if err := json.Unmarshal(out.Bytes(), &resp); err != nil || resp.Status != "timeout" {
		t.Fatalf("response %q (%v): want status timeout", out.String(), err)
	}
}
