package skill_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/skill/skilltest"
)

// recursionBomb is a hand-assembled WASI command whose _start calls a
// function that calls itself forever: the frames live on wazero's own
// stack, outside the guest's linear memory.
var recursionBomb = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
	0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // type 0: () -> ()
	0x03, 0x03, 0x02, 0x00, 0x00, // two functions of type 0
	0x05, 0x03, 0x01, 0x00, 0x01, // one memory of one page
	0x07, 0x13, 0x02, 0x06, '_', 's', 't', 'a', 'r', 't', 0x00, 0x01, 0x06, 'm', 'e', 'm', 'o', 'r', 'y', 0x02, 0x00,
	0x0a, 0x0b, 0x02, 0x04, 0x00, 0x10, 0x00, 0x0b, 0x04, 0x00, 0x10, 0x00, 0x0b, // f0: call f0; _start: call f0
}

// Issue 22, finding 8: the guest's call stack is bounded by the memory
// limit and a recursion bomb is memory_limit, not timeout.
func TestWasmRecursionBomb(t *testing.T) {
	e := skilltest.Executor(t, skill.Limits{})
	s := &skill.Skill{Name: "bomb", Engine: skill.EngineWasm, Code: recursionBomb, SHA256: skill.Sum(recursionBomb)}
	res := run(t, e, s, `{}`, skill.StatusMemoryLimit, skill.ExecOptions{Limits: skill.Limits{MemoryBytes: 16 << 20, Timeout: 60 * time.Second}})
	if !strings.Contains(res.Error, "call stack") || !strings.Contains(res.Error, "16 MiB") {
		t.Errorf("error %q does not name the call stack and the limit", res.Error)
	}
	// A Go guest's stack is in its linear memory: the same limit stops it.
	run(t, e, wasmSkill(t, "hostile"), `{"do": "recurse"}`, skill.StatusMemoryLimit, skill.ExecOptions{Limits: skill.Limits{MemoryBytes: 32 << 20, Timeout: 60 * time.Second}})
}

// Without the clock capability the wall clock reads 1970-01-01, as the
// README says, and a sleep returns at once (the guest sees its monotonic
// clock advance by the time it asked for, nothing more). With it, both are real.
func TestWasmClockAndSleep(t *testing.T) {
	e := skilltest.Executor(t, skill.Limits{})
	var out struct {
		Start   string `json:"start"`
		SleptMS int64  `json:"slept_ms"`
	}
	res := run(t, e, wasmSkill(t, "hostile"), `{"do": "sleep"}`, skill.StatusOK, skill.ExecOptions{})
	host := res.Duration
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.Start, "1970-01-01T00:00:00") {
		t.Errorf("without the clock capability the guest's time is %s, want 1970-01-01", out.Start)
	}
	if host >= 2*time.Second {
		t.Errorf("without the clock capability a 2 s sleep took %s of real time", host)
	}
	res = run(t, e, wasmSkill(t, "hostile", "clock"), `{"do": "sleep"}`, skill.StatusOK, skill.ExecOptions{})
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(out.Start, "1970") || out.SleptMS < 2000 {
		t.Errorf("with the clock capability: %+v", out)
	}
}
