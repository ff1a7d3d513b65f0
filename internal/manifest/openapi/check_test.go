package openapi

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/manifest"
)

// The schemaChecker's verdicts, and first error lines, are manifest.CompileSchema's:
// on the OpenAI document's parameters and on copies with one subschema broken
// or given a $ref into another part (checked after the originals, so that
// everything around the change is already known to compile).
func TestSchemaCheckerAgreesWithCompileSchema(t *testing.T) {
	l, err := parseFile(t, openAIFile, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var schemas []any
	for _, c := range l.Candidates {
		schemas = append(schemas, c.Manifest.Parameters)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	breaks := []map[string]any{
		{"type": "strin"},
		{"pattern": "(unclosed"},
		{"minimum": "zero"},
		{"required": "name"},
		{"properties": []any{}},
		{"$ref": "#/properties/nowhere"},
		{"$ref": "#"},
		{"$anchor": "a b"},
		// Place keywords inside data (an extension, an example) place
		// nothing; inside a keyword the walk does not know (draft 4's
		// definitions, which the compiler still reads) they might.
		{"x-resources": map[string]any{"oneOf": []any{map[string]any{"$ref": "#/nowhere", "properties": map[string]any{"id": map[string]any{}}}}}},
		{"examples": []any{map[string]any{"$ref": "#/nowhere", "id": "x"}}},
		{"definitions": map[string]any{"a": map[string]any{"$ref": "#/nowhere"}}},
	}
	for i := 0; i < 700; i++ {
		s := deepCopy(schemas[rng.IntN(len(l.Candidates))])
		subs := subschemas(s, "", nil)
		at := subs[rng.IntN(len(subs))]
		switch {
		case i%10 == 9:
			// The same, from inside a keyword the walk takes for data.
			at.m["definitions"] = map[string]any{"a": map[string]any{"$ref": "#" + subs[len(subs)-1].ptr}}
		case i%5 == 4:
			// A reference into a part that is known to compile: valid, but
			// only while that part is there.
			at.m["$ref"] = "#" + subs[len(subs)-1].ptr
		default:
			for k, v := range breaks[i%len(breaks)] {
				at.m[k] = v
			}
		}
		schemas = append(schemas, s)
	}
	got := make([]error, len(schemas))
	sc := newSchemaChecker()
	first := len(l.Candidates)
	_ = manifest.InParallel(context.Background(), first, func(i int) { got[i] = sc.check(schemas[i]) })
	_ = manifest.InParallel(context.Background(), len(schemas)-first, func(i int) { got[first+i] = sc.check(schemas[first+i]) })
	var bad int
	for i, s := range schemas {
		want := manifest.CompileSchema(manifest.JSONValue(s))
		if want != nil {
			bad++
		}
		if (got[i] == nil) != (want == nil) || got[i] != nil && firstLine(got[i].Error()) != firstLine(want.Error()) {
			t.Errorf("schema %d: schemaChecker says %v, manifest.CompileSchema %v", i, got[i], want)
		}
	}
	if bad < 300 || len(sc.valid) == 0 {
		t.Errorf("%d of %d schemas do not compile, %d subschemas known to: the test tests little", bad, len(schemas), len(sc.valid))
	}
}

// A tool whose parameters do not compile loses the keywords that do not, with
// a warning each; one whose parameter itself is no schema is left out with a
// warning. The tools sharing their valid parts are kept.
func TestToolsThatDoNotCompileAreLeftOut(t *testing.T) {
	doc := `{"openapi": "3.1.0", "info": {"title": "t", "version": "1.0.0"},
	  "paths": {
	    "/a": {"post": {"operationId": "a", "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Ok"}}}}}},
	    "/b": {"post": {"operationId": "b", "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"ok": {"$ref": "#/components/schemas/Ok"}, "bad": {"$ref": "#/components/schemas/Bad"}}}}}}}},
	    "/c": {"post": {"operationId": "c", "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"ok": {"$ref": "#/components/schemas/Ok"}}}}}}}},
	    "/d": {"get": {"operationId": "d", "parameters": [{"name": "q", "in": "query", "schema": 5}]}}},
	  "components": {"schemas": {
	    "Ok": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}, "s": {"type": "string", "pattern": "^[a-z]+$"}}},
	    "Bad": {"type": "string", "minLength": -1}}}}`
	l, err := Parse(context.Background(), "t.json", []byte(doc), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range l.Candidates {
		names = append(names, c.Manifest.Name)
	}
	if strings.Join(names, " ") != "t.a t.b t.c" {
		t.Errorf("tools %v, want t.a t.b t.c", names)
	}
	var left, repaired []string
	for _, w := range l.Warnings {
		if strings.HasPrefix(w.Message, "left out") {
			left = append(left, w.Pointer)
		}
		if strings.HasPrefix(w.Message, "parameters schema keyword left out") && strings.Contains(w.Message, "/properties/body/properties/bad/minLength") {
			repaired = append(repaired, w.Pointer)
		}
	}
	if len(left) != 1 || left[0] != "/paths/~1d/get" || len(repaired) != 1 || repaired[0] != "/paths/~1b/post" {
		t.Errorf("want d left out and b's minLength dropped, located: %+v", l.Warnings)
	}
	for _, c := range l.Candidates {
		if c.Manifest.Name != "t.b" {
			continue
		}
		if err := validates(t, c.Manifest.Parameters, `{"body": {"ok": {"n": 0}}}`); err == nil {
			t.Error("b's other keywords went too: n: 0 accepted")
		}
	}
	// Ok's schema, shared with a and c, keeps its bounds.
	if err := validates(t, l.Candidates[0].Manifest.Parameters, `{"body": {"n": 0}}`); err == nil {
		t.Error("a's minimum went with b's repair")
	}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// subschema is an object at a schema position, with its JSON pointer.
type subschema struct {
	ptr string
	m   map[string]any
}

// subschemas lists the subschemas of s, s first, in key order.
func subschemas(s any, ptr string, out []subschema) []subschema {
	m, ok := s.(map[string]any)
	if !ok {
		return out
	}
	out = append(out, subschema{ptr, m})
	for _, k := range slices.Sorted(maps.Keys(m)) {
		e, p := m[k], ptr+"/"+manifest.Escape(k)
		switch kind := keyword(k); {
		case kind == oneSchema:
			out = subschemas(e, p, out)
		case kind == mapSchemas && isMap(e):
			pm := e.(map[string]any)
			for _, pk := range slices.Sorted(maps.Keys(pm)) {
				out = subschemas(pm[pk], p+"/"+manifest.Escape(pk), out)
			}
		case kind == arrSchemas && isArray(e):
			for i, x := range e.([]any) {
				out = subschemas(x, p+"/"+strconv.Itoa(i), out)
			}
		}
	}
	return out
}
