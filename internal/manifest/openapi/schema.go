package openapi

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/helixhq/helix/internal/manifest"
)

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
			if t, ok := manifest.Resolve(b.root, r); ok {
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
		t, ok := manifest.Resolve(in.b.root, r)
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
			in.b.sh.Add(v)
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
