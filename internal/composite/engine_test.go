package composite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// goSkills runs skills written as Go functions, in process: the engine's
// contract with an executor, without a sandbox. The end-to-end tests in
// internal/cmd/skill/composite run the same workflows on real skills.
type goSkills struct {
	mu    sync.Mutex
	calls map[string]int
	fns   map[string]func(ctx context.Context, in map[string]any, call int) (any, error)
	reqs  []ExecRequest
}

func newGoSkills() *goSkills {
	g := &goSkills{calls: map[string]int{}}
	g.fns = map[string]func(context.Context, map[string]any, int) (any, error){
		"upper": func(_ context.Context, in map[string]any, _ int) (any, error) {
			s := "null"
			if in["text"] != nil {
				s = fmt.Sprint(in["text"])
			}
			return map[string]any{"text": strings.ToUpper(s), "length": len(s)}, nil
		},
		"inc": func(_ context.Context, in map[string]any, _ int) (any, error) {
			return map[string]any{"n": in["n"].(float64) + 1}, nil
		},
		// flaky fails while call ≤ in.fail.
		"flaky": func(_ context.Context, in map[string]any, call int) (any, error) {
			if call <= int(in["fail"].(float64)) {
				return nil, fmt.Errorf("flaky failure %d", call)
			}
			return map[string]any{"call": call}, nil
		},
		"sleep": func(ctx context.Context, in map[string]any, _ int) (any, error) {
			select {
			case <-time.After(time.Duration(in["ms"].(float64)) * time.Millisecond):
				return map[string]any{"slept": in["ms"]}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}
	return g
}

func (g *goSkills) Check(_ context.Context, skill string) error {
	if g.fns[skill] == nil {
		return fmt.Errorf("%w %q", ErrUnknownSkill, skill)
	}
	return nil
}

func (g *goSkills) Exec(ctx context.Context, req ExecRequest) (ExecResult, error) {
	g.mu.Lock()
	g.calls[req.Skill]++
	call := g.calls[req.Skill]
	g.reqs = append(g.reqs, req)
	g.mu.Unlock()
	var in map[string]any
	if err := json.Unmarshal(req.Input, &in); err != nil {
		return ExecResult{Status: "invalid_input", Error: err.Error()}, nil
	}
	out, err := g.fns[req.Skill](ctx, in, call)
	if ctx.Err() != nil {
		return ExecResult{Status: "timeout", Error: "interrupted"}, nil
	}
	if err != nil {
		return ExecResult{Status: "error", Error: err.Error()}, nil
	}
	b, _ := json.Marshal(out)
	return ExecResult{Status: StatusOK, Output: b, ExecutionID: int64(call)}, nil
}

func mustParse(t *testing.T, src string) *Definition {
	t.Helper()
	d, err := Parse([]byte(src), "test.yaml", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func run(t *testing.T, g *goSkills, src, input string) *Record {
	t.Helper()
	return Run(context.Background(), mustParse(t, src), json.RawMessage(input), RunOptions{Executor: g, ID: 42})
}

func TestChainAndOutput(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: chain\nversion: 1\nsteps:\n  - {id: s1, skill: inc, input: {n: $.input.n}}\n")
	for i := 2; i <= 10; i++ {
		fmt.Fprintf(&b, "  - {id: s%d, skill: inc, input: {n: $.steps.s%d.output.n}}\n", i, i-1)
	}
	b.WriteString("output: {total: $.steps.s10.output.n, first: $.steps.s1.output, lit: [1, $$x]}\n")
	g := newGoSkills()
	rec := run(t, g, b.String(), `{"n": 5}`)
	if rec.Status != StatusOK {
		t.Fatalf("status %s: %s", rec.Status, rec.Error)
	}
	if got := string(rec.Output); got != `{"first":{"n":6},"lit":[1,"$x"],"total":15}` {
		t.Errorf("output %s", got)
	}
	if len(rec.Steps) != 10 || rec.Steps[9].Status != StatusOK || rec.Steps[9].Attempts != 1 || string(rec.Steps[9].Output) != `{"n":15}` {
		t.Errorf("step 10 = %+v", rec.Steps[9])
	}
	for _, r := range g.reqs {
		if r.CompositeExecutionID != 42 {
			t.Errorf("request not linked to the run: %+v", r)
		}
	}
}

func TestConditions(t *testing.T) {
	src := `name: cond
version: 1
steps:
  - {id: a, skill: upper, input: {text: $.input.text}}
  - {id: long, skill: upper, input: {text: long}, when: '$.steps.a.output.length > 3 && $.input.text != "skip"'}
  - {id: short, skill: upper, input: {text: short}, when: '$.steps.a.output.length <= 3'}
  - {id: after, skill: upper, input: {text: $.steps.short.output.text}}
  - {id: opt, skill: upper, input: {text: '$?.steps.short.output.text'}}
output:
  long: $?.steps.long.output.text
  short: $?.steps.short.output.text
  status: $.steps.short.status
`
	rec := run(t, newGoSkills(), src, `{"text": "hello"}`)
	if rec.Status != StatusOK {
		t.Fatalf("status %s: %s", rec.Status, rec.Error)
	}
	want := map[string]string{"a": "ok", "long": "ok", "short": "skipped", "after": "skipped", "opt": "ok"}
	for _, s := range rec.Steps {
		if s.Status != want[s.ID] {
			t.Errorf("step %s: %s (%s), want %s", s.ID, s.Status, s.Reason, want[s.ID])
		}
	}
	if rec.Steps[2].Reason != "condition is false: $.steps.a.output.length <= 3" || rec.Steps[3].Reason != "depends on skipped step short" {
		t.Errorf("reasons: %q, %q", rec.Steps[2].Reason, rec.Steps[3].Reason)
	}
	if got := string(rec.Output); got != `{"long":"LONG","short":null,"status":"skipped"}` {
		t.Errorf("output %s", got)
	}
	if got := string(rec.Steps[4].Output); got != `{"length":4,"text":"NULL"}` {
		t.Errorf("optional path read %s, want null (upper of null)", got)
	}
}

func TestMissingPath(t *testing.T) {
	src := `name: missing
version: 1
steps:
  - {id: a, skill: upper, input: {text: $.input.text}}
  - {id: b, skill: upper, input: {text: $.steps.a.output.nope}}
  - {id: c, skill: upper}
`
	rec := run(t, newGoSkills(), src, `{"text": "x"}`)
	if rec.Status != StatusError {
		t.Fatalf("status %s", rec.Status)
	}
	want := "step b: step b input: path $.steps.a.output.nope matches nothing; write it $?.steps.a.output.nope to read null instead"
	if rec.Error != want {
		t.Errorf("error\n got %s\nwant %s", rec.Error, want)
	}
	if rec.Steps[1].Status != StatusError || rec.Steps[1].Attempts != 0 || rec.Steps[2].Status != StatusCancelled {
		t.Errorf("steps %+v", rec.Steps)
	}
	// A missing path in the workflow input fails the same way, naming the reader.
	rec = run(t, newGoSkills(), "name: m\nversion: 1\nsteps: [{id: a, skill: upper, input: {text: $.input.text}}]\n", `{}`)
	if !strings.Contains(rec.Error, "step a input: path $.input.text matches nothing") {
		t.Errorf("error %s", rec.Error)
	}
}

func TestErrorActions(t *testing.T) {
	for _, tc := range []struct {
		action, status, step, next string
	}{
		{"stop", StatusError, StatusError, StatusCancelled},
		{"continue", StatusOK, StatusError, StatusOK},
		{"skip", StatusOK, StatusSkipped, StatusSkipped},
	} {
		t.Run(tc.action, func(t *testing.T) {
			src := fmt.Sprintf(`name: act
version: 1
steps:
  - {id: f, skill: flaky, input: {fail: 5}, on_error: %s}
  - {id: next, skill: upper, input: {text: $.steps.f.output}}
output: {f: $.steps.f.status}
`, tc.action)
			rec := run(t, newGoSkills(), src, `{}`)
			if rec.Status != tc.status || rec.Steps[0].Status != tc.step || rec.Steps[1].Status != tc.next {
				t.Fatalf("run %s (%s), f %s, next %s (%s)", rec.Status, rec.Error, rec.Steps[0].Status, rec.Steps[1].Status, rec.Steps[1].Error)
			}
			if rec.Steps[0].Error != "error: flaky failure 1" || rec.Steps[0].Attempts != 1 {
				t.Errorf("f = %+v", rec.Steps[0])
			}
			if tc.action == "continue" && string(rec.Steps[1].Output) != `{"length":4,"text":"NULL"}` {
				t.Errorf("continue: next read %s, want the null output", rec.Steps[1].Output)
			}
		})
	}
}

func TestRetryBackoff(t *testing.T) {
	src := `name: retry
version: 1
steps:
  - id: f
    skill: flaky
    input: {fail: $.input.fail}
    on_error: {action: retry, max_attempts: 4, backoff: 100ms, factor: 2, max_delay: 250ms, then: continue}
`
	g := newGoSkills()
	rec := run(t, g, src, `{"fail": 3}`)
	f := rec.Steps[0]
	if rec.Status != StatusOK || f.Status != StatusOK || f.Attempts != 4 || string(f.Output) != `{"call":4}` {
		t.Fatalf("run %s %s; f %+v", rec.Status, rec.Error, f)
	}
	// Delays 100ms, 200ms, then 400ms capped at 250ms; each gap between
	// attempts is at least its delay, and not wildly more.
	want := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 250 * time.Millisecond}
	for i := 1; i < len(f.AttemptLog); i++ {
		prev, cur := f.AttemptLog[i-1], f.AttemptLog[i]
		gap := cur.StartedAt.Sub(prev.StartedAt) - time.Duration(prev.DurationMS*float64(time.Millisecond))
		if cur.DelayMS != ms(want[i]) || gap < want[i] || gap > want[i]+time.Second {
			t.Errorf("attempt %d: delay %vms, gap %v, want %v", i+1, cur.DelayMS, gap, want[i])
		}
	}
	// The budget: 5 failures with 4 attempts ends with then: continue after exactly 4 calls.
	g = newGoSkills()
	rec = run(t, g, src, `{"fail": 5}`)
	if f := rec.Steps[0]; f.Status != StatusError || f.Attempts != 4 || g.calls["flaky"] != 4 || f.Error != "error: flaky failure 4 (after 4 attempts)" || rec.Status != StatusOK {
		t.Errorf("run %s; f %+v; calls %d", rec.Status, f, g.calls["flaky"])
	}
}

func TestRetryJitter(t *testing.T) {
	d := mustParse(t, `name: j
version: 1
steps: [{id: f, skill: flaky, input: {fail: 1}, on_error: {action: retry, max_attempts: 2, backoff: 200ms, jitter: true}}]
`)
	for _, draw := range []float64{0, 0.999} {
		rec := Run(context.Background(), d, json.RawMessage(`{}`), RunOptions{Executor: newGoSkills(), Jitter: func() float64 { return draw }})
		got := rec.Steps[0].AttemptLog[1].DelayMS
		if got < 100 || got > 200 || rec.Status != StatusOK {
			t.Errorf("draw %v: delay %vms, want within [100, 200]", draw, got)
		}
	}
}

func TestParallelOverlap(t *testing.T) {
	src := `name: par
version: 1
max_parallel: 3
steps:
  - {id: a, skill: sleep, input: {ms: 300}, parallel: true}
  - {id: b, skill: sleep, input: {ms: 300}, parallel: true}
  - {id: c, skill: sleep, input: {ms: $.steps.a.output.slept}, parallel: true}
  - {id: d, skill: upper, input: {text: done}}
`
	rec := run(t, newGoSkills(), src, `{}`)
	if rec.Status != StatusOK {
		t.Fatalf("%s: %s", rec.Status, rec.Error)
	}
	a, b, c, d := rec.Steps[0], rec.Steps[1], rec.Steps[2], rec.Steps[3]
	// a and b overlap; c reads a, so it starts after a ends; d waits for all.
	if !a.StartedAt.Before(*b.FinishedAt) || !b.StartedAt.Before(*a.FinishedAt) {
		t.Errorf("a [%v, %v] and b [%v, %v] do not overlap", a.StartedAt, a.FinishedAt, b.StartedAt, b.FinishedAt)
	}
	if c.StartedAt.Before(*a.FinishedAt) {
		t.Errorf("c started %v before a finished %v", c.StartedAt, a.FinishedAt)
	}
	for _, s := range []StepRecord{a, b, c} {
		if d.StartedAt.Before(*s.FinishedAt) {
			t.Errorf("d started before %s finished", s.ID)
		}
	}
}

func TestParallelStopCancelsOthers(t *testing.T) {
	src := `name: par
version: 1
steps:
  - {id: slow, skill: sleep, input: {ms: 5000}, parallel: true}
  - {id: bad, skill: flaky, input: {fail: 1}, parallel: true}
`
	start := time.Now()
	rec := run(t, newGoSkills(), src, `{}`)
	// slow is cancelled mid-run (error) or before it started (cancelled).
	if rec.Status != StatusError || rec.Steps[1].Status != StatusError || rec.Steps[0].Status == StatusOK {
		t.Fatalf("run %s; steps %+v", rec.Status, rec.Steps)
	}
	if time.Since(start) > 4*time.Second {
		t.Errorf("the slow step was not cancelled when bad stopped the run")
	}
}

func TestWorkflowTimeout(t *testing.T) {
	src := `name: slow
version: 1
timeout: 300ms
steps:
  - {id: a, skill: sleep, input: {ms: 100}}
  - {id: b, skill: sleep, input: {ms: 5000}}
  - {id: c, skill: upper, input: {text: x}}
`
	rec := run(t, newGoSkills(), src, `{}`)
	if rec.Status != StatusTimeout || !strings.HasPrefix(rec.Error, "workflow timeout 300ms expired") {
		t.Fatalf("run %s: %s", rec.Status, rec.Error)
	}
	if rec.Steps[0].Status != StatusOK || rec.Steps[1].Status != StatusError || rec.Steps[2].Status != StatusCancelled {
		t.Errorf("steps %+v", rec.Steps)
	}
	if rec.DurationMS > 3000 {
		t.Errorf("run took %vms", rec.DurationMS)
	}
}

func TestMaxSteps(t *testing.T) {
	src := `name: budget
version: 1
max_steps: 3
steps:
  - {id: f, skill: flaky, input: {fail: 9}, on_error: {action: retry, max_attempts: 10, backoff: 1ms}}
`
	g := newGoSkills()
	rec := run(t, g, src, `{}`)
	if rec.Status != StatusError || g.calls["flaky"] != 3 || !strings.Contains(rec.Error, "max_steps 3 reached") {
		t.Errorf("run %s %s; calls %d", rec.Status, rec.Error, g.calls["flaky"])
	}
}

func TestInputSchema(t *testing.T) {
	src := `name: schema
version: 1
input_schema: {type: object, properties: {n: {type: integer}}, required: [n]}
steps: [{id: a, skill: inc, input: {n: $.input.n}}]
`
	g := newGoSkills()
	rec := run(t, g, src, `{"n": "five"}`)
	if rec.Status != StatusInvalidInput || rec.Error != "input does not match input_schema: /n: got string, want integer" || g.calls["inc"] != 0 {
		t.Errorf("run %s %q, calls %d", rec.Status, rec.Error, g.calls["inc"])
	}
}

func TestOutputCap(t *testing.T) {
	d := mustParse(t, "name: cap\nversion: 1\nsteps: [{id: a, skill: upper, input: {text: $.input.t}}]\n")
	rec := Run(context.Background(), d, json.RawMessage(`{"t": "`+strings.Repeat("x", 100)+`"}`), RunOptions{Executor: newGoSkills(), OutputCap: 20})
	a := rec.Steps[0]
	if !a.OutputTruncated || string(a.Output) != `"{\"length\":100,\"text\"…"` {
		t.Errorf("capped output %s", a.Output)
	}
	if len(rec.Output) < 100 {
		t.Errorf("the workflow output must not be capped: %s", rec.Output)
	}
}

func TestAttemptInInput(t *testing.T) {
	src := `name: att
version: 1
steps:
  - {id: f, skill: flaky, input: {fail: 2, seen: $.attempt}, on_error: {action: retry, max_attempts: 3, backoff: 1ms}}
output: $.steps.f.output
`
	g := newGoSkills()
	rec := run(t, g, src, `{}`)
	if rec.Status != StatusOK || string(rec.Output) != `{"call":3}` {
		t.Fatalf("%s %s %s", rec.Status, rec.Error, rec.Output)
	}
	for i, r := range g.reqs {
		if want := fmt.Sprintf(`{"fail":2,"seen":%d}`, i+1); string(r.Input) != want {
			t.Errorf("attempt %d input %s, want %s", i+1, r.Input, want)
		}
	}
}

// TestDocumentedConditions runs the conditions and paths the README shows.
func TestDocumentedConditions(t *testing.T) {
	src := `name: doc
version: 1
steps:
  - id: fetch
    skill: upper
    input: {text: x}
  - id: a
    skill: upper
    input:
      items: $.input.items[*].from
      first: $.input.items[0].subject
      urgent: $.input.items[?(@.priority > 2)]
      none: $?.input.items[?(@.priority > 9)]
    when: $.input.count > 0 && $.input.mode != "quiet"
  - {id: b, skill: upper, when: 'len($.input.items) >= 3 or $.input.force'}
  - {id: c, skill: upper, when: '($?.steps.a.output.score ?? 0) > 0.5'}
  - {id: d, skill: upper, when: 'any($.input.items, {.priority > 3})'}
  - {id: e, skill: upper, when: '$.input.mode in ["loud", "quiet"] && $.input.items[0].from matches "^boss@"'}
output:
  a: $.steps.a.status
  b: $.steps.b.status
  c: $.steps.c.status
  d: $.steps.d.status
  e: $.steps.e.status
`
	g := newGoSkills()
	in := `{"count": 2, "mode": "loud", "force": false, "items": [
	  {"subject": "s1", "from": "boss@x", "priority": 3}, {"subject": "s2", "from": "sam@x", "priority": 1}]}`
	rec := run(t, g, src, in)
	if rec.Status != StatusOK || string(rec.Output) != `{"a":"ok","b":"skipped","c":"skipped","d":"skipped","e":"ok"}` {
		t.Fatalf("%s %s %s", rec.Status, rec.Error, rec.Output)
	}
	if got := string(g.reqs[1].Input); got != `{"first":"s1","items":["boss@x","sam@x"],"none":[],"urgent":[{"from":"boss@x","priority":3,"subject":"s1"}]}` {
		t.Errorf("mapped input %s", got)
	}
}
