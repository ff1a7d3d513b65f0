package openapi

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/helixhq/helix/internal/manifest"
)

// compile keeps the tools whose parameters compile as JSON Schema 2020-12.
// Compiling is most of an import's own work: the tools compile in parallel,
// and through one schemaChecker, which compiles each distinct schema once and
// skips the subschemas it has already seen compile. It stops, with ctx's
// error, when ctx ends: one schema compiles in well under a second.
func compile(ctx context.Context, tools []Tool, res *Result, sh *manifest.Shared) ([]Tool, error) {
	errs := make([]error, len(tools))
	sc := newSchemaChecker()
	sc.sh = sh
	rerrs := make([]error, len(tools))
	err := manifest.InParallel(ctx, len(tools), func(i int) {
		errs[i] = sc.check(tools[i].Manifest.Parameters)
		if tools[i].Manifest.Returns != nil {
			rerrs[i] = sc.check(tools[i].Manifest.Returns)
		}
	})
	if err != nil {
		return nil, err
	}
	kept := tools[:0]
	for i, t := range tools {
		m := t.Manifest
		if rerrs[i] != nil {
			// The tool still runs; only its responses go unchecked.
			m.Returns = nil
			m.Notes = append(m.Notes, "response schema left out: it does not compile as JSON Schema: "+firstLine(rerrs[i].Error()))
		}
		if errs[i] != nil {
			if fixed, dropped, ok := repairSchema(m.Parameters, errs[i]); ok {
				m.Parameters = fixed
				for _, d := range dropped {
					res.Warnings = append(res.Warnings, manifest.Warning{Pointer: t.Pointer, Message: "parameters schema keyword left out, values are not checked against it: " + d})
				}
			} else {
				res.Warnings = append(res.Warnings, manifest.Warning{Pointer: t.Pointer, Message: "left out: its parameters do not compile as JSON Schema: " + firstLine(errs[i].Error())})
				continue
			}
		}
		kept = append(kept, t)
	}
	return kept, nil
}

// maxRepairs bounds the keywords one schema may lose in repairSchema.
const maxRepairs = 8

// repairSchema makes a schema that does not compile compile by leaving out
// the keywords the compiler names, one at a time (a "pattern": 12, a "type":
// "file" of Swagger 2.0): a document's mistake in one keyword need not cost
// the whole operation. It works on a copy (the schema's parts are shared
// with other tools) and gives up after maxRepairs keywords or when the error
// names no keyword inside the schema.
func repairSchema(s any, err error) (any, []string, bool) {
	fixed := deepClone(s)
	var dropped []string
	for len(dropped) < maxRepairs {
		rest, ok := strings.CutPrefix(firstLine(err.Error()), "at /")
		if !ok {
			return nil, nil, false
		}
		ptr, why, _ := strings.Cut(rest, ": ")
		toks := strings.Split(ptr, "/")
		for i, t := range toks {
			toks[i] = manifest.Unescape(t)
		}
		parent, ok := manifest.ValueAt(fixed, toks[:len(toks)-1]).(map[string]any)
		last := toks[len(toks)-1]
		if _, has := parent[last]; !ok || !has {
			return nil, nil, false
		}
		if len(toks) >= 2 && keyword(toks[len(toks)-2]) == mapSchemas {
			if len(toks) == 2 {
				return nil, nil, false // a parameter itself, with where it goes
			}
			parent[last] = true // a named subschema: it accepts anything
		} else {
			delete(parent, last)
		}
		dropped = append(dropped, fmt.Sprintf("/%s (%s)", ptr, why))
		if err = manifest.CompileSchema(manifest.JSONValue(fixed)); err == nil {
			return fixed, dropped, true
		}
	}
	return nil, nil, false
}

func deepClone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepClone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepClone(e)
		}
		return out
	}
	return v
}

// schemaChecker tells whether schemas compile as JSON Schema 2020-12, as
// manifest.CompileSchema does, for many schemas that share parts: the expanded
// parameters of one document repeat the same component schemas over and over.
//
// Equal schemas (by a hash of their content) are compiled once. And a
// subschema that has compiled before, as part of another schema, is compiled
// as true: whether a schema compiles is whether each of its parts does, as
// long as no part depends on where it sits. Those that might ($ref, $id,
// $anchor, $schema and their kin, anywhere in the schema) are compiled whole.
type schemaChecker struct {
	mu    sync.RWMutex                    // guards both maps
	seen  map[[sha256.Size]byte]*compiled // whole schemas
	valid map[[sha256.Size]byte]bool      // subschemas known to compile
	walks sync.Pool                       // of *schemaWalk, for their buffers
	sh    *manifest.Shared                // nil, or the document's shared schemas, whose hashes are kept in memo

	memoMu sync.RWMutex
	memo   map[unsafe.Pointer]walkMemo // by the identity of a shared map
}

// walkMemo is a shared subschema's schemaWalk outcome.
type walkMemo struct {
	h      [sha256.Size]byte
	placed bool
}

// compiled is the outcome of compiling one distinct schema.
type compiled struct {
	once sync.Once
	err  error
}

func newSchemaChecker() *schemaChecker {
	return &schemaChecker{seen: map[[sha256.Size]byte]*compiled{}, valid: map[[sha256.Size]byte]bool{}, memo: map[unsafe.Pointer]walkMemo{}}
}

// check returns manifest.CompileSchema's verdict on s. It is safe for concurrent use.
func (sc *schemaChecker) check(s any) error {
	w := sc.walk(nil)
	defer sc.walks.Put(w)
	key, _ := w.schema(s)
	placed := w.placed
	sc.mu.Lock()
	c, ok := sc.seen[key]
	if !ok {
		c = &compiled{}
		sc.seen[key] = c
	}
	sc.mu.Unlock()
	c.once.Do(func() {
		if placed {
			c.err = manifest.CompileSchema(manifest.JSONValue(s))
			return
		}
		// Walk again, now building the copy: most schemas are equal to one
		// seen before and never get here.
		w := sc.walk(sc.valid)
		defer sc.walks.Put(w)
		sc.mu.RLock()
		_, skel := w.schema(s)
		sc.mu.RUnlock()
		if c.err = manifest.CompileSchema(skel); c.err == nil {
			sc.mu.Lock()
			for _, h := range w.subs {
				sc.valid[h] = true
			}
			sc.mu.Unlock()
		}
	})
	return c.err
}

// walk returns a schemaWalk from the pool, reset, for valid.
func (sc *schemaChecker) walk(valid map[[sha256.Size]byte]bool) *schemaWalk {
	w, _ := sc.walks.Get().(*schemaWalk)
	if w == nil {
		w = &schemaWalk{}
	}
	w.sc = sc
	w.valid, w.subs, w.placed = valid, w.subs[:0], false
	if valid != nil {
		if w.copied == nil {
			w.copied = map[[sha256.Size]byte]struct{}{}
		}
		clear(w.copied)
	}
	return w
}

// schemaWalk hashes one schema and, given valid, builds the copy to compile:
// manifest.JSONValue's, with the subschemas known to compile replaced by true.
type schemaWalk struct {
	valid  map[[sha256.Size]byte]bool     // nil: hash only
	subs   [][sha256.Size]byte            // with valid: the hashes of the subschemas (objects) in the copy
	copied map[[sha256.Size]byte]struct{} // subs, as a set: a part met twice is copied once
	placed bool                           // a keyword whose meaning depends on the place was met
	bufs   [][]byte                       // one encoding buffer per depth, kept for the next walk
	depth  int
	sc     *schemaChecker // its memo of shared subschemas' hashes, reused when hashing only
}

// Classes of keywords.
const (
	dataKeyword  = iota
	oneSchema    // the value is a schema
	mapSchemas   // the value maps names to schemas
	arrSchemas   // the value is an array of schemas
	placeKeyword // makes a subschema's meaning depend on where it sits, or lets other parts depend on it
)

// keyword classifies the keywords of JSON Schema 2020-12 (and earlier drafts'
// place keywords, to be safe).
func keyword(k string) int {
	switch k {
	case "additionalProperties", "items", "contains", "propertyNames", "not", "if", "then", "else",
		"unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return oneSchema
	case "properties", "patternProperties", "$defs", "dependentSchemas":
		return mapSchemas
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return arrSchemas
	case "$ref", "$dynamicRef", "$recursiveRef", "$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$schema", "$vocabulary":
		return placeKeyword
	}
	return dataKeyword
}

// schema returns the hash of the schema v and, when w.valid is set, its copy
// to compile (the caller holds a read lock on it).
//
// A shared subschema is hashed once per document (w.sc.memo); building a
// copy, one known to compile is not walked again: the copies of a large
// document's schemas (graph.json's 11,422) are mostly such parts, and
// walking them again was most of the check's time.
func (w *schemaWalk) schema(v any) ([sha256.Size]byte, any) {
	m, ok := v.(map[string]any)
	if ok && w.sc.sh.Has(m) {
		k := mapKey(m)
		w.sc.memoMu.RLock()
		memo, seen := w.sc.memo[k]
		w.sc.memoMu.RUnlock()
		switch {
		case seen && w.valid == nil:
			w.placed = w.placed || memo.placed
			return memo.h, nil
		case seen && w.valid[memo.h]:
			return memo.h, true
		case w.valid != nil:
			return w.schemaMap(m)
		}
		outer := w.placed
		w.placed = false
		h, _ := w.schemaMap(m)
		w.sc.memoMu.Lock()
		w.sc.memo[k] = walkMemo{h: h, placed: w.placed}
		w.sc.memoMu.Unlock()
		w.placed = w.placed || outer
		return h, nil
	}
	if ok {
		return w.schemaMap(m)
	}
	{ // true, false, or something the compiler will refuse
		b := w.data(nil, v, true)
		if w.valid == nil {
			return sha256.Sum256(b), nil
		}
		return sha256.Sum256(b), manifest.JSONValue(v)
	}
}

// schemaMap is schema for an object.
func (w *schemaWalk) schemaMap(m map[string]any) ([sha256.Size]byte, any) {
	depth := w.depth
	w.depth++
	if depth == len(w.bufs) {
		w.bufs = append(w.bufs, nil)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out map[string]any
	if w.valid != nil {
		out = make(map[string]any, len(m))
	}
	b := append(w.bufs[depth][:0], '{')
	for _, k := range keys {
		e := m[k]
		b = appendString(b, k)
		kind := keyword(k)
		switch {
		case kind == oneSchema:
			h, c := w.schema(e)
			b = append(append(b, '$'), h[:]...)
			if out != nil {
				out[k] = c
			}
		case kind == mapSchemas && isMap(e):
			pm := e.(map[string]any)
			pks := make([]string, 0, len(pm))
			for pk := range pm {
				pks = append(pks, pk)
			}
			slices.Sort(pks)
			var sub map[string]any
			if out != nil {
				sub = make(map[string]any, len(pm))
				out[k] = sub
			}
			b = append(b, '{')
			for _, pk := range pks {
				h, c := w.schema(pm[pk])
				b = append(appendString(b, pk), h[:]...)
				if sub != nil {
					sub[pk] = c
				}
			}
			b = append(b, '}')
		case kind == arrSchemas && isArray(e):
			l := e.([]any)
			var sub []any
			if out != nil {
				sub = make([]any, len(l))
				out[k] = sub
			}
			b = append(b, '[')
			for i, x := range l {
				h, c := w.schema(x)
				b = append(b, h[:]...)
				if sub != nil {
					sub[i] = c
				}
			}
			b = append(b, ']')
		default:
			if kind == placeKeyword {
				w.placed = true
			}
			b = w.data(b, e, !inert(k))
			switch {
			case out != nil && strings.HasPrefix(k, "x-"):
				// An extension's value is no concern of the compiler, and
				// may be large (stripe's x-expansionResources).
				out[k] = true
			case out != nil:
				out[k] = manifest.JSONValue(e)
			}
		}
	}
	h := sha256.Sum256(append(b, '}'))
	w.bufs[depth] = b
	w.depth--
	if w.valid == nil {
		return h, nil
	}
	if w.valid[h] {
		return h, true
	}
	if _, dup := w.copied[h]; dup {
		// Equal to a part already in this copy: compiled there. (A schema
		// without place keywords compiles if each of its parts does.)
		return h, true
	}
	w.copied[h] = struct{}{}
	w.subs = append(w.subs, h)
	return h, out
}

// data appends an unambiguous encoding of a JSON value to b, noting, with
// mark, the place keywords among its object keys: the value of a keyword the
// walk does not know may be a schema to the compiler (draft 4's definitions,
// dependencies).
func (w *schemaWalk) data(b []byte, v any, mark bool) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 'n')
	case bool:
		if x {
			return append(b, 't')
		}
		return append(b, 'f')
	case string:
		return appendString(b, x)
	case int64:
		return binary.BigEndian.AppendUint64(append(b, 'i'), uint64(x))
	case float64:
		return binary.BigEndian.AppendUint64(append(b, 'd'), math.Float64bits(x))
	case []any:
		b = binary.BigEndian.AppendUint64(append(b, '['), uint64(len(x)))
		for _, e := range x {
			b = w.data(b, e, mark)
		}
		return b
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
			if mark && keyword(k) == placeKeyword {
				w.placed = true
			}
		}
		slices.Sort(keys)
		b = binary.BigEndian.AppendUint64(append(b, '{'), uint64(len(x)))
		for _, k := range keys {
			b = w.data(appendString(b, k), x[k], mark)
		}
		return b
	}
	// Not produced by manifest.Decode; encoded as JSON, which is unambiguous enough.
	js, err := json.Marshal(v)
	if err != nil {
		js = []byte(strconv.Quote(err.Error()))
	}
	return appendString(append(b, '?'), string(js))
}

// inert says whether the value of keyword k is data to the compiler in any
// draft: a $ref or an "id" key inside it (stripe's x-expansionResources
// inline whole schemas, properties named id included) places nothing.
func inert(k string) bool {
	switch k {
	case "example", "examples", "enum", "const", "default":
		return true
	}
	return strings.HasPrefix(k, "x-")
}

func appendString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint64(append(b, 's'), uint64(len(s)))
	return append(b, s...)
}

func isMap(v any) bool   { _, ok := v.(map[string]any); return ok }
func isArray(v any) bool { _, ok := v.([]any); return ok }

// mapKey is a map's identity.
func mapKey(m map[string]any) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}
