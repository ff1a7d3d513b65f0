// Package openapi turns OpenAPI 3.0/3.1 and Swagger 2.0 documents into tool
// manifests, one per operation; Parse reads either kind of tool document.
package openapi

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/helixhq/helix/internal/manifest"
)

// Options steer the conversion of an OpenAPI document into tools.
type Options struct {
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
func (o Options) enter(ctx context.Context, source, phase string) error {
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

// Result is what a document yields.
type Result struct {
	OpenAPI  string             `json:"openapi"` // the document's version, e.g. 3.1.0 or 2.0
	Tools    []Tool             `json:"-"`
	Skipped  []string           `json:"skipped,omitempty"` // operations left out by --include/--exclude
	Warnings []manifest.Warning `json:"warnings,omitempty"`
}

// Tool is a tool built from an operation.
type Tool struct {
	Manifest *manifest.Manifest
	Pointer  string // the operation's JSON pointer in the document
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

// Convert turns every operation of an OpenAPI 3.0/3.1 (or Swagger 2.0)
// document into one tool. Structural problems (external or dangling $refs,
// $ref cycles with nothing in between, an unloadable document) are errors;
// validation findings that leave a tool buildable are warnings.
func Convert(ctx context.Context, d *manifest.Document, o Options) (*Result, error) {
	root := d.Tree.(map[string]any)
	if err := o.enter(ctx, d.Source, phaseRefs); err != nil {
		return nil, err
	}
	if _, err := interruptible(ctx, d.Source, func() (struct{}, error) { return struct{}{}, checkRefs(d) }); err != nil {
		return nil, err
	}
	res := &Result{}
	if v, ok := root["swagger"]; ok {
		res.OpenAPI = fmt.Sprint(v)
		if err := o.enter(ctx, d.Source, phaseConvert); err != nil {
			return nil, err
		}
		conv, err := interruptible(ctx, d.Source, func() (*manifest.Document, error) { return convertV2(d) })
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
	kinWarnings, err := interruptible(ctx, d.Source, func() ([]manifest.Warning, error) {
		ws, err := kinValidate(ctx, root)
		if ctx.Err() != nil {
			return nil, deadlineError(d.Source, ctx)
		}
		if err != nil {
			return nil, &manifest.Error{Source: d.Source, Msg: err.Error()}
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
	b := &builder{d: d, root: root, o: o, ctx: ctx, left: budget, budget: budget, sh: manifest.NewShared()}
	tools, err := b.tools(res)
	if err != nil {
		return nil, err
	}
	res.Tools = tools
	return res, nil
}

// deadlineError says the import ran out of time, or was interrupted.
func deadlineError(source string, ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &manifest.Error{Source: source, Msg: "import deadline reached: the document is too large or too intricate to convert in time " +
			"(import fewer operations with --include/--exclude, or raise --deadline)"}
	}
	return ctx.Err()
}
