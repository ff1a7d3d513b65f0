package toolexec

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/skill/skilltest"
)

// A skill tool runs in the real sandbox, with the manifest's limits, and
// both the tool and the skill execution are recorded.
func TestSkillTool(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	sk, err := skill.LoadFile(filepath.Join(skilltest.Root(), "testdata", "composite", "upper.js"))
	if err != nil {
		t.Fatal(err)
	}
	sk.Name = "upper"
	if _, err := skill.Add(ctx, pool, sk); err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{Name: "shout", Version: "1.0.0",
		Entrypoint:  manifest.Entrypoint{Skill: "upper@1"},
		Parameters:  map[string]any{"type": "object", "required": []any{"text"}, "properties": map[string]any{"text": map[string]any{"type": "string"}}},
		Returns:     map[string]any{"type": "object", "required": []any{"text"}},
		Permissions: manifest.Permissions{Timeout: "10s", Memory: "64MiB"}}
	approveAll(t, pool, []manifest.Candidate{{Manifest: m, Source: "t"}})
	r := &Runner{Skills: &Skills{X: skilltest.Executor(t, skill.Limits{}), Q: pool}}
	res, err := run(t, pool, r, "shout", `{"text": "hey"}`)
	if err != nil || res.Status != StatusOK {
		t.Fatalf("%+v %v", res, err)
	}
	var out struct {
		Text   string
		Length int
	}
	if err := json.Unmarshal(res.Output, &out); err != nil || out.Text != "HEY" || out.Length != 3 {
		t.Errorf("output %s", res.Output)
	}
	if _, err := run(t, pool, r, "shout", `{"txt": "hey"}`); err == nil {
		t.Error("input without text ran")
	}
	var tools, skills int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM tool_executions WHERE kind = 'skill'), (SELECT count(*) FROM skill_executions)`).Scan(&tools, &skills); err != nil || tools != 2 || skills != 1 {
		t.Errorf("tool executions %d, skill executions %d (%v)", tools, skills, err)
	}
	// the tool's row carries the sandbox run's cost, the same as the skill's row
	var toolCPU, skillCPU float64
	var toolPeak, skillPeak int64
	if err := pool.QueryRow(ctx, `SELECT t.cpu_ms, t.peak_rss_bytes, s.cpu_ms, s.peak_rss_bytes
FROM tool_executions t, skill_executions s WHERE t.kind = 'skill' AND t.status = 'ok'`).Scan(&toolCPU, &toolPeak, &skillCPU, &skillPeak); err != nil ||
		toolCPU <= 0 || toolPeak <= 0 || toolCPU != skillCPU || toolPeak != skillPeak || res.CPUMS == nil || *res.CPUMS != toolCPU {
		t.Errorf("cost: tool %v ms %v B, skill %v ms %v B, result %v (%v)", toolCPU, toolPeak, skillCPU, skillPeak, res.CPUMS, err)
	}
}
