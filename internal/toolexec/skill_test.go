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
}
