package composite

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	exprparser "github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"
	"github.com/ohler55/ojg/jp"
	"go.yaml.in/yaml/v3"
)

// PathRef is a JSONPath read from the run context
// {"input": …, "steps": {"<id>": {"output", "status", "error", "attempts"}}}.
type PathRef struct {
	Raw      string // as written, starting with $? when optional
	Optional bool   // nothing matched reads null (or [] for a multi-valued path)
	Step     string // the step it reads, when it starts with $.steps.<id>
	Output   bool   // it reads into that step's output
	Attempt  bool   // it is $.attempt
	expr     jp.Expr
	definite bool // selects at most one value
}

// MissingPathError is a required path that matched nothing.
type MissingPathError struct {
	Where  string // e.g. step rank input, workflow output
	Path   string
	Reason string
}

func (e *MissingPathError) Error() string {
	msg := fmt.Sprintf("%s: path %s matches nothing", e.Where, e.Path)
	if e.Reason != "" {
		msg += " (" + e.Reason + ")"
	}
	return msg + "; write it $?" + strings.TrimPrefix(e.Path, "$") + " to read null instead"
}

// skippedDepError means a required path reads the output of a skipped step.
type skippedDepError struct{ step string }

func (e *skippedDepError) Error() string { return "depends on skipped step " + e.step }

// stepFields are what $.steps.<id> holds.
var stepKeys = []string{"output", "status", "error", "attempts"}

// scope tells the path checker which steps a path may read.
type scope struct {
	p     *parser
	index int            // the reading step; len(steps) for the workflow output
	self  string         // id of the reading step
	ids   map[string]int // every step id → its index
	lines map[string]int // every step id → its line
	all   []string       // ids in order, for messages
	where string         // field being parsed, for the location
	node  *yaml.Node
	// attempt allows $.attempt: in a step's input only.
	attempt bool
}

func (s *scope) path(raw string) *PathRef {
	r := &PathRef{Raw: raw}
	src := raw
	if strings.HasPrefix(src, "$?") {
		r.Optional = true
		src = "$" + src[2:]
	}
	x, err := jp.ParseString(src)
	if err != nil {
		s.p.add(s.node, s.where, "bad JSONPath %q: %v", raw, err)
		return nil
	}
	if len(x) < 2 {
		s.p.add(s.node, s.where, "path %q must start with $.input or $.steps.<id>", raw)
		return nil
	}
	if _, ok := x[0].(jp.Root); !ok {
		s.p.add(s.node, s.where, "path %q must start with $", raw)
		return nil
	}
	r.expr = x
	r.definite = true
	for _, f := range x {
		switch f.(type) {
		case jp.Root, jp.Child, jp.Nth, jp.Bracket:
		default:
			r.definite = false
		}
	}
	switch x[1] {
	case jp.Child("input"):
	case jp.Child("attempt"):
		if !s.attempt || len(x) != 2 {
			s.p.add(s.node, s.where, "path %q: $.attempt (the attempt number, from 1) is only available as a whole in a step's input", raw)
			return nil
		}
		r.Attempt = true
	case jp.Child("steps"):
		if len(x) < 3 {
			s.p.add(s.node, s.where, "path %q must name a step: $.steps.<id>.output", raw)
			return nil
		}
		id, ok := x[2].(jp.Child)
		if !ok {
			s.p.add(s.node, s.where, "path %q must name one step by its id, e.g. $.steps.%s.output", raw, s.firstID())
			return nil
		}
		idx, known := s.ids[string(id)]
		switch {
		case !known:
			s.p.add(s.node, s.where, "path %q reads unknown step %q (steps: %s)", raw, id, strings.Join(s.all, ", "))
			return nil
		case string(id) == s.self:
			s.p.add(s.node, s.where, "path %q reads the step's own result, which does not exist yet", raw)
			return nil
		case idx >= s.index:
			s.p.add(s.node, s.where, "path %q is a forward reference to step %q (line %d), which has not run yet", raw, id, s.lines[string(id)])
			return nil
		}
		r.Step = string(id)
		if len(x) > 3 {
			key, ok := x[3].(jp.Child)
			if !ok || !contains(stepKeys, string(key)) {
				s.p.add(s.node, s.where, "path %q: after $.steps.%s use one of %s", raw, id, strings.Join(stepKeys, ", "))
				return nil
			}
			r.Output = key == "output"
		}
	default:
		s.p.add(s.node, s.where, "path %q must start with $.input or $.steps.<id>", raw)
		return nil
	}
	return r
}

func (s *scope) firstID() string {
	if len(s.all) > 0 {
		return s.all[0]
	}
	return "fetch"
}

// resolve reads r from doc. status gives a step's status, to tell a skipped
// dependency from a path that is simply wrong.
func (r *PathRef) resolve(doc map[string]any, status func(string) string, where string) (any, error) {
	if r.Step != "" && r.Output && status(r.Step) == StatusSkipped {
		if r.Optional {
			return r.empty(), nil
		}
		return nil, &skippedDepError{step: r.Step}
	}
	if r.Attempt {
		return doc["attempt"], nil
	}
	res := r.expr.Get(doc)
	if len(res) == 0 {
		if r.Optional {
			return r.empty(), nil
		}
		reason := ""
		if r.Step != "" {
			switch st := status(r.Step); st {
			case StatusOK:
			case "":
				reason = "step " + r.Step + " has not run"
			default:
				reason = "step " + r.Step + " ended with status " + st
			}
		}
		return nil, &MissingPathError{Where: where, Path: r.Raw, Reason: reason}
	}
	if r.definite {
		return res[0], nil
	}
	return res, nil
}

func (r *PathRef) empty() any {
	if r.definite {
		return nil
	}
	return []any{}
}

// Template is a JSON value in which every string starting with '$' is a
// JSONPath to resolve ("$$…" is a literal string starting with '$').
type Template struct {
	lit  any
	ref  *PathRef
	obj  map[string]*Template
	arr  []*Template
	kind byte // 'l'iteral, 'p'ath, 'o'bject, 'a'rray
}

func (p *parser) template(n *yaml.Node, where string, index int) *Template {
	s := p.scopeFor(n, where, index)
	s.attempt = index >= 0
	return p.buildTemplate(n, s, where)
}

func (p *parser) buildTemplate(n *yaml.Node, s *scope, where string) *Template {
	switch n.Kind {
	case yaml.MappingNode:
		t := &Template{kind: 'o', obj: map[string]*Template{}}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			t.obj[k] = p.buildTemplate(n.Content[i+1], s, join(where, k))
		}
		return t
	case yaml.SequenceNode:
		t := &Template{kind: 'a'}
		for i, c := range n.Content {
			t.arr = append(t.arr, p.buildTemplate(c, s, fmt.Sprintf("%s[%d]", where, i)))
		}
		return t
	case yaml.ScalarNode:
		if n.Tag == "!!str" && strings.HasPrefix(n.Value, "$") {
			if strings.HasPrefix(n.Value, "$$") {
				return &Template{kind: 'l', lit: n.Value[1:]}
			}
			s.node, s.where = n, where
			return &Template{kind: 'p', ref: s.path(n.Value)}
		}
		var v any
		if err := n.Decode(&v); err != nil {
			p.add(n, where, "%v", err)
		}
		return &Template{kind: 'l', lit: v}
	}
	p.add(n, where, "unsupported YAML node (anchors and aliases are not allowed)")
	return &Template{kind: 'l'}
}

// walkPaths calls fn for each path in t.
func (t *Template) walkPaths(fn func(*PathRef)) {
	switch t.kind {
	case 'p':
		if t.ref != nil {
			fn(t.ref)
		}
	case 'o':
		for _, c := range t.obj {
			c.walkPaths(fn)
		}
	case 'a':
		for _, c := range t.arr {
			c.walkPaths(fn)
		}
	}
}

// eval builds the value of t. Every missing path is reported, not just the first.
func (t *Template) eval(doc map[string]any, status func(string) string, where string) (any, error) {
	var errs []error
	var build func(t *Template) any
	build = func(t *Template) any {
		switch t.kind {
		case 'p':
			v, err := t.ref.resolve(doc, status, where)
			if err != nil {
				errs = append(errs, err)
			}
			return v
		case 'o':
			m := make(map[string]any, len(t.obj))
			for k, c := range t.obj {
				m[k] = build(c)
			}
			return m
		case 'a':
			a := make([]any, len(t.arr))
			for i, c := range t.arr {
				a[i] = build(c)
			}
			return a
		}
		return t.lit
	}
	v := build(t)
	if len(errs) > 0 {
		var sk *skippedDepError
		for _, e := range errs {
			if errors.As(e, &sk) {
				return nil, sk
			}
		}
		return nil, errors.Join(errs...)
	}
	return v, nil
}

// Condition is a `when` expression (expr-lang) over JSONPaths.
type Condition struct {
	Source  string
	program *vm.Program
	refs    []*PathRef
}

func (p *parser) condition(n *yaml.Node, where string, index int) *Condition {
	src, ok := p.str(n, where)
	if !ok {
		return nil
	}
	s := p.scopeFor(n, where, index)
	s.node = n
	code, raws, err := rewritePaths(src)
	if err != nil {
		p.add(n, where, "%v", err)
		return nil
	}
	c := &Condition{Source: src}
	env := types.Map{}
	bad := false
	for i, raw := range raws {
		r := s.path(raw)
		if r == nil {
			bad = true
			continue
		}
		c.refs = append(c.refs, r)
		env[pathVar(i)] = types.Any
	}
	if bad {
		return nil
	}
	if name := unknownName(code, env); name != "" {
		p.add(n, where, "bad expression %q: unknown name %s (read data with a JSONPath such as $.input.x or $.steps.<id>.output.x)", src, name)
		return nil
	}
	prog, err := expr.Compile(code, exprOptions(env)...)
	if err != nil {
		p.add(n, where, "bad expression %q: %s", src, exprMessage(err, raws))
		return nil
	}
	c.program = prog
	return c
}

// exprOptions keep conditions pure: only the paths as variables, no clock,
// no functions of the host, a bounded program.
func exprOptions(env types.Map) []expr.Option {
	return []expr.Option{
		expr.Env(env),
		expr.AsBool(),
		expr.DisableBuiltin("now"),
		expr.DisableBuiltin("date"),
		expr.DisableBuiltin("timezone"),
		expr.MaxNodes(2000),
	}
}

var exprPosRe = regexp.MustCompile(` \(\d+:\d+\)$`)

func pathVar(i int) string { return fmt.Sprintf("__path%d", i) }

// exprMessage puts the user's paths back in expr's messages.
func exprMessage(err error, raws []string) string {
	msg := err.Error()
	for i := len(raws) - 1; i >= 0; i-- {
		msg = strings.ReplaceAll(msg, pathVar(i), raws[i])
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	// Positions refer to the rewritten code, not to what the user wrote.
	return exprPosRe.ReplaceAllString(msg, "")
}

// eval runs the condition.
func (c *Condition) eval(doc map[string]any, status func(string) string, where string) (bool, error) {
	env := make(map[string]any, len(c.refs))
	for i, r := range c.refs {
		v, err := r.resolve(doc, status, where)
		if err != nil {
			return false, err
		}
		env[pathVar(i)] = v
	}
	out, err := expr.Run(c.program, env)
	if err != nil {
		raws := make([]string, len(c.refs))
		for i, r := range c.refs {
			raws[i] = r.Raw
		}
		return false, fmt.Errorf("%s: evaluate %q: %s", where, c.Source, exprMessage(err, raws))
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("%s: %q gave %v, not true or false", where, c.Source, out)
	}
	return b, nil
}

// unknownName finds a bare name that is neither a path nor a variable the
// expression declares: expr would otherwise resolve "count" to a builtin
// function and give a puzzling type error.
func unknownName(code string, env types.Map) string {
	tree, err := exprparser.Parse(code)
	if err != nil {
		return "" // Compile reports it
	}
	v := &nameVisitor{env: env, declared: map[string]bool{}, callees: map[ast.Node]bool{}}
	ast.Walk(&tree.Node, v)
	return v.unknown
}

type nameVisitor struct {
	env      types.Map
	declared map[string]bool
	callees  map[ast.Node]bool
	unknown  string
}

func (v *nameVisitor) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.VariableDeclaratorNode:
		v.declared[n.Name] = true
	case *ast.CallNode:
		v.callees[n.Callee] = true
	case *ast.IdentifierNode:
		if _, ok := v.env[n.Value]; !ok && !v.declared[n.Value] && !v.callees[*node] && v.unknown == "" {
			v.unknown = n.Value
		}
	}
}

// rewritePaths replaces each JSONPath in an expression (outside string
// literals) by a variable, returning the new code and the paths in order.
func rewritePaths(src string) (string, []string, error) {
	var out strings.Builder
	var raws []string
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			if j >= len(src) {
				return "", nil, fmt.Errorf("unterminated string starting at column %d", i+1)
			}
			out.WriteString(src[i : j+1])
			i = j + 1
		case c == '$':
			j := scanPath(src, i)
			raws = append(raws, src[i:j])
			out.WriteString(pathVar(len(raws) - 1))
			i = j
		default:
			out.WriteByte(c)
			i++
		}
	}
	return out.String(), raws, nil
}

// scanPath returns the end of the JSONPath starting at src[i] == '$'.
func scanPath(src string, i int) int {
	j := i + 1
	if j < len(src) && src[j] == '?' {
		j++
	}
	isName := func(b byte) bool {
		return b == '_' || b == '*' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for j < len(src) {
		switch src[j] {
		case '.':
			j++
			for j < len(src) && (isName(src[j]) || src[j] == '.') {
				j++
			}
		case '[':
			depth := 0
			for j < len(src) {
				b := src[j]
				if b == '\'' || b == '"' {
					k := j + 1
					for k < len(src) && src[k] != b {
						k++
					}
					j = k + 1
					continue
				}
				if b == '[' {
					depth++
				} else if b == ']' {
					depth--
					if depth == 0 {
						j++
						break
					}
				}
				j++
			}
		default:
			return j
		}
	}
	return j
}

func (p *parser) scopeFor(n *yaml.Node, where string, index int) *scope {
	s := &scope{p: p, node: n, where: where, index: index, ids: p.ids, lines: p.lines, all: p.order}
	if index < 0 {
		s.index = len(p.order)
	} else if index < len(p.order) {
		s.self = p.order[index]
	}
	return s
}

// collectIDs records every step id before the steps are parsed, so that a
// forward reference can be told from an unknown step.
func (p *parser) collectIDs(steps *yaml.Node) {
	p.ids, p.lines = map[string]int{}, map[string]int{}
	p.order = nil
	for i, sn := range steps.Content {
		id := ""
		if sn.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(sn.Content); j += 2 {
				if sn.Content[j].Value == "id" {
					id = sn.Content[j+1].Value
				}
			}
		}
		p.order = append(p.order, id)
		if _, dup := p.ids[id]; !dup && id != "" {
			p.ids[id], p.lines[id] = i, sn.Line
		}
	}
}
