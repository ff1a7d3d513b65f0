package manifest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/Masterminds/semver/v3"
	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
)

// OpenAPIOptions steer the conversion of an OpenAPI document into tools.
type OpenAPIOptions struct {
	Include []string // keep only operations with one of these tags or operationIds
	Exclude []string // drop operations with one of these tags or operationIds
	Server  string   // overrides the document's server URL
	BaseURL string   // where the document was fetched from, to resolve a relative server URL
	Timeout string   // permissions.timeout of every tool ("" for none)
	// Namespace prefixes every tool name ("ns.operationId") so that two APIs
	// with the same operationIds (every pet store has listPets) can be
	// recorded side by side. "" takes it from info.title; "none" means no prefix.
	Namespace string
	// Budget bounds the schema values all the document's tools may expand
	// to ($refs inlined); 0 is DefaultBudget(size of the document).
	Budget int

	onPhase func(phase string) // tests: called as each phase of an import starts
}

// Phases of an import, in order ("validate" runs beside "build" and "compile").
const (
	phaseDecode   = "decode"
	phaseRefs     = "refs"
	phaseConvert  = "convert"
	phaseValidate = "validate"
	phaseBuild    = "build"
	phaseCompile  = "compile"
)

// enter starts a phase: it tells a test, then says whether ctx has ended.
func (o OpenAPIOptions) enter(ctx context.Context, source, phase string) error {
	if o.onPhase != nil {
		o.onPhase(phase)
	}
	if ctx.Err() != nil {
		return deadlineError(source, ctx)
	}
	return nil
}

// interruptible runs f, but returns ctx's error as soon as ctx ends: the
// steps that cannot look at ctx themselves (decoding, converting a Swagger
// document) then finish unobserved, and the process need not wait for them.
func interruptible[T any](ctx context.Context, source string, f func() (T, error)) (T, error) {
	type out struct {
		v   T
		err error
	}
	c := make(chan out, 1)
	go func() {
		v, err := f()
		c <- out{v, err}
	}()
	select {
	case o := <-c:
		return o.v, o.err
	case <-ctx.Done():
		var zero T
		return zero, deadlineError(source, ctx)
	}
}

// OpenAPIFormat is the version of the conversion of OpenAPI operations into
// manifests, recorded in each one (Manifest.Format). Raise it when the same
// document would yield other manifests: a re-import then re-records the
// tools of an older format instead of refusing them as changed (Record).
//   - 0 (none recorded): before this field; the namespace was not recorded
//     (before issue 31) and response schemas were expanded fully or one
//     reference deep.
//   - 2: namespace recorded; response schemas expanded several references deep.
const OpenAPIFormat = 2

// NoNamespace is the OpenAPIOptions.Namespace that keeps bare operationIds.
const NoNamespace = "none"

// DefaultBudget is the expansion budget of a document of size bytes. Real
// documents expand far less than their size (the OpenAI description, 3 MB,
// to 68,000 values for its 288 operations); a few kilobytes of exponentially
// fanned-out $refs would expand to billions.
func DefaultBudget(size int) int { return 100_000 + 10*size }

// BudgetError is a document whose $refs expand to more than the budget.
type BudgetError struct {
	Source string
	Budget int
	Tools  int // tools built before the budget ran out
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("%s: the operations' schemas expand ($refs inlined) to more than %d values after %d tools: "+
		"import fewer operations with --include/--exclude, or raise --expansion-budget", e.Source, e.Budget, e.Tools)
}

// OpenAPIResult is what a document yields.
type OpenAPIResult struct {
	OpenAPI  string      `json:"openapi"` // the document's version, e.g. 3.1.0 or 2.0
	Tools    []*Manifest `json:"-"`
	Skipped  []string    `json:"skipped,omitempty"` // operations left out by --include/--exclude
	Warnings []Warning   `json:"warnings,omitempty"`
}

// IsOpenAPI reports whether the tree is an OpenAPI (or Swagger) document.
func IsOpenAPI(tree any) bool {
	m, ok := tree.(map[string]any)
	if !ok {
		return false
	}
	_, a := m["openapi"]
	_, s := m["swagger"]
	return a || s
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// FromOpenAPI turns every operation of an OpenAPI 3.0/3.1 (or Swagger 2.0)
// document into one tool. Structural problems (external or dangling $refs,
// $ref cycles with nothing in between, an unloadable document) are errors;
// validation findings that leave a tool buildable are warnings.
func FromOpenAPI(ctx context.Context, d *Document, o OpenAPIOptions) (*OpenAPIResult, error) {
	root := d.Tree.(map[string]any)
	if err := o.enter(ctx, d.Source, phaseRefs); err != nil {
		return nil, err
	}
	if _, err := interruptible(ctx, d.Source, func() (struct{}, error) { return struct{}{}, checkRefs(d) }); err != nil {
		return nil, err
	}
	res := &OpenAPIResult{}
	if v, ok := root["swagger"]; ok {
		res.OpenAPI = fmt.Sprint(v)
		if err := o.enter(ctx, d.Source, phaseConvert); err != nil {
			return nil, err
		}
		conv, err := interruptible(ctx, d.Source, func() (*Document, error) { return convertV2(d) })
		if err != nil {
			return nil, err
		}
		d, root = conv, conv.Tree.(map[string]any)
	} else {
		res.OpenAPI = fmt.Sprint(root["openapi"])
		if !strings.HasPrefix(res.OpenAPI, "3.") {
			return nil, d.Errorf("/openapi", "unsupported OpenAPI version %q: use 2.0, 3.0 or 3.1", res.OpenAPI)
		}
	}
	// kin-openapi loads and validates the document before the tools are
	// built, not beside them: its own copy of a large document (graph.json:
	// ~200 MB) is then gone before the tools and their schemas are made, and
	// the live heap stays near the larger of the two rather than their sum.
	if err := o.enter(ctx, d.Source, phaseValidate); err != nil {
		return nil, err
	}
	kinWarnings, err := interruptible(ctx, d.Source, func() ([]Warning, error) {
		ws, err := kinValidate(ctx, root)
		if ctx.Err() != nil {
			return nil, deadlineError(d.Source, ctx)
		}
		if err != nil {
			return nil, &Error{Source: d.Source, Msg: err.Error()}
		}
		return ws, nil
	})
	if err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, kinWarnings...)

	budget := o.Budget
	if budget <= 0 {
		budget = DefaultBudget(len(d.Data))
	}
	b := &builder{d: d, root: root, o: o, ctx: ctx, left: budget, budget: budget, sh: newShared()}
	tools, err := b.tools(res)
	if err != nil {
		return nil, err
	}
	res.Tools = tools
	return res, nil
}

// checkRefs refuses external and dangling references and pure $ref cycles,
// each with its location.
func checkRefs(d *Document) error {
	// First, quickly: most documents are fine, and large ones repeat their
	// references.
	ok := map[string]bool{}
	bad := false
	walkRefs(d.Tree, func(ref string) bool {
		good, seen := ok[ref]
		if !seen {
			good = refProblem(d.Tree, ref) == ""
			ok[ref] = good
		}
		bad = !good
		return good
	})
	if !bad {
		return nil
	}
	// Then the first problem in key order, so that it is the same every run.
	var firstErr error
	walkRefsAt(d.Tree, "", func(ptr, ref string) bool {
		if msg := refProblem(d.Tree, ref); msg != "" {
			firstErr = d.Errorf(ptr+"/$ref", "%s", msg)
		}
		return firstErr == nil
	})
	return firstErr
}

// refProblem says what is wrong with a reference, or "".
func refProblem(tree any, ref string) string {
	if !strings.HasPrefix(ref, "#") {
		return fmt.Sprintf("external reference %q: only references inside the document (#/...) are allowed", ref)
	}
	if _, ok := Resolve(tree, ref); !ok {
		return fmt.Sprintf("reference %q points at nothing (is the document truncated?)", ref)
	}
	if cyc := aliasCycle(tree, ref); cyc != "" {
		return "cyclic reference: " + cyc
	}
	return ""
}

// walkRefs calls fn(ref) for every "$ref" string, in no particular order;
// fn returns false to stop.
func walkRefs(v any, fn func(ref string) bool) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "$ref" {
				if r, ok := e.(string); ok && !fn(r) {
					return false
				}
			}
			if !walkRefs(e, fn) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !walkRefs(e, fn) {
				return false
			}
		}
	}
	return true
}

// walkRefsAt calls fn(pointer of the object, ref) for every "$ref" string,
// in key order; fn returns false to stop.
func walkRefsAt(v any, ptr string, fn func(ptr, ref string) bool) bool {
	switch x := v.(type) {
	case map[string]any:
		if r, ok := x["$ref"].(string); ok {
			if !fn(ptr, r) {
				return false
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !walkRefsAt(x[k], ptr+"/"+Escape(k), fn) {
				return false
			}
		}
	case []any:
		for i, e := range x {
			if !walkRefsAt(e, ptr+"/"+strconv.Itoa(i), fn) {
				return false
			}
		}
	}
	return true
}

// aliasCycle follows a chain of objects that are only a $ref and reports a loop.
func aliasCycle(tree any, ref string) string {
	seen := map[string]bool{}
	chain := []string{}
	for {
		if seen[ref] {
			return strings.Join(append(chain, ref), " → ")
		}
		seen[ref] = true
		chain = append(chain, ref)
		t, ok := Resolve(tree, ref)
		if !ok {
			return ""
		}
		m, ok := t.(map[string]any)
		if !ok {
			return ""
		}
		next, ok := m["$ref"].(string)
		if !ok || !strings.HasPrefix(next, "#") {
			return ""
		}
		ref = next
	}
}

func convertV2(d *Document) (*Document, error) {
	b, err := json.Marshal(d.Tree)
	if err != nil {
		return nil, err
	}
	var v2 openapi2.T
	if err := json.Unmarshal(b, &v2); err != nil {
		return nil, d.Errorf("", "load Swagger 2.0: %v", err)
	}
	v3, err := openapi2conv.ToV3(&v2)
	if err != nil {
		return nil, d.Errorf("", "convert Swagger 2.0 to OpenAPI 3: %v", err)
	}
	if b, err = json.Marshal(v3); err != nil {
		return nil, err
	}
	return Decode(d.Source+" (converted from Swagger 2.0)", b)
}

var (
	reSchema = regexp.MustCompile(`^invalid components: (schema|parameter|requestBody|response|securityScheme|header) "([^"]+)": `)
	rePath   = regexp.MustCompile(`^invalid paths: invalid path ([^:]+): (?:invalid operation ([A-Z]+): )?`)
)

var componentDir = map[string]string{"schema": "schemas", "parameter": "parameters", "requestBody": "requestBodies",
	"response": "responses", "securityScheme": "securitySchemes", "header": "headers"}

// kinValidate loads the document with kin-openapi (external refs off) and
// turns its validation findings into warnings located by JSON pointer.
func kinValidate(ctx context.Context, root map[string]any) ([]Warning, error) {
	b, err := appendKinJSON(nil, pruneForKin(root))
	if err != nil {
		return nil, err
	}
	l := openapi3.NewLoader()
	l.IsExternalRefsAllowed = false
	l.Context = ctx
	doc, err := l.LoadFromData(b)
	if err != nil {
		// The document's syntax and references have been checked already;
		// what kin-openapi cannot load (a pointer through a $ref'd schema's
		// properties, a discriminator mapping into another file) it cannot
		// validate either, and the tools are built without it.
		return []Warning{{Message: "not validated by kin-openapi, which cannot load it: " + err.Error()}}, nil
	}
	verr := doc.Validate(ctx, openapi3.EnableMultiError(), openapi3.DisableExamplesValidation(), openapi3.DisableSchemaDefaultsValidation(),
		openapi3.SetRegexCompiler(kinRegexps()))
	if verr == nil {
		return nil, nil
	}
	var leaves []error
	var me openapi3.MultiError
	if errors.As(verr, &me) {
		leaves = me
	} else {
		leaves = []error{verr}
	}
	ws := make([]Warning, 0, len(leaves))
	for _, e := range leaves {
		msg := e.Error()
		w := Warning{Message: msg}
		if m := reSchema.FindStringSubmatch(msg); m != nil {
			w.Pointer = "/components/" + componentDir[m[1]] + "/" + Escape(m[2])
			w.Message = msg[len(m[0]):]
		} else if m := rePath.FindStringSubmatch(msg); m != nil {
			w.Pointer = "/paths/" + Escape(m[1])
			if m[2] != "" {
				w.Pointer += "/" + strings.ToLower(m[2])
			}
			w.Message = msg[len(m[0]):]
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// kinRegexp gives kin-openapi the ECMA-262 engine the tools' schemas are
// compiled with. A pattern it refuses is not kin-openapi's finding to report:
// the builder leaves it out, with its own warning (checkPatterns).
func kinRegexp(expr string) (openapi3.RegexMatcher, error) {
	re, err := ecmaRegexp(expr)
	if err != nil {
		return anyString{}, nil
	}
	return re.(ecmaRE), nil
}

// kinRegexps is kinRegexp compiling each distinct pattern once: a large
// document repeats its patterns in every operation (graph.json: 2 of its 19
// CPU-s went to compiling them again).
func kinRegexps() func(string) (openapi3.RegexMatcher, error) {
	var cache sync.Map
	return func(expr string) (openapi3.RegexMatcher, error) {
		if re, ok := cache.Load(expr); ok {
			return re.(openapi3.RegexMatcher), nil
		}
		re, err := kinRegexp(expr)
		if err == nil {
			cache.Store(expr, re)
		}
		return re, err
	}
}

type anyString struct{}

func (anyString) MatchString(string) bool { return true }

// pruneForKin drops what tools are not built from (response bodies, and the
// component schemas only they use) and what kin-openapi never validates (the
// extensions of the document, path items and operations: it only checks
// their names start with x-) before kin-openapi loads the document: its
// loader is the slowest step on large documents.
//
// A response whose content another part of the document refers to
// (digitalocean's request bodies reuse response schemas by pointer,
// "#/paths/~1v2~1account~1keys/get/responses/200/content/application~1json/…")
// keeps its content.
func pruneForKin(root map[string]any) map[string]any {
	out := dropExtensions(clone(root))
	used := usedResponseContent(root)
	strip := func(at string, v any) any {
		r, ok := v.(map[string]any)
		if !ok || r["content"] == nil || used[at] {
			return v
		}
		r = clone(r)
		delete(r, "content")
		return r
	}
	if paths, ok := root["paths"].(map[string]any); ok {
		np := make(map[string]any, len(paths))
		for p, it := range paths {
			item, ok := it.(map[string]any)
			if !ok {
				np[p] = it
				continue
			}
			item = dropExtensions(clone(item))
			for _, m := range methods {
				op, ok := item[m].(map[string]any)
				if !ok {
					continue
				}
				op = dropExtensions(clone(op))
				if rs, ok := op["responses"].(map[string]any); ok {
					nr := make(map[string]any, len(rs))
					for c, r := range rs {
						nr[c] = strip("/paths/"+Escape(p)+"/"+m+"/responses/"+Escape(c), r)
					}
					op["responses"] = nr
				}
				item[m] = op
			}
			np[p] = item
		}
		out["paths"] = np
	}
	comps, ok := root["components"].(map[string]any)
	if !ok {
		return out
	}
	comps = clone(comps)
	out["components"] = comps
	if rs, ok := comps["responses"].(map[string]any); ok {
		nr := make(map[string]any, len(rs))
		for c, r := range rs {
			nr[c] = strip("/components/responses/"+Escape(c), r)
		}
		comps["responses"] = nr
	}
	schemas, ok := comps["schemas"].(map[string]any)
	if !ok {
		return out
	}
	delete(comps, "schemas")
	keep := map[string]any{}
	var queue []string
	visit := func(ref string) bool {
		if name, ok := strings.CutPrefix(ref, "#/components/schemas/"); ok {
			if dec, err := url.PathUnescape(name); err == nil {
				name = dec // RFC 6901 §6, as Resolve does
			}
			name = unescape(strings.SplitN(name, "/", 2)[0])
			if _, seen := keep[name]; !seen {
				if s, ok := schemas[name]; ok {
					keep[name] = s
					queue = append(queue, name)
				}
			}
		}
		return true
	}
	walkRefs(out, visit)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		walkRefs(keep[n], visit)
	}
	comps["schemas"] = keep
	return out
}

// usedResponseContent returns the pointers of the responses (in paths or
// components) whose content some $ref points into.
func usedResponseContent(root map[string]any) map[string]bool {
	used := map[string]bool{}
	walkRefs(root, func(ref string) bool {
		toks, ok := refTokens(ref)
		if !ok {
			return true
		}
		switch {
		case len(toks) > 5 && toks[0] == "paths" && toks[3] == "responses" && toks[5] == "content":
			used["/paths/"+Escape(toks[1])+"/"+toks[2]+"/responses/"+Escape(toks[4])] = true
		case len(toks) > 3 && toks[0] == "components" && toks[1] == "responses" && toks[3] == "content":
			used["/components/responses/"+Escape(toks[2])] = true
		}
		return true
	})
	return used
}

// appendKinJSON appends v as JSON, as encoding/json would, but with every
// non-empty "description" string written as ".": kin-openapi never reads a
// description beyond telling an empty one from none, and decoding them was
// a fifth of its load.
func appendKinJSON(b []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendJSONString(b, k), ':')
			e := x[k]
			if k == "discriminator" {
				e = localMapping(e)
			}
			if s, ok := e.(string); ok && k == "description" && s != "" {
				b = append(b, `"."`...)
			} else if b, err = appendKinJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendKinJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case string:
		return appendJSONString(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case nil:
		return append(b, "null"...), nil
	}
	// Floats (and whatever else): encoding/json's spelling, and its error for NaN and ±Inf.
	js, err := json.Marshal(v)
	return append(b, js...), err
}

// localMapping drops from a discriminator the mapping entries that name
// another file ("models/types.yml#/a"), which kin-openapi would try to load:
// helix ignores the mapping, and the document's own references are local.
func localMapping(v any) any {
	d, ok := v.(map[string]any)
	if !ok {
		return v
	}
	mp, ok := d["mapping"].(map[string]any)
	if !ok {
		return v
	}
	local := make(map[string]any, len(mp))
	for k, e := range mp {
		if s, ok := e.(string); ok && !strings.HasPrefix(s, "#") && strings.ContainsAny(s, "/#") {
			continue
		}
		local[k] = e
	}
	if len(local) == len(mp) {
		return v
	}
	d = clone(d)
	d["mapping"] = local
	return d
}

// appendJSONString appends s quoted as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			js, _ := json.Marshal(s) // escapes, and invalid UTF-8, as encoding/json does
			return append(b, js...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// dropExtensions deletes the x-* fields of an OpenAPI object (a copy): the
// OpenAI description's x-oaiMeta alone is half of what kin-openapi loads.
func dropExtensions(obj map[string]any) map[string]any {
	for k := range obj {
		if strings.HasPrefix(k, "x-") {
			delete(obj, k)
		}
	}
	return obj
}

// builder converts the operations of one OpenAPI 3 tree.
type builder struct {
	d    *Document
	root map[string]any
	o    OpenAPIOptions
	ctx  context.Context

	left, budget int  // expansion budget: values the tools may still expand to
	warnedServer bool // the scheme-relative server warning is given once
	res          *OpenAPIResult

	// Expansions of references that cut nothing, shared by every tool of the
	// document (never modified once made): the operations of a large API use
	// the same components over and over, and each tool holding its own copy
	// was most of an import's memory.
	done  map[string]any
	sizes map[string]int // values in each expansion in done
	sh    *shared        // the maps of done, with their encodings and hashes

	rawSizes map[string]int  // expandedSize of references, by reference and depth
	patterns map[string]bool // regular expressions met, and whether they compile
	opPtr    string          // the operation being built, for warnings
}

// checkPatterns drops from the schema s a pattern (and a patternProperties
// entry) that is not an ECMA-262 regular expression, with a warning naming
// it: the operation stays, only that check goes.
func (b *builder) checkPatterns(s map[string]any) {
	if p, ok := s["pattern"].(string); ok && !b.goodPattern(p) {
		delete(s, "pattern")
	}
	if pp, ok := s["patternProperties"].(map[string]any); ok {
		for p := range pp {
			if !b.goodPattern(p) {
				delete(pp, p) // a fresh map: the inliner made it
			}
		}
	}
}

// goodPattern compiles p once per document, and warns the first time it does not.
func (b *builder) goodPattern(p string) bool {
	if b.patterns == nil {
		b.patterns = map[string]bool{}
	}
	good, seen := b.patterns[p]
	if !seen {
		_, err := ecmaRegexp(p)
		good = err == nil
		b.patterns[p] = good
		if !good && b.res != nil {
			b.res.Warnings = append(b.res.Warnings, Warning{Pointer: b.opPtr,
				Message: fmt.Sprintf("pattern %q left out, values are not checked against it: %v", p, err)})
		}
	}
	return good
}

// deadlineError says the import ran out of time, or was interrupted.
func deadlineError(source string, ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Source: source, Msg: "import deadline reached: the document is too large or too intricate to convert in time " +
			"(import fewer operations with --include/--exclude, or raise --deadline)"}
	}
	return ctx.Err()
}

func (b *builder) tools(res *OpenAPIResult) ([]*Manifest, error) {
	paths, _ := b.root["paths"].(map[string]any)
	if len(paths) == 0 {
		what := "no paths"
		if wh, ok := b.root["webhooks"].(map[string]any); ok && len(wh) > 0 {
			what = fmt.Sprintf("only webhooks (%d), which the API calls rather than serves", len(wh))
		}
		res.Warnings = append(res.Warnings, Warning{Pointer: "/paths", Message: "the document has " + what + ": no tools to import"})
		return nil, nil
	}
	b.res = res
	if err := b.o.enter(b.ctx, b.d.Source, phaseBuild); err != nil {
		return nil, err
	}
	version := b.version(res)
	info, _ := b.root["info"].(map[string]any)
	ns := b.o.Namespace
	if ns == "" {
		ns = namespaceOf(str(info["title"]))
	} else if ns == NoNamespace {
		ns = ""
	}
	author := ""
	if c, ok := info["contact"].(map[string]any); ok {
		author = strings.TrimSpace(str(c["name"]) + " " + angle(str(c["email"])))
	}
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	var out []*Manifest
	names := map[string]string{}
	for _, p := range keys {
		item, ok := b.deref(paths[p]).(map[string]any)
		if !ok {
			continue
		}
		for _, method := range methods {
			op, ok := item[method].(map[string]any)
			if !ok {
				continue
			}
			ptr := "/paths/" + Escape(p) + "/" + method
			tags := strs(op["tags"])
			opID := str(op["operationId"])
			if !b.selected(opID, tags) {
				res.Skipped = append(res.Skipped, strings.ToUpper(method)+" "+p)
				continue
			}
			if err := b.ctx.Err(); err != nil {
				return nil, deadlineError(b.d.Source, b.ctx)
			}
			name := toolName(opID, method, p)
			if ns != "" {
				name = ns + "." + name
				if len(name) > 128 {
					name = name[:128]
				}
			}
			if prev, dup := names[name]; dup {
				n := 2
				for names[name+"_"+strconv.Itoa(n)] != "" {
					n++
				}
				res.Warnings = append(res.Warnings, Warning{Pointer: ptr, Message: fmt.Sprintf("tool name %s is already used by %s: named %s_%d", name, prev, name, n)})
				name += "_" + strconv.Itoa(n)
			}
			names[name] = ptr
			b.opPtr = ptr
			m, err := b.operation(ptr, p, method, item, op)
			if err != nil {
				return nil, err
			}
			if b.left < 0 {
				return nil, &BudgetError{Source: b.d.Source, Budget: b.budget, Tools: len(out)}
			}
			m.Name, m.Namespace, m.Version, m.Author, m.Tags, m.opPointer, m.sh = name, ns, version, author, tags, ptr, b.sh
			m.Format = OpenAPIFormat
			out = append(out, m)
		}
	}
	source := b.d.Source
	if err := b.o.enter(b.ctx, source, phaseCompile); err != nil {
		return nil, err
	}
	// The tools are built: the document's tree (graph.json: ~100 MB) and the
	// index of expansions are no longer needed while they compile.
	b.d, b.root, b.done, b.sizes, b.rawSizes = nil, nil, nil, nil, nil
	out, err := compile(b.ctx, out, res, b.sh)
	if err != nil {
		return nil, deadlineError(source, b.ctx)
	}
	return out, nil
}

// namespaceOf makes an API title a tool-name prefix: "Swagger Petstore" →
// "swagger_petstore". An empty title gives no namespace.
func namespaceOf(title string) string {
	n := strings.ToLower(strings.Trim(nonName.ReplaceAllString(strings.TrimSpace(title), "_"), "_.-"))
	n = strings.ReplaceAll(n, ".", "_") // the dot separates namespace and operation
	if n == "" {
		return ""
	}
	if !(n[0] >= 'a' && n[0] <= 'z') {
		n = "api_" + n
	}
	if len(n) > 64 {
		n = strings.TrimRight(n[:64], "_-")
	}
	return n
}

// ValidNamespace checks a --namespace.
func ValidNamespace(ns string) error {
	if ns == "" || ns == NoNamespace {
		return nil
	}
	if len(ns) > 64 || !(ns[0] >= 'a' && ns[0] <= 'z' || ns[0] >= 'A' && ns[0] <= 'Z') || nonName.MatchString(ns) || strings.Contains(ns, ".") {
		return fmt.Errorf("namespace %q: use up to 64 letters, digits, '_' or '-', starting with a letter", ns)
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func (b *builder) version(res *OpenAPIResult) string {
	info, _ := b.root["info"].(map[string]any)
	raw := str(info["version"])
	if v, err := semver.StrictNewVersion(raw); err == nil {
		return v.String()
	}
	if v, err := semver.NewVersion(raw); err == nil {
		res.Warnings = append(res.Warnings, Warning{Pointer: "/info/version", Message: fmt.Sprintf("version %q read as %s", raw, v)})
		return v.String()
	}
	res.Warnings = append(res.Warnings, Warning{Pointer: "/info/version", Message: fmt.Sprintf("version %q is not semver: tools get 0.0.0", raw)})
	return "0.0.0"
}

func (b *builder) selected(opID string, tags []string) bool {
	match := func(list []string) bool {
		for _, x := range list {
			if x == opID {
				return true
			}
			for _, t := range tags {
				if x == t {
					return true
				}
			}
		}
		return false
	}
	if len(b.o.Include) > 0 && !match(b.o.Include) {
		return false
	}
	return !match(b.o.Exclude)
}

var (
	nonName  = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)
	noBraces = strings.NewReplacer("{", "", "}", "")
)

// toolName is the operationId, or method_path, made a valid tool name.
func toolName(opID, method, path string) string {
	n := opID
	if n == "" {
		n = method + "_" + noBraces.Replace(strings.TrimPrefix(path, "/"))
	}
	n = strings.Trim(nonName.ReplaceAllString(n, "_"), "_.-")
	if n == "" || !(n[0] >= 'a' && n[0] <= 'z' || n[0] >= 'A' && n[0] <= 'Z') {
		n = "op_" + n
	}
	if len(n) > 128 {
		n = n[:128]
	}
	return n
}

func (b *builder) operation(ptr, path, method string, item, op map[string]any) (*Manifest, error) {
	m := &Manifest{}
	m.Description = strings.TrimSpace(str(op["summary"]))
	if desc := strings.TrimSpace(str(op["description"])); desc != "" && desc != m.Description {
		if m.Description != "" {
			m.Description += "\n\n"
		}
		m.Description += desc
	}
	if m.Description == "" {
		m.Description = strings.ToUpper(method) + " " + path
	}
	in := &inliner{b: b}
	schema, ct, notes := b.parameters(item, op, in)
	b.left -= in.size
	m.Parameters = schema
	m.Notes = append(m.Notes, notes...)
	server := b.server(op, item)
	m.Entrypoint.HTTP = &HTTPCall{Method: strings.ToUpper(method), URL: strings.TrimSuffix(server, "/") + path, BodyContentType: ct}
	u, err := url.Parse(server)
	switch {
	case err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https"):
		m.Permissions.Network = Network{u.Host}
	case err == nil && u.Host == "" && u.Scheme == "" && (server == "" || strings.HasPrefix(server, "/")):
		m.Notes = append(m.Notes, fmt.Sprintf("server URL %q is not absolute: network is none until imported with --server", server))
	default:
		// Placeholders ("Your API URL"), a host without a scheme: the
		// operation is kept, waiting for a server like a relative one.
		m.Entrypoint.HTTP.URL = path
		m.Notes = append(m.Notes, fmt.Sprintf("server URL %q is not an http(s) URL and was left out: network is none until imported with --server", server))
	}
	// The response schema is only checked against, never shown to a model:
	// its references are expanded to a fixed depth, so that the expansions
	// are shared by every tool. Expanded like the parameters, the response
	// objects of a large API (stripe's expandable fields) were millions of
	// values that no two tools shared.
	resp, depth := b.returnsSchema(op)
	rin := &inliner{b: b, maxDepth: depth}
	if resp != nil {
		m.Returns = rin.schema(resp)
	}
	m.Notes = append(m.Notes, rin.notes...)
	if in.err != nil || rin.err != nil {
		return nil, deadlineError(b.d.Source, b.ctx)
	}
	m.Permissions.Timeout = b.o.Timeout
	m.Credentials = b.credentials(op)
	return m, nil
}

// parameters merges the path-item and operation parameters (path, query,
// header) and the request body ("body") into one object schema, with the
// schemas expanded by in. It returns the schema, the body's media type and notes.
func (b *builder) parameters(item, op map[string]any, in *inliner) (map[string]any, string, []string) {
	var notes []string
	// Operation parameters override path-item ones with the same name and location.
	params := map[string]map[string]any{}
	var order []string
	for _, list := range []any{item["parameters"], op["parameters"]} {
		for _, raw := range anys(list) {
			p, ok := b.deref(raw).(map[string]any)
			if !ok {
				continue
			}
			key := str(p["in"]) + ":" + str(p["name"])
			if _, seen := params[key]; !seen {
				order = append(order, key)
			}
			params[key] = p
		}
	}
	props := map[string]any{}
	var required []string
	for _, key := range order {
		p := params[key]
		where, name := str(p["in"]), str(p["name"])
		if where == "cookie" {
			notes = append(notes, "cookie parameter "+name+" is not supported and was left out")
			continue
		}
		var s any = map[string]any{}
		if sch, ok := p["schema"]; ok {
			s = in.schema(sch)
		} else if c, ok := p["content"].(map[string]any); ok {
			if _, mt := pickMedia(c); mt != nil {
				s = in.schema(mt["schema"])
			}
		}
		sm, ok := s.(map[string]any)
		if !ok {
			sm = map[string]any{"allOf": []any{s}}
		}
		sm = clone(sm)
		if d := str(p["description"]); d != "" && sm["description"] == nil {
			sm["description"] = d
		}
		sm["x-helix-in"] = where
		// Serialization, when the document says (the defaults need no record).
		if st := str(p["style"]); st != "" {
			sm["x-helix-style"] = st
		}
		if ex, ok := p["explode"].(bool); ok {
			sm["x-helix-explode"] = ex
		}
		if ae, _ := p["allowEmptyValue"].(bool); ae && where == "query" {
			sm["x-helix-allow-empty"] = true
		}
		prop := name
		if _, clash := props[prop]; clash || prop == "body" {
			prop = where + "." + name
		}
		props[prop] = sm
		if req, _ := p["required"].(bool); req || where == "path" {
			required = append(required, prop)
		}
	}
	ct := ""
	if rb, ok := b.deref(op["requestBody"]).(map[string]any); ok {
		if c, ok := rb["content"].(map[string]any); ok {
			var mt map[string]any
			if ct, mt = pickMedia(c); mt != nil {
				s := in.schema(mt["schema"])
				if s == nil {
					s = map[string]any{}
				}
				if sm, ok := s.(map[string]any); ok {
					sm = clone(sm)
					if d := str(rb["description"]); d != "" && sm["description"] == nil {
						sm["description"] = d
					}
					s = sm
				}
				props["body"] = s
				if req, _ := rb["required"].(bool); req {
					required = append(required, "body")
				}
			}
		}
	}
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		sort.Strings(required)
		out["required"] = toAny(required)
	}
	return out, ct, append(notes, in.notes...)
}

// returnsSchema is the (unexpanded) JSON schema of the operation's success
// response (200, 201, any other 2xx, 2XX, then default), nil when none is
// declared, and how many references deep to expand it: the deepest, up to
// maxReturnsDepth, whose expansion stays within maxReturnsValues.
func (b *builder) returnsSchema(op map[string]any) (any, int) {
	rs, _ := op["responses"].(map[string]any)
	codes := make([]string, 0, len(rs))
	for c := range rs {
		if len(c) == 3 && c[0] == '2' {
			codes = append(codes, c)
		}
	}
	sort.Strings(codes) // 200 before 201 before 2XX
	codes = append(codes, "default")
	for _, c := range codes {
		r, ok := b.deref(rs[c]).(map[string]any)
		if !ok {
			continue
		}
		content, _ := r["content"].(map[string]any)
		ct, mt := pickMedia(content)
		if mt == nil || !strings.Contains(ct, "json") || mt["schema"] == nil {
			return nil, 0 // the success response is not JSON, or says nothing of its shape
		}
		s := mt["schema"]
		depth := maxReturnsDepth
		for depth > 1 && b.expandedSize(s, depth) > maxReturnsValues {
			depth--
		}
		return s, depth
	}
	return nil, 0
}

// expandedSize is about how many values the schema v expands to with its
// references expanded depth deep (as inliner.schema counts them), at most
// maxReturnsValues+1: it is computed on the document, without expanding.
func (b *builder) expandedSize(v any, depth int) int {
	switch x := v.(type) {
	case map[string]any:
		if r, ok := x["$ref"].(string); ok {
			if depth <= 0 {
				return 1
			}
			key := r + "\x00" + strconv.Itoa(depth)
			if n, ok := b.rawSizes[key]; ok {
				return n
			}
			if b.rawSizes == nil {
				b.rawSizes = map[string]int{}
			}
			b.rawSizes[key] = maxReturnsValues + 1 // a reference to itself while counting: treat as too large
			n := 1
			if t, ok := Resolve(b.root, r); ok {
				n = min(1+b.expandedSize(t, depth-1), maxReturnsValues+1)
			}
			b.rawSizes[key] = n
			return n
		}
		n := 1
		for k, e := range x {
			switch k {
			case "example", "examples", "enum", "const", "default", "x-examples":
				n++
				continue
			}
			if n += b.expandedSize(e, depth); n > maxReturnsValues {
				return maxReturnsValues + 1
			}
		}
		return n
	case []any:
		n := 1
		for _, e := range x {
			if n += b.expandedSize(e, depth); n > maxReturnsValues {
				return maxReturnsValues + 1
			}
		}
		return n
	}
	return 1
}

func (b *builder) server(op, item map[string]any) string {
	if b.o.Server != "" {
		return b.o.Server
	}
	var s map[string]any
	for _, list := range []any{op["servers"], item["servers"], b.root["servers"]} {
		if l := anys(list); len(l) > 0 {
			s, _ = l[0].(map[string]any)
			break
		}
	}
	u := str(s["url"])
	if vars, ok := s["variables"].(map[string]any); ok {
		for k, v := range vars {
			if vm, ok := v.(map[string]any); ok {
				u = strings.ReplaceAll(u, "{"+k+"}", str(vm["default"]))
			}
		}
	}
	schemeless := strings.HasPrefix(u, "//")
	if b.o.BaseURL != "" {
		if base, err := url.Parse(b.o.BaseURL); err == nil {
			if ref, err := url.Parse(u); err == nil {
				u = base.ResolveReference(ref).String()
			}
		}
	} else if schemeless {
		u = "https:" + u
	}
	if schemeless && !b.warnedServer && b.res != nil {
		// Left by Swagger 2.0 conversions that had a host but no schemes.
		b.warnedServer = true
		b.res.Warnings = append(b.res.Warnings, Warning{Pointer: "/servers", Message: fmt.Sprintf("scheme-relative server URL %q resolved to %s", str(s["url"]), u)})
	}
	return u
}

func (b *builder) credentials(op map[string]any) [][]Credential {
	sec, ok := op["security"]
	if !ok {
		sec = b.root["security"]
	}
	comps, _ := b.root["components"].(map[string]any)
	schemes, _ := comps["securitySchemes"].(map[string]any)
	var out [][]Credential
	for _, req := range anys(sec) {
		rm, _ := req.(map[string]any)
		if len(rm) == 0 {
			continue // {} means anonymous access is one of the options
		}
		names := make([]string, 0, len(rm))
		for n := range rm {
			names = append(names, n)
		}
		sort.Strings(names)
		var set []Credential
		for _, n := range names {
			c := Credential{Scheme: n, Scopes: strs(rm[n])}
			if s, ok := b.deref(schemes[n]).(map[string]any); ok {
				c.Type, c.In, c.Name, c.HTTPScheme = str(s["type"]), str(s["in"]), str(s["name"]), str(s["scheme"])
			}
			if c.Type == "" {
				c.Type = "unknown"
			}
			set = append(set, c)
		}
		out = append(out, set)
	}
	return out
}

// deref follows $ref chains (already checked to end somewhere).
func (b *builder) deref(v any) any {
	for i := 0; i < 32; i++ {
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		r, ok := m["$ref"].(string)
		if !ok {
			return v
		}
		t, ok := Resolve(b.root, r)
		if !ok {
			return nil
		}
		v = t
	}
	return nil
}

// pickMedia prefers JSON, then the first media type by name.
func pickMedia(c map[string]any) (string, map[string]any) {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ji, jj := strings.Contains(keys[i], "json"), strings.Contains(keys[j], "json")
		if ji != jj {
			return ji
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		if mt, ok := c[k].(map[string]any); ok {
			return k, mt
		}
	}
	return "", nil
}

// inliner copies schemas with every local $ref replaced by its target. A
// reference to a schema that is already being expanded (recursion) is cut:
// it becomes an open schema with a $comment, and the tool gets a note.
//
// With maxDepth, references nested deeper than maxDepth are not expanded
// (they accept any value) and recursion needs no cut: the expansion of a
// reference then depends only on the depth left, and is shared at any place.
type inliner struct {
	b        *builder
	stack    []string
	notes    []string
	size     int // values in the expansion so far
	cut      bool
	maxDepth int   // 0: expand to any depth, cutting recursion
	err      error // the import's context ended
}

// maxExpanded bounds one tool's expanded schema: references shared along
// many paths (A uses B twice, B uses C twice...) grow exponentially.
const maxExpanded = 50_000

// maxReturnsDepth is how many references deep a response schema is expanded
// at most, and maxReturnsValues how large its expansion may grow: a tool's
// response schema is stored whole with it, and one expanded to any depth
// (stripe's expandable fields) was millions of values. Depth also bounds
// recursion: a schema that refers to itself is expanded maxReturnsDepth
// times, and deeper values are accepted unchecked.
const (
	maxReturnsDepth  = 8
	maxReturnsValues = 5_000
)

// ctxEvery is how many values the inliner expands between looks at the context.
const ctxEvery = 1 << 12

func (in *inliner) schema(v any) any {
	if in.err != nil {
		return map[string]any{}
	}
	in.size++
	if in.size%ctxEvery == 0 {
		if in.err = in.b.ctx.Err(); in.err != nil {
			return map[string]any{}
		}
	}
	switch x := v.(type) {
	case map[string]any:
		if r, ok := x["$ref"].(string); ok {
			return in.ref(r, x)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			switch k {
			case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
				if pm, ok := e.(map[string]any); ok {
					sub := make(map[string]any, len(pm))
					for pk, pv := range pm {
						sub[pk] = in.schema(pv)
					}
					out[k] = sub
					continue
				}
			case "example", "examples", "enum", "const", "default", "x-examples":
				out[k] = e // data, not schemas
				continue
			}
			out[k] = in.schema(e)
		}
		in.b.checkPatterns(out)
		return normalize30(out)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = in.schema(e)
		}
		return out
	}
	return v
}

func (in *inliner) ref(r string, obj map[string]any) any {
	key := r
	if in.maxDepth > 0 {
		left := in.maxDepth - len(in.stack)
		if left <= 0 {
			in.notes = appendOnce(in.notes, fmt.Sprintf("response schema checked to %d levels of references: deeper ones accept any value", in.maxDepth))
			return map[string]any{"$comment": "reference " + r + " not expanded"}
		}
		key = r + "\x00" + strconv.Itoa(left)
	} else {
		for _, s := range in.stack {
			if s == r {
				in.cut = true
				in.notes = appendOnce(in.notes, "recursive reference "+r+" cut: its inner occurrence accepts any value")
				return map[string]any{"$comment": "recursive reference " + r + " cut"}
			}
		}
	}
	if in.size > maxExpanded {
		in.cut = true // a truncated expansion is this tool's, not to be shared
		in.notes = appendOnce(in.notes, fmt.Sprintf("schema expansion stopped after %d values: deeper references accept any value", maxExpanded))
		return map[string]any{"$comment": "expansion limit reached at " + r}
	}
	v, ok := in.b.done[key]
	if ok {
		in.size += in.b.sizes[key]
	} else {
		t, ok := Resolve(in.b.root, r)
		if !ok {
			return map[string]any{}
		}
		in.stack = append(in.stack, r)
		outerCut, start := in.cut, in.size
		in.cut = false
		v = in.schema(t)
		if !in.cut && in.err == nil {
			if in.b.done == nil {
				in.b.done, in.b.sizes = map[string]any{}, map[string]int{}
			}
			in.b.done[key], in.b.sizes[key] = v, in.size-start
			in.b.sh.add(v)
		}
		in.cut = in.cut || outerCut
		in.stack = in.stack[:len(in.stack)-1]
	}
	// OpenAPI 3.1 allows keywords beside $ref (description, nullable...): keep them.
	if len(obj) > 1 {
		if vm, ok := v.(map[string]any); ok {
			merged := clone(vm)
			for k, e := range obj {
				if k != "$ref" {
					merged[k] = e
				}
			}
			return normalize30(merged)
		}
	}
	return v
}

// normalize30 rewrites OpenAPI 3.0 schema dialect into JSON Schema 2020-12:
// nullable becomes a "null" type, boolean exclusive bounds become numbers,
// and the 2019-09 $recursiveRef/$recursiveAnchor pair, which 2020-12 spells
// differently, is dropped (the reference then accepts any value).
func normalize30(s map[string]any) map[string]any {
	if n, ok := s["nullable"].(bool); ok {
		delete(s, "nullable")
		if n {
			switch t := s["type"].(type) {
			case string:
				s["type"] = []any{t, "null"}
			case nil:
				if e, ok := s["enum"].([]any); ok {
					s["enum"] = append(append([]any{}, e...), nil)
				}
			}
		}
	}
	for _, k := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		if ex, ok := s[k[0]].(bool); ok {
			delete(s, k[0])
			if ex && s[k[1]] != nil {
				s[k[0]] = s[k[1]]
				delete(s, k[1])
			}
		}
	}
	if r, ok := s["$recursiveRef"]; ok {
		delete(s, "$recursiveRef")
		s["$comment"] = fmt.Sprintf("$recursiveRef %v dropped: accepts any value", r)
	}
	delete(s, "$recursiveAnchor")
	return s
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func strs(v any) []string {
	var out []string
	for _, x := range anys(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func anys(v any) []any {
	l, _ := v.([]any)
	return l
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func angle(s string) string {
	if s == "" {
		return ""
	}
	return "<" + s + ">"
}
