package composite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/composite"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/skill"
	"github.com/helixhq/helix/internal/testbin"
)

var testdata = filepath.Join("..", "..", "..", "..", "testdata", "composite")

func abs(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// executor returns the real sandbox. Its JavaScript child is a helix binary,
// as in production: a child built with -race, like this test binary, takes
// seconds to start.
func executor(t *testing.T) func() (*skill.Executor, error) {
	child := []string{testbin.Helix(t), "skill", skill.ChildCommand}
	return func() (*skill.Executor, error) {
		return skill.NewExecutor(skill.ExecutorOptions{CacheDir: "-", JSChild: child})
	}
}

type env struct {
	pool *pgxpool.Pool
	f    *cmdutil.Factory
	out  cmdtest.Streams
}

func newEnv(t *testing.T, pool *pgxpool.Pool, tty, jsonOut bool) *env {
	f, s := cmdtest.Factory(t, tty)
	cmdtest.WithDB(f, pool)
	if jsonOut {
		f.Global.Output = "json"
	}
	return &env{pool: pool, f: f, out: s}
}

func (e *env) run(t *testing.T, target, input string) (*composite.Record, error) {
	t.Helper()
	e.out.Out.Reset()
	err := runRun(context.Background(), &RunOptions{IO: e.f.IOStreams, F: e.f, Target: target, Input: input, NewExecutor: executor(t)})
	if !e.f.Global.JSON() {
		return nil, err
	}
	var rec composite.Record
	if jerr := json.Unmarshal(e.out.Out.Bytes(), &rec); jerr != nil {
		t.Fatalf("stdout is not the record: %v (error %v)\n%s", jerr, err, e.out.Out)
	}
	rec.Output = compact(t, rec.Output)
	return &rec, err
}

// writeDef writes a definition whose skills are named {{skill.js}}, replaced
// by the absolute path of testdata/composite/skill.js.
func writeDef(t *testing.T, src string) string {
	t.Helper()
	for _, s := range []string{"upper.js", "flaky.js", "spin.js", "rank.js"} {
		src = strings.ReplaceAll(src, "{{"+s+"}}", abs(t, s))
	}
	p := filepath.Join(t.TempDir(), "wf.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func compact(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func addSkill(t *testing.T, pool *pgxpool.Pool, file, name, version string) {
	t.Helper()
	sk, err := skill.LoadFile(abs(t, file))
	if err != nil {
		t.Fatal(err)
	}
	sk.Name, sk.Version = name, version
	if _, err := skill.Add(context.Background(), pool, sk); err != nil {
		t.Fatal(err)
	}
}

type execRow struct {
	skill, status string
	compositeID   int64
}

// skillRows are the skill_executions of a composite run, in order.
func skillRows(t *testing.T, pool *pgxpool.Pool, runID int64) []execRow {
	t.Helper()
	rows, err := pool.Query(context.Background(),
		`SELECT skill_name, status, composite_execution_id FROM skill_executions WHERE composite_execution_id = $1 ORDER BY id`, runID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []execRow
	for rows.Next() {
		var r execRow
		if err := rows.Scan(&r.skill, &r.status, &r.compositeID); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func compositeRow(t *testing.T, pool *pgxpool.Pool, runID int64) (status string, steps []composite.StepRecord) {
	t.Helper()
	var raw []byte
	if err := pool.QueryRow(context.Background(), `SELECT status, steps FROM composite_skill_executions WHERE id = $1`, runID).Scan(&status, &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &steps); err != nil {
		t.Fatal(err)
	}
	return status, steps
}

// briefOutput is the workflow's output as a person at a terminal sees it;
// briefLine is it on a pipe: one line (cmdutil.WriteJSON).
const briefOutput = `{
  "brief": [
    "Server report: disk 91% full (ops@example.com)",
    "Quarterly report due Friday (boss@example.com)",
    "Report figures attached (finance@example.com)"
  ]
}
`

const briefLine = `{"brief":["Server report: disk 91% full (ops@example.com)","Quarterly report due Friday (boss@example.com)","Report figures attached (finance@example.com)"]}
`

func briefFor(tty bool) string {
	if tty {
		return briefOutput
	}
	return briefLine
}

// TestRunMorningBrief runs the README example: a registry skill and a skill file.
func TestRunMorningBrief(t *testing.T) {
	pool := pgtest.New(t)
	addSkill(t, pool, "email-summary.js", "email-summary", "1.2.0")
	for _, tty := range []bool{true, false} {
		e := newEnv(t, pool, tty, false)
		if _, err := e.run(t, filepath.Join(testdata, "morning-brief.yaml"), `{"query": "report"}`); err != nil {
			t.Fatal(err)
		}
		if got := e.out.Out.String(); got != briefFor(tty) {
			t.Errorf("tty=%v stdout:\n%s\nwant:\n%s", tty, got, briefFor(tty))
		}
		if e.out.Err.Len() != 0 {
			t.Errorf("stderr: %s", e.out.Err)
		}
	}
	// No match: the rank step is skipped and the output cannot be built.
	e := newEnv(t, pool, false, true)
	rec, err := e.run(t, filepath.Join(testdata, "morning-brief.yaml"), `{"query": "holiday"}`)
	if err == nil || rec.Status != composite.StatusError || rec.Steps[1].Status != composite.StatusSkipped ||
		rec.Error != "workflow output: reads the output of skipped step rank; make the path optional with $? ($?.steps.rank.output…)" {
		t.Errorf("no match: %v; %+v", err, rec)
	}
	// An input against the schema: exit 2, nothing runs, the run is recorded.
	rec, err = e.run(t, filepath.Join(testdata, "morning-brief.yaml"), `{"q": 1}`)
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage || rec.Status != composite.StatusInvalidInput {
		t.Errorf("invalid input: %v; %s", err, rec.Status)
	}
	if st, _ := compositeRow(t, pool, rec.ID); st != composite.StatusInvalidInput || len(skillRows(t, pool, rec.ID)) != 0 {
		t.Errorf("invalid input recorded as %s", st)
	}
}

func TestRunRecordsEveryStep(t *testing.T) {
	pool := pgtest.New(t)
	addSkill(t, pool, "email-summary.js", "email-summary", "1.2.0")
	e := newEnv(t, pool, false, true)
	rec, err := e.run(t, filepath.Join(testdata, "morning-brief.yaml"), `{"query": "report"}`)
	if err != nil {
		t.Fatal(err)
	}
	status, steps := compositeRow(t, pool, rec.ID)
	if status != "ok" || len(steps) != 2 || steps[0].Status != "ok" || steps[1].Attempts != 1 || string(steps[1].Output) == "null" {
		t.Errorf("composite row: %s %+v", status, steps)
	}
	rows := skillRows(t, pool, rec.ID)
	want := []execRow{{"email-summary", "ok", rec.ID}, {"rank", "ok", rec.ID}}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("skill_executions %v, want %v", rows, want)
	}
	if rec.Steps[0].AttemptLog[0].ExecutionID == 0 || rec.Steps[0].Skill != "email-summary@1.2.0" {
		t.Errorf("step record %+v", rec.Steps[0])
	}
}

func TestRunRetry(t *testing.T) {
	pool := pgtest.New(t)
	e := newEnv(t, pool, false, true)
	def := writeDef(t, `name: retry
version: 1
steps:
  - id: f
    skill: "{{flaky.js}}"
    input: { fail: $.input.fail, attempt: $.attempt }
    on_error: { action: retry, max_attempts: 4, backoff: 300ms, factor: 2, max_delay: 700ms, then: continue }
output: { f: $.steps.f.status, out: '$?.steps.f.output' }
`)
	rec, err := e.run(t, def, `{"fail": 3}`)
	if err != nil {
		t.Fatal(err)
	}
	f := rec.Steps[0]
	if f.Status != "ok" || f.Attempts != 4 || string(rec.Output) != `{"f":"ok","out":{"attempt":4}}` {
		t.Fatalf("step %+v, output %s", f, rec.Output)
	}
	// Backoff 300ms, 600ms, then 1.2s capped at 700ms: each gap between the
	// end of an attempt and the start of the next is at least that, and
	// within a generous tolerance for a shared machine.
	want := []time.Duration{300 * time.Millisecond, 600 * time.Millisecond, 700 * time.Millisecond}
	for i := 1; i < len(f.AttemptLog); i++ {
		prev, cur := f.AttemptLog[i-1], f.AttemptLog[i]
		gap := cur.StartedAt.Sub(prev.StartedAt) - time.Duration(prev.DurationMS*float64(time.Millisecond))
		if gap < want[i-1] || gap > want[i-1]+1500*time.Millisecond {
			t.Errorf("attempt %d began %v after the previous one ended, want %v (+ tolerance)", i+1, gap, want[i-1])
		}
		if prev.Status != "error" || !strings.Contains(prev.Error, fmt.Sprintf("attempt %d fails", i)) {
			t.Errorf("attempt %d: %s %s", i, prev.Status, prev.Error)
		}
	}
	rows := skillRows(t, pool, rec.ID)
	if len(rows) != 4 || rows[0].status != "error" || rows[3].status != "ok" {
		t.Errorf("skill_executions %v", rows)
	}

	// The budget: with 9 failures, exactly 4 attempts, then continue.
	rec, err = e.run(t, def, `{"fail": 9}`)
	if err != nil {
		t.Fatal(err)
	}
	if f := rec.Steps[0]; f.Status != "error" || f.Attempts != 4 || len(skillRows(t, pool, rec.ID)) != 4 ||
		string(rec.Output) != `{"f":"error","out":null}` || !strings.HasSuffix(f.Error, "(after 4 attempts)") {
		t.Errorf("budget: %+v %s", f, rec.Output)
	}
}

func TestRunConditionsAndActions(t *testing.T) {
	pool := pgtest.New(t)
	e := newEnv(t, pool, false, true)
	def := writeDef(t, `name: branches
version: 1
steps:
  - { id: a, skill: "{{upper.js}}", input: { text: $.input.text } }
  - { id: long, skill: "{{upper.js}}", input: { text: long }, when: $.steps.a.output.length > 3 }
  - { id: short, skill: "{{upper.js}}", input: { text: short }, when: $.steps.a.output.length <= 3 }
  - { id: cont, skill: "{{flaky.js}}", input: { fail: 1, attempt: 1 }, on_error: continue }
  - { id: skp, skill: "{{flaky.js}}", input: { fail: 1, attempt: 1 }, on_error: skip }
  - { id: after_skip, skill: "{{upper.js}}", input: { text: $.steps.skp.output.attempt } }
  - { id: after_cont, skill: "{{upper.js}}", input: { text: $.steps.cont.status } }
  - { id: stop, skill: "{{flaky.js}}", input: { fail: $.input.fail, attempt: 1 } }
  - { id: never, skill: "{{upper.js}}", input: { text: x } }
output: { long: '$?.steps.long.output.text', short: '$?.steps.short.output.text', cont: $.steps.after_cont.output.text }
`)
	rec, err := e.run(t, def, `{"text": "hello", "fail": 0}`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range rec.Steps {
		got[s.ID] = s.Status
	}
	want := map[string]string{"a": "ok", "long": "ok", "short": "skipped", "cont": "error", "skp": "skipped",
		"after_skip": "skipped", "after_cont": "ok", "stop": "ok", "never": "ok"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("statuses %v\nwant %v", got, want)
	}
	if string(rec.Output) != `{"cont":"ERROR","long":"LONG","short":null}` {
		t.Errorf("output %s", rec.Output)
	}
	// The condition the other way, and a step that stops the run.
	rec, err = e.run(t, def, `{"text": "hi", "fail": 1}`)
	if err == nil || rec.Status != "error" || rec.Steps[1].Status != "skipped" || rec.Steps[2].Status != "ok" ||
		rec.Steps[7].Status != "error" || rec.Steps[8].Status != "cancelled" || !strings.HasPrefix(rec.Error, "step stop: error: ") {
		t.Errorf("run: %v %+v", err, rec)
	}
	if st, _ := compositeRow(t, pool, rec.ID); st != "error" {
		t.Errorf("recorded %s", st)
	}
}

func TestRunMissingPath(t *testing.T) {
	pool := pgtest.New(t)
	e := newEnv(t, pool, false, false)
	def := writeDef(t, `name: missing
version: 1
steps:
  - { id: a, skill: "{{upper.js}}", input: { text: $.input.text } }
  - { id: b, skill: "{{upper.js}}", input: { text: $.steps.a.output.title } }
`)
	_, err := e.run(t, def, `{"text": "x"}`)
	if err == nil || !strings.HasSuffix(err.Error(), "step b: step b input: path $.steps.a.output.title matches nothing; write it $?.steps.a.output.title to read null instead") {
		t.Errorf("err = %v", err)
	}
	if e.out.Out.Len() != 0 {
		t.Errorf("stdout on failure: %s", e.out.Out)
	}
}

func TestRunChainOfTenWasm(t *testing.T) {
	pool := pgtest.New(t)
	e := newEnv(t, pool, false, true)
	rec, err := e.run(t, filepath.Join(testdata, "chain10.yaml"), `{"n": 7}`)
	if err != nil {
		t.Fatal(err)
	}
	if string(rec.Output) != `{"last":10,"n":7}` || len(rec.Steps) != 10 {
		t.Errorf("output %s", rec.Output)
	}
	rows := skillRows(t, pool, rec.ID)
	if len(rows) != 10 || rows[9].skill != "echo" || rows[9].status != "ok" {
		t.Errorf("skill_executions %v", rows)
	}
}

func TestRunParallelOverlaps(t *testing.T) {
	pool := pgtest.New(t)
	e := newEnv(t, pool, false, true)
	def := writeDef(t, `name: par
version: 1
steps:
  - { id: a, skill: "{{spin.js}}", input: { loops: $.input.loops }, parallel: true }
  - { id: b, skill: "{{spin.js}}", input: { loops: $.input.loops }, parallel: true }
  - { id: c, skill: "{{spin.js}}", input: { loops: $.steps.a.output.loops }, parallel: true }
  - { id: d, skill: "{{upper.js}}", input: { text: done } }
`)
	rec, err := e.run(t, def, `{"loops": 20000}`)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c, d := rec.Steps[0], rec.Steps[1], rec.Steps[2], rec.Steps[3]
	if !a.StartedAt.Before(*b.FinishedAt) || !b.StartedAt.Before(*a.FinishedAt) {
		t.Errorf("a [%v, %v] and b [%v, %v] did not overlap", a.StartedAt, a.FinishedAt, b.StartedAt, b.FinishedAt)
	}
	if c.StartedAt.Before(*a.FinishedAt) || d.StartedAt.Before(*c.FinishedAt) || d.StartedAt.Before(*b.FinishedAt) {
		t.Errorf("order not respected: a ends %v, c [%v, %v], d starts %v", a.FinishedAt, c.StartedAt, c.FinishedAt, d.StartedAt)
	}
}

func TestRunWorkflowTimeout(t *testing.T) {
	pool := pgtest.New(t)
	e := newEnv(t, pool, false, true)
	def := writeDef(t, `name: slow
version: 1
timeout: 3s
steps:
  - { id: quick, skill: "{{upper.js}}", input: { text: x } }
  - { id: forever, skill: "{{spin.js}}", input: { loops: -1 } }
  - { id: never, skill: "{{upper.js}}", input: { text: y } }
`)
	start := time.Now()
	rec, err := e.run(t, def, `{}`)
	if err == nil || rec.Status != "timeout" || !strings.HasPrefix(rec.Error, "workflow timeout 3s expired") {
		t.Fatalf("run: %v %s %s", err, rec.Status, rec.Error)
	}
	if el := time.Since(start); el > 8*time.Second {
		t.Errorf("a 3 s workflow timeout took %v", el)
	}
	if rec.Steps[0].Status != "ok" || rec.Steps[1].Status != "error" || rec.Steps[2].Status != "cancelled" {
		t.Errorf("steps %+v", rec.Steps)
	}
	rows := skillRows(t, pool, rec.ID)
	if len(rows) != 2 || rows[1].status != "timeout" {
		t.Errorf("skill_executions %v: the interrupted skill must be recorded as timeout", rows)
	}
	if st, _ := compositeRow(t, pool, rec.ID); st != "timeout" {
		t.Errorf("recorded %s", st)
	}
}
