// Package composite runs composite skills: workflows whose steps run skills,
// map data between them with JSONPath, branch on safe expressions and retry.
package composite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/helixhq/helix/internal/third_party/jsonschema"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Defaults and hard ceilings of the workflow limits.
const (
	DefaultTimeout     = 5 * time.Minute
	DefaultMaxSteps    = 100
	DefaultMaxParallel = 4
	maxMaxSteps        = 10000
	maxMaxParallel     = 64
)

// Definition is a parsed, checked composite skill.
type Definition struct {
	Name        string
	Version     string
	Description string
	// InputSchema validates the workflow input; nil accepts anything.
	InputSchema *jsonschema.Schema
	Steps       []*Step
	// Output builds the workflow's result; nil means the output of the last step.
	Output      *Template
	Timeout     time.Duration
	MaxSteps    int
	MaxParallel int

	// File names the source in messages; Dir resolves skills given as files.
	File string
	Dir  string
	// JSON is the definition as a JSON document (what composite_skills stores).
	JSON json.RawMessage
	// SHA256 is the hex digest of JSON.
	SHA256 string
}

// Step is one step of a workflow.
type Step struct {
	ID    string
	Skill string
	// Tool is an approved tool (NAME[@VERSION]) the step runs instead of a skill.
	Tool     string
	Input    *Template
	When     *Condition
	OnError  OnError
	Parallel bool
	// Timeout bounds one attempt of this step, on top of the skill's own limit; 0 = none.
	Timeout time.Duration
	Line    int
	// skillLine and skillCol locate the skill field in messages.
	skillLine, skillCol int
	index               int
	// deps are the earlier steps this step reads (input and condition).
	deps map[string]bool
}

// Error actions.
const (
	ActionStop     = "stop"
	ActionContinue = "continue"
	ActionSkip     = "skip"
	ActionRetry    = "retry"
)

// OnError is a step's error policy.
type OnError struct {
	Action string // stop, continue, skip or retry
	// Retry settings, used when Action is retry.
	MaxAttempts int           // attempts in all, the first included
	Backoff     time.Duration // delay before the second attempt
	Factor      float64       // each further delay is multiplied by Factor
	MaxDelay    time.Duration // ceiling of one delay; 0 = none
	Jitter      bool          // delay drawn uniformly from [d/2, d]
	Then        string        // stop, continue or skip once attempts run out
}

// Delay is the wait before attempt n+1 (n ≥ 1) without jitter.
func (o OnError) Delay(n int) time.Duration {
	d := float64(o.Backoff)
	for i := 1; i < n; i++ {
		d *= o.Factor
		if o.MaxDelay > 0 && d > float64(o.MaxDelay) {
			break
		}
	}
	if o.MaxDelay > 0 && d > float64(o.MaxDelay) {
		return o.MaxDelay
	}
	return time.Duration(d)
}

// Problem is one thing wrong with a definition, with its location.
type Problem struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"column"`
	// Where is the field, e.g. steps[1] (rank).input.items.
	Where   string `json:"where"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
	if p.Where == "" {
		return loc + ": " + p.Message
	}
	return loc + ": " + p.Where + ": " + p.Message
}

// InvalidError lists every problem found in a definition.
type InvalidError struct {
	Problems []Problem
}

func (e *InvalidError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	noun := "problems"
	if len(lines) == 1 {
		noun = "problem"
	}
	return fmt.Sprintf("invalid composite skill (%d %s):\n  %s", len(lines), noun, strings.Join(lines, "\n  "))
}

var (
	stepIDRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	nameRe   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// parser collects problems while it decodes the YAML tree.
type parser struct {
	file  string
	probs []Problem
	// Step ids by position, filled before the steps are parsed.
	ids, lines map[string]int
	order      []string
}

func (p *parser) add(n *yaml.Node, where, format string, args ...any) {
	pr := Problem{File: p.file, Where: where, Message: fmt.Sprintf(format, args...)}
	if n != nil {
		pr.Line, pr.Col = n.Line, n.Column
	}
	p.probs = append(p.probs, pr)
}

// Parse decodes and checks a definition in YAML or JSON. file names it in
// messages and dir resolves skills given as file paths. Every problem found
// is reported at once in an *InvalidError, returned with what could be
// parsed (nil for a syntax error) so that CheckSkills can add its own.
func Parse(src []byte, file, dir string) (*Definition, error) {
	p := &parser{file: file}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		p.probs = append(p.probs, yamlProblem(file, src, err))
		return nil, &InvalidError{Problems: p.probs}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		p.add(nil, "", "empty definition: expected name, version and steps")
		return nil, &InvalidError{Problems: p.probs}
	}
	root := doc.Content[0]
	d := &Definition{File: file, Dir: dir, Timeout: DefaultTimeout, MaxSteps: DefaultMaxSteps, MaxParallel: DefaultMaxParallel}
	p.definition(root, d)
	if len(p.probs) > 0 {
		return d, &InvalidError{Problems: p.probs}
	}
	var v any
	if err := root.Decode(&v); err != nil {
		return nil, err
	}
	js, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	d.JSON = js
	sum := sha256.Sum256(js)
	d.SHA256 = hex.EncodeToString(sum[:])
	return d, nil
}

var yamlLineRe = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func yamlProblem(file string, src []byte, err error) Problem {
	msg := err.Error()
	m := yamlLineRe.FindStringSubmatch(msg)
	if m == nil {
		return Problem{File: file, Message: "syntax: " + strings.TrimPrefix(msg, "yaml: ")}
	}
	var line int
	fmt.Sscan(m[1], &line)
	msg = m[2]
	// yaml.v3 numbers the lines of parser errors (not scanner errors) from 0.
	if strings.HasPrefix(msg, "did not find expected") {
		line++
	}
	lines := strings.Split(string(src), "\n")
	if line >= 1 && line <= len(lines) && strings.Contains(lines[line-1], "$?") {
		msg += ": inside { } or [ ], quote a path that starts with $? ('$?.steps.x.output')"
	}
	return Problem{File: file, Line: line, Col: 1, Message: "syntax: " + msg}
}

// fields checks that n is a mapping with only known keys and returns its values by key.
func (p *parser) fields(n *yaml.Node, where string, known ...string) map[string]*yaml.Node {
	if n.Kind != yaml.MappingNode {
		p.add(n, where, "expected a mapping, got %s", kindName(n))
		return nil
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if !contains(known, key) {
			p.add(k, where, "unknown field %q (known: %s)", key, strings.Join(known, ", "))
			continue
		}
		if _, dup := out[key]; dup {
			p.add(k, where, "field %q given twice", key)
			continue
		}
		out[key] = v
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		}
		return n.Value
	}
	return "nothing"
}

func join(where, field string) string {
	if where == "" {
		return field
	}
	return where + "." + field
}

func (p *parser) str(n *yaml.Node, where string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.add(n, where, "expected a string, got %s", kindName(n))
		return "", false
	}
	return n.Value, true
}

func (p *parser) boolean(n *yaml.Node, where string) bool {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		p.add(n, where, "expected true or false, got %s", kindName(n))
		return false
	}
	return n.Value == "true"
}

func (p *parser) integer(n *yaml.Node, where string, lo, hi int) (int, bool) {
	var v int
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&v) != nil {
		p.add(n, where, "expected an integer, got %s", kindName(n))
		return 0, false
	}
	if v < lo || v > hi {
		p.add(n, where, "%d is out of range [%d, %d]", v, lo, hi)
		return 0, false
	}
	return v, true
}

func (p *parser) number(n *yaml.Node, where string, lo float64) (float64, bool) {
	var v float64
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") || n.Decode(&v) != nil {
		p.add(n, where, "expected a number, got %s", kindName(n))
		return 0, false
	}
	if v < lo {
		p.add(n, where, "%g is below the minimum %g", v, lo)
		return 0, false
	}
	return v, true
}

// duration accepts Go durations ("1.5s", "2m") or a number of seconds.
func (p *parser) duration(n *yaml.Node, where string) (time.Duration, bool) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
		var secs float64
		if n.Decode(&secs) == nil && secs >= 0 {
			return time.Duration(secs * float64(time.Second)), true
		}
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		d, err := time.ParseDuration(n.Value)
		if err == nil && d >= 0 {
			return d, true
		}
	}
	p.add(n, where, "expected a duration such as 500ms, 2s or 1m30s, got %s", kindName(n))
	return 0, false
}

var topFields = []string{"name", "version", "description", "input_schema", "steps", "output", "timeout", "max_steps", "max_parallel"}

func (p *parser) definition(n *yaml.Node, d *Definition) {
	f := p.fields(n, "", topFields...)
	if f == nil {
		return
	}
	for _, req := range []string{"name", "version", "steps"} {
		if f[req] == nil {
			p.add(n, "", "missing required field %q", req)
		}
	}
	if v := f["name"]; v != nil {
		if s, ok := p.str(v, "name"); ok {
			if !nameRe.MatchString(s) {
				p.add(v, "name", "invalid name %q: use letters, digits, '.', '_' and '-'", s)
			}
			d.Name = s
		}
	}
	if v := f["version"]; v != nil {
		if s, ok := p.str(v, "version"); ok {
			if !nameRe.MatchString(s) {
				p.add(v, "version", "invalid version %q: use letters, digits, '.', '_' and '-'", s)
			}
			d.Version = s
		}
	}
	if v := f["description"]; v != nil {
		d.Description, _ = p.str(v, "description")
	}
	if v := f["timeout"]; v != nil {
		if t, ok := p.duration(v, "timeout"); ok {
			if t == 0 {
				p.add(v, "timeout", "timeout must be positive")
			}
			d.Timeout = t
		}
	}
	if v := f["max_steps"]; v != nil {
		d.MaxSteps, _ = p.integer(v, "max_steps", 1, maxMaxSteps)
	}
	if v := f["max_parallel"]; v != nil {
		d.MaxParallel, _ = p.integer(v, "max_parallel", 1, maxMaxParallel)
	}
	if v := f["input_schema"]; v != nil {
		d.InputSchema = p.schema(v, "input_schema")
	}
	steps := map[string]*Step{}
	p.ids, p.lines = map[string]int{}, map[string]int{}
	if v := f["steps"]; v != nil {
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			p.add(v, "steps", "expected a non-empty list of steps, got %s", kindName(v))
		} else {
			if d.MaxSteps > 0 && len(v.Content) > d.MaxSteps {
				p.add(v, "steps", "%d steps exceed max_steps %d", len(v.Content), d.MaxSteps)
			}
			p.collectIDs(v)
			for i, sn := range v.Content {
				st := p.step(sn, i, steps)
				if st != nil {
					d.Steps = append(d.Steps, st)
					if st.ID != "" && steps[st.ID] == nil {
						steps[st.ID] = st
					}
				}
			}
		}
	}
	if v := f["output"]; v != nil {
		d.Output = p.template(v, "output", -1)
	}
}

var stepFields = []string{"id", "skill", "tool", "input", "when", "on_error", "parallel", "timeout"}

func (p *parser) step(n *yaml.Node, i int, seen map[string]*Step) *Step {
	where := fmt.Sprintf("steps[%d]", i)
	st := &Step{Line: n.Line, index: i, OnError: OnError{Action: ActionStop}, deps: map[string]bool{}}
	if n.Kind == yaml.MappingNode {
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == "id" && n.Content[j+1].Kind == yaml.ScalarNode {
				where = fmt.Sprintf("steps[%d] (%s)", i, n.Content[j+1].Value)
			}
		}
	}
	f := p.fields(n, where, stepFields...)
	if f == nil {
		return nil
	}
	if v := f["id"]; v == nil {
		p.add(n, where, "missing required field \"id\"")
	} else if s, ok := p.str(v, join(where, "id")); ok {
		switch {
		case !stepIDRe.MatchString(s):
			p.add(v, join(where, "id"), "invalid step id %q: use letters, digits and '_', not starting with a digit (ids appear in paths such as $.steps.%s.output)", s, s)
		case seen[s] != nil:
			p.add(v, join(where, "id"), "duplicate step id %q (first used at line %d)", s, seen[s].Line)
		}
		st.ID = s
	}
	switch sk, tl := f["skill"], f["tool"]; {
	case sk == nil && tl == nil:
		p.add(n, where, "missing required field \"skill\" (or \"tool\")")
	case sk != nil && tl != nil:
		p.add(tl, join(where, "tool"), "a step runs a skill or a tool, not both")
	case sk != nil:
		if s, ok := p.str(sk, join(where, "skill")); ok {
			st.Skill, st.skillLine, st.skillCol = s, sk.Line, sk.Column
		}
	default:
		if s, ok := p.str(tl, join(where, "tool")); ok {
			st.Tool, st.skillLine, st.skillCol = s, tl.Line, tl.Column
		}
	}
	if v := f["parallel"]; v != nil {
		st.Parallel = p.boolean(v, join(where, "parallel"))
	}
	if v := f["timeout"]; v != nil {
		st.Timeout, _ = p.duration(v, join(where, "timeout"))
	}
	// A step may read the steps before it; inside a run of parallel steps it
	// then waits for the ones it reads.
	if v := f["input"]; v != nil {
		st.Input = p.template(v, join(where, "input"), i)
	}
	if v := f["when"]; v != nil {
		st.When = p.condition(v, join(where, "when"), i)
	}
	if v := f["on_error"]; v != nil {
		st.OnError = p.onError(v, join(where, "on_error"))
	}
	if st.Input != nil {
		st.Input.walkPaths(st.addDep)
	}
	if st.When != nil {
		for _, r := range st.When.refs {
			st.addDep(r)
		}
	}
	return st
}

func (st *Step) addDep(r *PathRef) {
	if r.Step != "" {
		st.deps[r.Step] = true
	}
}

var onErrorFields = []string{"action", "max_attempts", "backoff", "factor", "max_delay", "jitter", "then"}

func (p *parser) onError(n *yaml.Node, where string) OnError {
	o := OnError{Action: ActionStop, MaxAttempts: 3, Backoff: time.Second, Factor: 2, Then: ActionStop}
	// on_error: continue is short for on_error: {action: continue}.
	if n.Kind == yaml.ScalarNode {
		if s, ok := p.str(n, where); ok {
			o.Action = p.action(n, where, s, true)
		}
		return o
	}
	f := p.fields(n, where, onErrorFields...)
	if f == nil {
		return o
	}
	if v := f["action"]; v != nil {
		if s, ok := p.str(v, join(where, "action")); ok {
			o.Action = p.action(v, join(where, "action"), s, true)
		}
	}
	retryOnly := []string{"max_attempts", "backoff", "factor", "max_delay", "jitter", "then"}
	if o.Action != ActionRetry {
		for _, k := range retryOnly {
			if v := f[k]; v != nil {
				p.add(v, join(where, k), "%s applies only to action: retry (the action is %s)", k, o.Action)
			}
		}
		return o
	}
	if v := f["max_attempts"]; v != nil {
		o.MaxAttempts, _ = p.integer(v, join(where, "max_attempts"), 1, 100)
	}
	if v := f["backoff"]; v != nil {
		o.Backoff, _ = p.duration(v, join(where, "backoff"))
	}
	if v := f["factor"]; v != nil {
		o.Factor, _ = p.number(v, join(where, "factor"), 1)
	}
	if v := f["max_delay"]; v != nil {
		o.MaxDelay, _ = p.duration(v, join(where, "max_delay"))
	}
	if v := f["jitter"]; v != nil {
		o.Jitter = p.boolean(v, join(where, "jitter"))
	}
	if v := f["then"]; v != nil {
		if s, ok := p.str(v, join(where, "then")); ok {
			o.Then = p.action(v, join(where, "then"), s, false)
		}
	}
	return o
}

func (p *parser) action(n *yaml.Node, where, s string, retry bool) string {
	valid := []string{ActionStop, ActionContinue, ActionSkip}
	if retry {
		valid = append(valid, ActionRetry)
	}
	if !contains(valid, s) {
		p.add(n, where, "unknown action %q: use %s", s, strings.Join(valid, ", "))
		return ActionStop
	}
	return s
}

// schema compiles a JSON Schema given inline. Remote references are refused.
func (p *parser) schema(n *yaml.Node, where string) *jsonschema.Schema {
	var v any
	if err := n.Decode(&v); err != nil {
		p.add(n, where, "%v", err)
		return nil
	}
	sch, err := compileSchema(v)
	if err != nil {
		p.add(n, where, "invalid JSON Schema: %s", deepest(err.Error()))
		return nil
	}
	return sch
}

func compileSchema(v any) (*jsonschema.Schema, error) {
	// Round-trip through JSON: the compiler wants JSON-decoded values.
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const loc = "composite://input_schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// deepest keeps the innermost lines of the schema library's indented,
// multi-line messages: they say what is wrong.
func deepest(msg string) string {
	lines := strings.Split(msg, "\n")
	depth, keep := -1, []string(nil)
	for _, l := range lines[1:] {
		d := len(l) - len(strings.TrimLeft(l, " "))
		l = strings.TrimPrefix(strings.TrimSpace(l), "- ")
		switch {
		case d > depth:
			depth, keep = d, []string{l}
		case d == depth:
			keep = append(keep, l)
		}
	}
	if keep == nil {
		return msg
	}
	return strings.Join(keep, "; ")
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("remote schema %s refused: inline every definition", url)
}

// ValidateInput checks a workflow input against the input schema.
func (d *Definition) ValidateInput(input json.RawMessage) error {
	if d.InputSchema == nil {
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(input)))
	if err != nil {
		return fmt.Errorf("input is not JSON: %w", err)
	}
	if err := d.InputSchema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if ok := asValidation(err, &ve); ok {
			return fmt.Errorf("input does not match input_schema: %s", flatten(ve))
		}
		return fmt.Errorf("input does not match input_schema: %w", err)
	}
	return nil
}

func asValidation(err error, ve **jsonschema.ValidationError) bool {
	v, ok := err.(*jsonschema.ValidationError)
	if ok {
		*ve = v
	}
	return ok
}

var englishPrinter = message.NewPrinter(language.English)

// flatten lists the leaf causes as "/path: message".
func flatten(ve *jsonschema.ValidationError) string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, "/"+strings.Join(e.InstanceLocation, "/")+": "+e.ErrorKind.LocalizedString(englishPrinter))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	return strings.Join(out, "; ")
}
