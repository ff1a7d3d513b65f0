package skill_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/skill/skilltest"
)

func TestAddVersions(t *testing.T) {
	ctx := context.Background()
	tx := pgtest.Tx(t)
	add := func(code, version string) *skill.AddResult {
		t.Helper()
		res, err := skill.Add(ctx, tx, &skill.Skill{Name: "rank", Version: version, Engine: skill.EngineJS, Code: []byte(code)})
		if err != nil {
			t.Fatalf("add %q@%q: %v", code, version, err)
		}
		return res
	}
	if r := add("return 1", ""); !r.Created || r.Skill.Version != "1" {
		t.Fatalf("first add: %+v, want version 1 created", r)
	}
	if r := add("return 1", ""); r.Created || r.Skill.Version != "1" {
		t.Fatalf("same code again: created=%v version %s, want version 1 unchanged", r.Created, r.Skill.Version)
	}
	if r := add("return 2", ""); !r.Created || r.Skill.Version != "2" {
		t.Fatalf("new code: %+v, want version 2", r.Skill.Version)
	}
	add("return 3", "3.0.0-beta")
	if r := add("return 4", ""); r.Skill.Version != "3" {
		t.Fatalf("after a non-integer version: version %s, want 3", r.Skill.Version)
	}
	_, err := skill.Add(ctx, tx, &skill.Skill{Name: "rank", Version: "2", Engine: skill.EngineJS, Code: []byte("return 5")})
	if !errors.Is(err, skill.ErrExists) {
		t.Fatalf("rank@2 with other code: %v, want ErrExists", err)
	}
	latest, err := skill.Get(ctx, tx, skill.Ref{Name: "rank"})
	if err != nil || latest.Version != "3" || string(latest.Code) != "return 4" {
		t.Fatalf("latest = %+v, %v", latest, err)
	}
	old, err := skill.Resolve(ctx, tx, "rank@3.0.0-beta")
	if err != nil || string(old.Code) != "return 3" {
		t.Fatalf("rank@3.0.0-beta = %+v, %v", old, err)
	}
	if _, err := skill.Resolve(ctx, tx, "rank@9"); !errors.Is(err, skill.ErrNotFound) {
		t.Fatalf("rank@9: %v, want ErrNotFound", err)
	}
	list, err := skill.List(ctx, tx, false)
	if err != nil || len(list) != 1 || list[0].Versions != 4 || list[0].Version != "3" {
		t.Fatalf("list = %+v, %v", list, err)
	}
	all, err := skill.List(ctx, tx, true)
	if err != nil || len(all) != 4 {
		t.Fatalf("list --all = %d rows, %v", len(all), err)
	}
}

const rankSchema = `{
	"type": "object",
	"required": ["items"],
	"properties": {"items": {"type": "array", "items": {"type": "number"}}, "top": {"type": "integer", "minimum": 1}}
}`

const rankJS = `function main(input) {
	const items = input.items.slice().sort((a, b) => b - a);
	return { top: items.slice(0, input.top || 3) };
}`

func TestExecAudit(t *testing.T) {
	ctx := context.Background()
	tx := pgtest.Tx(t)
	e := skilltest.Executor(t, skill.Limits{})
	added, err := skill.Add(ctx, tx, &skill.Skill{Name: "rank", Engine: skill.EngineJS, Code: []byte(rankJS),
		Params: []byte(rankSchema), Limits: skill.Limits{Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	s := added.Skill
	user := "6f1c2d4e-8a9b-4c3d-9e8f-7a6b5c4d3e2f"
	// A step of a composite run links its row to that run (a foreign key since 00006).
	var compositeRun int64
	if err := tx.QueryRow(ctx, `INSERT INTO composite_skill_executions (name, version, sha256, status, input, started_at)
		VALUES ('brief', '1', 'x', 'running', '{}', now()) RETURNING id`).Scan(&compositeRun); err != nil {
		t.Fatal(err)
	}

	ok, err := e.Exec(ctx, tx, s, skill.ExecOptions{Input: []byte(`{"items": [3, 9, 1, 7], "top": 2}`), UserID: user, CompositeExecutionID: compositeRun})
	if err != nil || ok.Status != skill.StatusOK || string(ok.Output) != `{"top":[9,7]}` {
		t.Fatalf("exec = %+v, %v", ok, err)
	}
	if ok.Limits.Timeout != 10*time.Second || skill.DefaultTimeout <= 10*time.Second {
		t.Errorf("timeout %s, want the skill's own 10s (lower than the default %s)", ok.Limits.Timeout, skill.DefaultTimeout)
	}
	bad, err := e.Exec(ctx, tx, s, skill.ExecOptions{Input: []byte(`{"items": [3, "x"]}`)})
	if err != nil || bad.Status != skill.StatusInvalidInput || bad.SchemaErrPath != "/items/1" || !strings.Contains(bad.Error, "at /items/1") {
		t.Fatalf("invalid input = %+v, %v", bad, err)
	}
	slow := jsSkill("spin", `for (;;) {}`)
	to, err := e.Exec(ctx, tx, slow, skill.ExecOptions{Input: []byte(`{}`), Limits: skill.Limits{Timeout: 300 * time.Millisecond}})
	if err != nil || to.Status != skill.StatusTimeout {
		t.Fatalf("timeout = %+v, %v", to, err)
	}

	type row struct {
		name, version, status, user, output, errText, inputSHA string
		composite                                              int64
		timeoutMS                                              int64
		hasSkillID                                             bool
	}
	rows, err := tx.Query(ctx, `
SELECT skill_name, coalesce(skill_version, ''), status, coalesce(user_id::text, ''), coalesce(output, ''),
       coalesce(error, ''), input_sha256, coalesce(composite_execution_id, 0), (limits->>'timeout_ms')::bigint, skill_id IS NOT NULL
FROM skill_executions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.name, &r.version, &r.status, &r.user, &r.output, &r.errText, &r.inputSHA, &r.composite, &r.timeoutMS, &r.hasSkillID); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if len(got) != 3 {
		t.Fatalf("%d skill_executions rows, want 3", len(got))
	}
	if r := got[0]; r.status != "ok" || r.version != "1" || r.user != user || r.composite != compositeRun || r.output != `{"top":[9,7]}` || !r.hasSkillID ||
		r.inputSHA != skill.Sum([]byte(`{"items": [3, 9, 1, 7], "top": 2}`)) || r.timeoutMS != 10000 {
		t.Errorf("ok row = %+v", r)
	}
	if r := got[1]; r.status != "invalid_input" || !strings.Contains(r.errText, "/items/1") || r.output != "" {
		t.Errorf("invalid_input row = %+v", r)
	}
	if r := got[2]; r.status != "timeout" || r.name != "spin" || r.version != "" || r.hasSkillID || !strings.Contains(r.errText, "timeout of 300ms") {
		t.Errorf("timeout row = %+v", r)
	}
	execs, err := skill.RecentExecutions(ctx, tx, "rank", 10)
	if err != nil || len(execs) != 2 || execs[0].Status != skill.StatusInvalidInput {
		t.Fatalf("recent executions = %+v, %v", execs, err)
	}
	// what a run cost; nothing for an input refused before anything ran
	if execs[0].CPUMS != nil || execs[1].CPUMS == nil || *execs[1].CPUMS <= 0 || execs[1].PeakRSSBytes == nil || *execs[1].PeakRSSBytes <= 0 {
		t.Fatalf("recent executions' cost: %+v", execs)
	}
}

func TestLimitsMin(t *testing.T) {
	got := skill.DefaultLimits().Min(skill.Limits{Timeout: time.Minute, MemoryBytes: 64 << 20}).Min(skill.Limits{OutputBytes: 1 << 10})
	want := skill.Limits{Timeout: skill.DefaultTimeout, MemoryBytes: 64 << 20, OutputBytes: 1 << 10, CPU: skill.DefaultCPU}
	if got != want {
		t.Fatalf("Min = %+v, want %+v", got, want)
	}
}
