package composite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Statuses of a run and of its steps.
const (
	StatusRunning      = "running"
	StatusOK           = "ok"
	StatusError        = "error"
	StatusSkipped      = "skipped"   // step: condition false, on_error skip, or a skipped dependency
	StatusCancelled    = "cancelled" // step: never started because the run ended; run: interrupted
	StatusTimeout      = "timeout"   // run: the workflow timeout expired
	StatusInvalidInput = "invalid_input"
)

// Checker tells whether a registry skill exists.
type Checker interface {
	// Check returns nil when skill (NAME or NAME@VERSION) exists, an error
	// wrapping ErrUnknownSkill when it does not, another error when it cannot tell.
	Check(ctx context.Context, skill string) error
}

// Executor runs skills for a workflow. The skill package provides the real
// one; the engine only needs these two calls.
type Executor interface {
	Checker
	// Exec runs a skill once. A skill that fails is an ExecResult with a
	// status other than ok; err is for failing to run it at all.
	Exec(ctx context.Context, req ExecRequest) (ExecResult, error)
}

// ExecRequest is one execution of a skill by a step.
type ExecRequest struct {
	// Skill is NAME, NAME@VERSION or the absolute path of a skill file.
	Skill string
	// Tool, instead of Skill, is an approved tool NAME or NAME@VERSION.
	Tool  string
	Input json.RawMessage
	// CompositeExecutionID links the skill's execution record to the run; 0 = not recorded.
	CompositeExecutionID int64
	UserID               string
}

// ExecResult is what a skill execution produced.
type ExecResult struct {
	Status      string // ok, or the skill's failure status (error, timeout, …)
	Output      json.RawMessage
	Error       string
	ExecutionID int64 // its skill_executions row, when recorded
}

// IsFileSkill tells a skill file (path separator, .js or .wasm) from a registry NAME[@VERSION].
func IsFileSkill(skill string) bool {
	return strings.ContainsRune(skill, '/') || strings.HasSuffix(skill, ".js") || strings.HasSuffix(skill, ".wasm")
}

// SkillPath is what a step's skill resolves to: a registry reference as is,
// a file relative to the definition's directory.
func (d *Definition) SkillPath(skill string) string {
	if !IsFileSkill(skill) || filepath.IsAbs(skill) {
		return skill
	}
	return filepath.Join(d.Dir, skill)
}

// Record is everything a run did: what composite_skill_executions stores
// and what `skill run --output json` prints.
type Record struct {
	ID         int64           `json:"id,omitempty"`
	Name       string          `json:"name"`
	Version    string          `json:"version"`
	SHA256     string          `json:"sha256"`
	UserID     string          `json:"user_id,omitempty"`
	Status     string          `json:"status"`
	Error      string          `json:"error,omitempty"`
	StartedAt  time.Time       `json:"started_at"`
	DurationMS float64         `json:"duration_ms"`
	Input      json.RawMessage `json:"input"`
	Output     json.RawMessage `json:"output"`
	Steps      []StepRecord    `json:"steps"`
}

// StepRecord is one step's result.
type StepRecord struct {
	ID              string          `json:"id"`
	Skill           string          `json:"skill,omitempty"`
	Tool            string          `json:"tool,omitempty"`
	Status          string          `json:"status"`
	Attempts        int             `json:"attempts"`
	StartedAt       *time.Time      `json:"started_at,omitempty"`
	FinishedAt      *time.Time      `json:"finished_at,omitempty"`
	DurationMS      float64         `json:"duration_ms"`
	Output          json.RawMessage `json:"output"`
	OutputTruncated bool            `json:"output_truncated,omitempty"`
	Error           string          `json:"error,omitempty"`
	// Reason says why a step was skipped or cancelled.
	Reason     string    `json:"reason,omitempty"`
	AttemptLog []Attempt `json:"attempt_log,omitempty"`
}

// Attempt is one execution of a step's skill.
type Attempt struct {
	StartedAt   time.Time `json:"started_at"`
	DurationMS  float64   `json:"duration_ms"`
	Status      string    `json:"status"`
	Error       string    `json:"error,omitempty"`
	ExecutionID int64     `json:"execution_id,omitempty"`
	// DelayMS is the backoff waited before this attempt.
	DelayMS float64 `json:"delay_ms,omitempty"`
}

// RunOptions configure a run.
type RunOptions struct {
	Executor Executor
	// ID is the composite_skill_executions row the skills link to; 0 = not recorded.
	ID     int64
	UserID string
	// OutputCap bounds each step's output in the record (bytes); 0 = 64 KiB.
	OutputCap int
	// Jitter draws from [0, 1); nil uses math/rand.
	Jitter func() float64
}

// DefaultOutputCap bounds a step's output kept in the record.
const DefaultOutputCap = 64 << 10

var null = json.RawMessage("null")

// Run executes the workflow on input and returns its record. It never
// returns early without one: a failure is the record's Status and Error.
func Run(ctx context.Context, d *Definition, input json.RawMessage, o RunOptions) *Record {
	start := time.Now()
	rec := &Record{ID: o.ID, Name: d.Name, Version: d.Version, SHA256: d.SHA256, UserID: o.UserID,
		Status: StatusRunning, StartedAt: start.UTC(), Input: input, Output: null}
	rec.Steps = make([]StepRecord, len(d.Steps))
	for i, st := range d.Steps {
		rec.Steps[i] = StepRecord{ID: st.ID, Skill: st.Skill, Tool: st.Tool, Status: StatusCancelled, Output: null, Reason: "the run ended before this step"}
	}
	defer func() { rec.DurationMS = ms(time.Since(start)) }()

	if err := d.ValidateInput(input); err != nil {
		rec.Status, rec.Error = StatusInvalidInput, err.Error()
		rec.Steps = markNotRun(rec.Steps, "the input was invalid")
		return rec
	}
	var in any
	if err := json.Unmarshal(input, &in); err != nil {
		rec.Status, rec.Error = StatusInvalidInput, "input is not JSON: "+err.Error()
		rec.Steps = markNotRun(rec.Steps, "the input was invalid")
		return rec
	}
	wctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	r := &runner{d: d, o: o, rec: rec, state: map[string]map[string]any{}, input: in}
	if r.o.OutputCap <= 0 {
		r.o.OutputCap = DefaultOutputCap
	}
	if r.o.Jitter == nil {
		r.o.Jitter = rand.Float64
	}

	var stopErr error
	for i := 0; i < len(d.Steps) && stopErr == nil; {
		j := i + 1
		if d.Steps[i].Parallel {
			for j < len(d.Steps) && d.Steps[j].Parallel {
				j++
			}
		}
		stopErr = r.group(wctx, d.Steps[i:j])
		i = j
	}

	switch {
	case ctx.Err() != nil:
		rec.Status, rec.Error = StatusCancelled, "interrupted: "+context.Cause(ctx).Error()
	case wctx.Err() != nil:
		rec.Status = StatusTimeout
		rec.Error = fmt.Sprintf("workflow timeout %s expired", d.Timeout)
		if stopErr != nil {
			rec.Error += " (" + stopErr.Error() + ")"
		}
	case stopErr != nil:
		rec.Status, rec.Error = StatusError, stopErr.Error()
	default:
		out, err := r.output()
		if err != nil {
			rec.Status, rec.Error = StatusError, err.Error()
			break
		}
		rec.Status, rec.Output = StatusOK, out
	}
	return rec
}

func markNotRun(steps []StepRecord, reason string) []StepRecord {
	for i := range steps {
		steps[i].Reason = reason
	}
	return steps
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

type runner struct {
	d     *Definition
	o     RunOptions
	rec   *Record
	input any
	execs atomic.Int64 // skill executions so far, for max_steps

	mu    sync.RWMutex
	state map[string]map[string]any // step id → output, status, error, attempts
}

// doc is the context paths read: a snapshot, safe against concurrent steps.
func (r *runner) doc() map[string]any {
	r.mu.RLock()
	defer r.mu.RUnlock()
	steps := make(map[string]any, len(r.state))
	for k, v := range r.state {
		steps[k] = v
	}
	return map[string]any{"input": r.input, "steps": steps}
}

func (r *runner) status(id string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if s, ok := r.state[id]; ok {
		return s["status"].(string)
	}
	return ""
}

func (r *runner) finish(i int, sr StepRecord, out any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	entry := map[string]any{"output": out, "status": sr.Status, "attempts": sr.Attempts}
	if sr.Error != "" {
		entry["error"] = sr.Error
	} else {
		entry["error"] = nil
	}
	r.state[sr.ID] = entry
	r.rec.Steps[i] = sr
}

// group runs consecutive steps: one ordinary step, or a run of parallel
// steps where each waits only for the steps of the group it reads. It
// returns the error that stops the workflow, if any.
func (r *runner) group(ctx context.Context, steps []*Step) error {
	if len(steps) == 1 {
		return r.step(ctx, steps[0])
	}
	gctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, r.d.MaxParallel)
	done := make(map[string]chan struct{}, len(steps))
	for _, st := range steps {
		done[st.ID] = make(chan struct{})
	}
	var wg sync.WaitGroup
	for _, st := range steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[st.ID])
			for dep := range st.deps {
				if ch, in := done[dep]; in {
					select {
					case <-ch:
					case <-gctx.Done():
						return
					}
				}
			}
			select {
			case sem <- struct{}{}:
			case <-gctx.Done():
				return
			}
			defer func() { <-sem }()
			if gctx.Err() != nil {
				return
			}
			if err := r.step(gctx, st); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(gctx); err != nil && ctx.Err() == nil {
		return err
	}
	return ctx.Err()
}

// stepError stops the workflow.
type stepError struct {
	id  string
	err string
}

func (e *stepError) Error() string { return "step " + e.id + ": " + e.err }

// step runs one step with its condition and error policy.
func (r *runner) step(ctx context.Context, st *Step) error {
	where := "step " + st.ID
	sr := StepRecord{ID: st.ID, Skill: st.Skill, Tool: st.Tool, Output: null}
	skip := func(reason string) error {
		sr.Status, sr.Reason = StatusSkipped, reason
		r.finish(st.index, sr, nil)
		return nil
	}
	fail := func(msg string) error {
		sr.Error = msg
		action := st.OnError.Action
		if action == ActionRetry {
			action = st.OnError.Then
		}
		if ctx.Err() != nil {
			action = ActionStop
		}
		switch action {
		case ActionContinue:
			sr.Status = StatusError
			r.finish(st.index, sr, nil)
			return nil
		case ActionSkip:
			sr.Status, sr.Reason = StatusSkipped, "on_error: skip"
			r.finish(st.index, sr, nil)
			return nil
		}
		sr.Status = StatusError
		r.finish(st.index, sr, nil)
		return &stepError{id: st.ID, err: msg}
	}
	var sk *skippedDepError
	doc := r.doc()
	if st.When != nil {
		ok, err := st.When.eval(doc, r.status, where+" when")
		switch {
		case errors.As(err, &sk):
			return skip(sk.Error())
		case err != nil:
			return fail(err.Error())
		case !ok:
			return skip("condition is false: " + st.When.Source)
		}
	}
	// The input is built before the first attempt; again before each retry
	// when it reads $.attempt.
	input := func(attempt int) (json.RawMessage, error) {
		if st.Input == nil {
			return json.Marshal(r.input)
		}
		doc["attempt"] = attempt
		v, err := st.Input.eval(doc, r.status, where+" input")
		if err != nil {
			return nil, err
		}
		return json.Marshal(v)
	}
	in, err := input(1)
	switch {
	case errors.As(err, &sk):
		return skip(sk.Error())
	case err != nil:
		return fail(err.Error())
	}
	usesAttempt := false
	if st.Input != nil {
		st.Input.walkPaths(func(p *PathRef) { usesAttempt = usesAttempt || p.Attempt })
	}

	started := time.Now()
	sr.StartedAt = ptr(started.UTC())
	maxAttempts := 1
	if st.OnError.Action == ActionRetry {
		maxAttempts = st.OnError.MaxAttempts
	}
	var delay time.Duration
	var lastErr string
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		if attempt > 1 {
			delay = st.OnError.Delay(attempt - 1)
			if st.OnError.Jitter {
				delay = delay/2 + time.Duration(r.o.Jitter()*float64(delay/2))
			}
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				r.stamp(&sr, started)
				return fail(lastErr + " (no further attempt: " + context.Cause(ctx).Error() + ")")
			}
		}
		if attempt > 1 && usesAttempt {
			if in, err = input(attempt); err != nil {
				r.stamp(&sr, started)
				return fail(err.Error())
			}
		}
		if n := r.execs.Add(1); n > int64(r.d.MaxSteps) {
			r.stamp(&sr, started)
			sr.Error = fmt.Sprintf("max_steps %d reached: no more skill executions in this run", r.d.MaxSteps)
			sr.Status = StatusError
			r.finish(st.index, sr, nil)
			return &stepError{id: st.ID, err: sr.Error}
		}
		res, out, err := r.exec(ctx, st, in)
		a := Attempt{StartedAt: res.started.UTC(), DurationMS: ms(res.took), Status: res.Status,
			Error: res.Error, ExecutionID: res.ExecutionID, DelayMS: ms(delay)}
		sr.AttemptLog = append(sr.AttemptLog, a)
		sr.Attempts = attempt
		if err == nil {
			r.stamp(&sr, started)
			sr.Status = StatusOK
			sr.Output, sr.OutputTruncated = capJSON(res.Output, r.o.OutputCap)
			r.finish(st.index, sr, out)
			return nil
		}
		lastErr = err.Error()
		if ctx.Err() != nil {
			break
		}
	}
	r.stamp(&sr, started)
	if maxAttempts > 1 {
		lastErr = fmt.Sprintf("%s (after %d attempts)", lastErr, sr.Attempts)
	}
	return fail(lastErr)
}

func (r *runner) stamp(sr *StepRecord, started time.Time) {
	sr.FinishedAt = ptr(time.Now().UTC())
	sr.DurationMS = ms(time.Since(started))
}

type execOutcome struct {
	ExecResult
	started time.Time
	took    time.Duration
}

// exec runs one attempt; err is nil only for an ok result with JSON output.
func (r *runner) exec(ctx context.Context, st *Step, in json.RawMessage) (execOutcome, any, error) {
	actx := ctx
	if st.Timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, st.Timeout)
		defer cancel()
	}
	o := execOutcome{started: time.Now()}
	req := ExecRequest{Skill: r.d.SkillPath(st.Skill), Input: in, CompositeExecutionID: r.o.ID, UserID: r.o.UserID}
	if st.Tool != "" {
		req.Skill, req.Tool = "", st.Tool
	}
	res, err := r.o.Executor.Exec(actx, req)
	o.took = time.Since(o.started)
	o.ExecResult = res
	if err != nil {
		o.Status, o.Error = StatusError, err.Error()
		return o, nil, err
	}
	if res.Status != StatusOK {
		msg := res.Error
		if msg == "" {
			msg = "skill failed"
		}
		if st.Timeout > 0 && actx.Err() != nil && ctx.Err() == nil {
			msg += fmt.Sprintf(" (step timeout %s)", st.Timeout)
		}
		return o, nil, fmt.Errorf("%s: %s", res.Status, msg)
	}
	var out any
	if len(res.Output) == 0 {
		o.Output = null
	} else if err := json.Unmarshal(res.Output, &out); err != nil {
		o.Status, o.Error = StatusError, "output is not JSON: "+err.Error()
		return o, nil, errors.New(o.Error)
	}
	return o, out, nil
}

// capJSON keeps a step's output in the record within limit bytes; a longer
// one becomes a JSON string holding its beginning.
func capJSON(raw json.RawMessage, limit int) (json.RawMessage, bool) {
	if len(raw) == 0 {
		return null, false
	}
	if len(raw) <= limit {
		return raw, false
	}
	b, _ := json.Marshal(string(raw[:limit]) + "…")
	return b, true
}

func (r *runner) output() (json.RawMessage, error) {
	if r.d.Output == nil {
		last := r.d.Steps[len(r.d.Steps)-1]
		r.mu.RLock()
		defer r.mu.RUnlock()
		if s, ok := r.state[last.ID]; ok {
			return json.Marshal(s["output"])
		}
		return null, nil
	}
	v, err := r.d.Output.eval(r.doc(), r.status, "workflow output")
	if err != nil {
		var sk *skippedDepError
		if errors.As(err, &sk) {
			return nil, fmt.Errorf("workflow output: reads the output of skipped step %s; make the path optional with $? ($?.steps.%[1]s.output…)", sk.step)
		}
		return nil, err
	}
	return json.Marshal(v)
}

func ptr[T any](v T) *T { return &v }
