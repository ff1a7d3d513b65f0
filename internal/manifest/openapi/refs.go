package openapi

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/helixhq/helix/internal/manifest"
)

// checkRefs refuses external and dangling references and pure $ref cycles,
// each with its location.
func checkRefs(d *manifest.Document) error {
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
	if _, ok := manifest.Resolve(tree, ref); !ok {
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
			if !walkRefsAt(x[k], ptr+"/"+manifest.Escape(k), fn) {
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
		t, ok := manifest.Resolve(tree, ref)
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
		t, ok := manifest.Resolve(b.root, r)
		if !ok {
			return nil
		}
		v = t
	}
	return nil
}
