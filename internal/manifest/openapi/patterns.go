package openapi

import (
	"fmt"
	"sync"

	"github.com/helixhq/helix/internal/third_party/openapi3"

	"github.com/helixhq/helix/internal/manifest"
)

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
		_, err := manifest.ECMARegexp(p)
		good = err == nil
		b.patterns[p] = good
		if !good && b.res != nil {
			b.res.Warnings = append(b.res.Warnings, manifest.Warning{Pointer: b.opPtr,
				Message: fmt.Sprintf("pattern %q left out, values are not checked against it: %v", p, err)})
		}
	}
	return good
}

// kinRegexp gives kin-openapi the ECMA-262 engine the tools' schemas are
// compiled with. A pattern it refuses is not kin-openapi's finding to report:
// the builder leaves it out, with its own warning (checkPatterns).
func kinRegexp(expr string) (openapi3.RegexMatcher, error) {
	re, err := manifest.ECMARegexp(expr)
	if err != nil {
		return anyString{}, nil
	}
	return re, nil
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
