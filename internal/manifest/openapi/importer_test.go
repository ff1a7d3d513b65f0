package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/pgtest"
)

// Each test here reproduces an importer defect seen on published API
// descriptions, with a fixture of our own in testdata/manifest/importer.

func importerTools(t *testing.T, name string, o Options) (*Loaded, map[string]*manifest.Manifest) {
	t.Helper()
	l, err := Parse(context.Background(), name, readTestdata(t, "importer/"+name), LoadOptions{OpenAPI: o})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*manifest.Manifest{}
	for _, c := range l.Candidates {
		byName[c.Manifest.Name] = c.Manifest
	}
	return l, byName
}

func validates(t *testing.T, schema any, input string) error {
	t.Helper()
	sch, err := manifest.Compile(manifest.JSONValue(schema))
	if err != nil {
		t.Fatal(err)
	}
	v, err := manifest.DecodeInput([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(v)
}

// RFC 6901 §6: "#/components/schemas/%7Bitem%7D" names the schema "{item}".
func TestPercentEncodedRefs(t *testing.T) {
	_, tools := importerTools(t, "percent-encoded-refs.yaml", Options{})
	put, get := tools["percent_refs.putItem"], tools["percent_refs.getItem"]
	if put == nil || get == nil {
		t.Fatalf("tools %v", tools)
	}
	if err := validates(t, put.Parameters, `{"id": 3, "body": {"name": "a", "tags": ["short"]}}`); err != nil {
		t.Errorf("valid input refused: %v", err)
	}
	// The body's schema was found through the encoded pointer: name is required, tags are capped.
	for _, bad := range []string{`{"id": 3, "body": {}}`, `{"id": 3, "body": {"name": "a", "tags": ["` + strings.Repeat("x", 21) + `"]}}`, `{"id": 0, "body": {"name": "a"}}`} {
		if err := validates(t, put.Parameters, bad); err == nil {
			t.Errorf("%s accepted: the referenced schemas were not applied", bad)
		}
	}
	if _, ok := manifest.Resolve(map[string]any{"a b": 1}, "#/a%zz"); ok {
		t.Error("a malformed percent-encoding resolved")
	}
}

// ECMA-262 patterns compile and are enforced instead of dropping operations.
func TestECMAPatterns(t *testing.T) {
	l, tools := importerTools(t, "ecma-patterns.yaml", Options{})
	create, get := tools["ecma_patterns.createUser"], tools["ecma_patterns.getUser"]
	if create == nil || get == nil {
		t.Fatalf("operations dropped: tools %v, warnings %+v", tools, l.Warnings)
	}
	for _, w := range l.Warnings {
		if strings.Contains(w.Message, "regexp") || strings.Contains(w.Message, "file://") {
			t.Errorf("warning %+v", w)
		}
	}
	if err := validates(t, create.Parameters, `{"body": {"password": "abcdefg1", "name": "Zoë Ådahl", "bio": "`+strings.Repeat("x", 4000)+`"}}`); err != nil {
		t.Errorf("valid input refused: %v", err)
	}
	for _, bad := range []string{
		`{"body": {"password": "abcdefgh", "name": "Zoë"}}`,  // lookahead: needs a digit
		`{"body": {"password": "abcd efg1", "name": "Zoë"}}`, // negative lookahead: no space
		`{"body": {"password": "abcdefg1", "name": "Zoë1"}}`, // \p{L} only
		`{"body": {"password": "abcdefg1", "name": "Zoë", "bio": "` + strings.Repeat("x", 5001) + `"}}`,
	} {
		if err := validates(t, create.Parameters, bad); err == nil {
			t.Errorf("%.80s accepted", bad)
		}
	}
	if err := validates(t, get.Parameters, `{"handle": "admin"}`); err == nil {
		t.Error("handle admin accepted despite (?!admin$)")
	}
}

// A schema that really does not compile is left out with a warning that
// points into the schema, not at a file that does not exist.
func TestUncompilableSchemaWarning(t *testing.T) {
	err := manifest.CompileSchema(map[string]any{"properties": map[string]any{"a": map[string]any{"pattern": "(unclosed"}}})
	if err == nil || strings.Contains(err.Error(), "file:") || strings.Contains(err.Error(), "tool.json") || !strings.Contains(err.Error(), "/properties/a/pattern") {
		t.Errorf("error %v", err)
	}
}

func TestSchemeRelativeServer(t *testing.T) {
	l, tools := importerTools(t, "scheme-relative-server.yaml", Options{})
	ping := tools["scheme_relative.ping"]
	if ping == nil || ping.Entrypoint.HTTP.URL != "https://api.example.com/v1/ping" || ping.Permissions.Network[0] != "api.example.com" {
		t.Fatalf("tools %+v", tools)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0].Message, "scheme-relative") {
		t.Errorf("warnings %+v", l.Warnings)
	}
	_, tools = importerTools(t, "scheme-relative-server.yaml", Options{BaseURL: "http://docs.example.org/openapi.yaml"})
	if u := tools["scheme_relative.ping"].Entrypoint.HTTP.URL; u != "http://api.example.com/v1/ping" {
		t.Errorf("against the document's URL: %s", u)
	}
}

// 7 KB of $refs that fan out exponentially: refused by the expansion budget
// with a clear error, converted within bounds when the budget is raised, and
// stopped by the deadline.
func TestFannedOutRefsBounded(t *testing.T) {
	data := readTestdata(t, "importer/fanned-out-refs.json")
	_, err := Parse(context.Background(), "fan.json", data, LoadOptions{})
	var be *BudgetError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "--expansion-budget") {
		t.Fatalf("error %v, want the expansion budget", err)
	}
	l, err := Parse(context.Background(), "fan.json", data, LoadOptions{OpenAPI: Options{Budget: 1 << 30, Include: []string{"fan0"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Candidates) != 1 || !strings.Contains(strings.Join(l.Candidates[0].Manifest.Notes, " "), "expansion stopped") {
		t.Errorf("%d tools, notes %v", len(l.Candidates), l.Candidates[0].Manifest.Notes)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	if _, err := Parse(ctx, "fan.json", data, LoadOptions{OpenAPI: Options{Budget: 1 << 30}}); err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Errorf("error %v, want the deadline", err)
	}
}

// Two pet stores with the same operationIds: each API's tools get its own
// namespace, so both are recorded side by side.
func TestPetstoresSideBySide(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	parse := func(file, ns string) []manifest.Candidate {
		l, err := parseFile(t, file, LoadOptions{OpenAPI: Options{Namespace: ns}})
		if err != nil {
			t.Fatal(err)
		}
		return l.Candidates
	}
	o := manifest.ImportOptions{Actor: "t", Now: time.Now()}
	if _, err := manifest.Record(ctx, pool, parse("oai-v3.0-petstore.yaml", ""), o); err != nil {
		t.Fatal(err)
	}
	// Same title, same operationIds, other content: refused, with the way out.
	_, err := manifest.Record(ctx, pool, parse("oai-v2.0-json-petstore.json", ""), o)
	var ce *manifest.ConflictError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "--namespace") {
		t.Fatalf("error %v", err)
	}
	if _, err := manifest.Record(ctx, pool, parse("oai-v2.0-json-petstore.json", "petstore_v2"), o); err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Record(ctx, pool, parse("openai-openapi.yaml.gz", ""), o); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM tool_manifests WHERE name IN ('swagger_petstore.listPets', 'petstore_v2.listPets')`).Scan(&n); err != nil || n != 2 {
		t.Errorf("both listPets: %d %v", n, err)
	}
}

// RFC 6901 §6: a pointer is percent-decoded in every segment, whatever
// follows, and may lead into a response's content (and through the
// properties beside a $ref), which kin-openapi's copy must keep.
func TestRefsIntoContent(t *testing.T) {
	l, tools := importerTools(t, "refs-into-content.yaml", Options{})
	put, post := tools["refs_into_content.putItem"], tools["refs_into_content.postLogo"]
	if put == nil || post == nil || len(tools) != 4 {
		t.Fatalf("tools %v, warnings %+v", tools, l.Warnings)
	}
	// kin-openapi cannot follow postLogo's pointer through the properties
	// beside a $ref (it drops them): that document goes unvalidated by it,
	// with a warning, but the responses' content was there for putItem's.
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0].Message, `not validated by kin-openapi, which cannot load it: failed to resolve "logo"`) {
		t.Errorf("warnings %+v", l.Warnings)
	}
	if err := validates(t, put.Parameters, `{"id": 3, "body": {"name": "short"}}`); err != nil {
		t.Errorf("valid input refused: %v", err)
	}
	for _, bad := range []string{`{"id": 3, "body": {}}`, `{"id": 3, "body": {"name": "much too long"}}`, `{"id": 0, "body": {"name": "a"}}`} {
		if err := validates(t, put.Parameters, bad); err == nil {
			t.Errorf("%s accepted: the referenced schemas were not applied", bad)
		}
	}
	if err := validates(t, post.Parameters, `{"body": 12}`); err == nil {
		t.Error("a number accepted for the logo: the reference did not reach properties/logo/properties/full")
	}
	d, err := manifest.Decode("x", readTestdata(t, "importer/refs-into-content.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// %2F is a separator once decoded, %7E1 an escaped slash: both as RFC 6901 reads them.
	for ref, want := range map[string]any{
		"#/paths/~1logos/post/requestBody/content/application~1json/schema/$ref":       "#/paths/~1logos/get/responses/200/content/application%7E1json/schema/properties/logo/properties/full",
		"#/paths/~1logos/post/requestBody/content/application%7E1json/schema/$ref":     "#/paths/~1logos/get/responses/200/content/application%7E1json/schema/properties/logo/properties/full",
		"#/paths/~1logos/post/requestBody/content/application~1json%2Fschema%2F%24ref": "#/paths/~1logos/get/responses/200/content/application%7E1json/schema/properties/logo/properties/full",
	} {
		if got, ok := manifest.Resolve(d.Tree, ref); !ok || got != want {
			t.Errorf("Resolve(%s) = %v, %v", ref, got, ok)
		}
	}
}

// Every ECMA-262 pattern compiles, \p{ASCII} included; a Java or POSIX
// pattern drops only its own keyword, with a warning naming it.
func TestDialectPatterns(t *testing.T) {
	l, tools := importerTools(t, "dialect-patterns.yaml", Options{})
	create := tools["dialect_patterns.createNote"]
	if create == nil {
		t.Fatalf("operation dropped: warnings %+v", l.Warnings)
	}
	var dropped []string
	for _, w := range l.Warnings {
		if !strings.Contains(w.Message, "left out, values are not checked against it") || w.Pointer != "/paths/~1notes/post" {
			t.Errorf("warning %+v", w)
		}
		dropped = append(dropped, w.Message)
	}
	for _, p := range []string{`\\A[0-9]{3}\\z`, `^\\p{Alnum}+$`, `^[a-z&&[^aeiou]]+$`, `^[[:digit:]]+$`} {
		if !slices.ContainsFunc(dropped, func(m string) bool { return strings.Contains(m, `pattern "`+p+`"`) }) {
			t.Errorf("no warning names %s: %q", p, dropped)
		}
	}
	if len(dropped) != 4 {
		t.Errorf("%d patterns dropped: %q", len(dropped), dropped)
	}
	ok := `{"code": "x", "body": {"title": "Hello, world", "greek": "Καλή μέρα", "notAscii": "ζωή", "word": "Zoë", "handle": "a_b!", "consonants": "aaa", "digits": "ab"}}`
	if err := validates(t, create.Parameters, ok); err != nil {
		t.Errorf("valid input refused: %v", err)
	}
	for _, bad := range []string{
		`{"code": "1", "body": {"title": "Héllo"}}`,
		`{"code": "1", "body": {"title": "` + strings.Repeat("a", 21) + `"}}`,
		`{"code": "1", "body": {"greek": "Hello"}}`,
		`{"code": "1", "body": {"notAscii": "abc"}}`,
		`{"code": "1", "body": {"word": "abc1"}}`,
		`{"code": "1", "body": {"digits": "12345"}}`, // the rest of a schema stays
	} {
		if err := validates(t, create.Parameters, bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// A server URL that is no URL (a placeholder, a host without a scheme) keeps
// the operations, waiting for --server like a relative one.
func TestPlaceholderServer(t *testing.T) {
	for _, server := range []string{"Your API URL", "api.example.com/v1", ","} {
		doc := `{"openapi": "3.0.3", "info": {"title": "p", "version": "1.0.0"}, "servers": [{"url": "` + server + `"}],
		  "paths": {"/v1/items": {"get": {"operationId": "list", "responses": {"200": {"description": "ok"}}}}}}`
		l, err := Parse(context.Background(), "p.json", []byte(doc), LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", server, err)
		}
		if len(l.Candidates) != 1 {
			t.Fatalf("%s: %d tools", server, len(l.Candidates))
		}
		m := l.Candidates[0].Manifest
		if m.Entrypoint.HTTP.URL != "/v1/items" || len(m.Permissions.Network) != 0 || !strings.Contains(strings.Join(m.Notes, " "), "--server") {
			t.Errorf("%s: url %s, network %v, notes %q", server, m.Entrypoint.HTTP.URL, m.Permissions.Network, m.Notes)
		}
	}
	l, err := Parse(context.Background(), "p.json", []byte(`{"openapi": "3.0.3", "info": {"title": "p", "version": "1.0.0"}, "servers": [{"url": "Your API URL"}],
	  "paths": {"/v1/items": {"get": {"operationId": "list", "responses": {"200": {"description": "ok"}}}}}}`), LoadOptions{OpenAPI: Options{Server: "https://api.example.com"}})
	if err != nil || l.Candidates[0].Manifest.Entrypoint.HTTP.URL != "https://api.example.com/v1/items" {
		t.Errorf("with --server: %v, %+v", err, l)
	}
}

// A response schema is checked through nested references, not one deep: in
// the OpenIndex retrieval API (APIs.guru directory, openindex.ai.json) the
// query's response nests QueryResult → DocumentChunkWithScore →
// DocumentChunkMetadata → Source, five references deep.
func TestResponseRefsNested(t *testing.T) {
	l, err := Parse(context.Background(), "openindex.ai.json", readTestdata(t, "corpus/openindex.ai.json"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var m *manifest.Manifest
	for _, c := range l.Candidates {
		if strings.HasSuffix(c.Manifest.Name, ".query_query_post") {
			m = c.Manifest
		}
	}
	if m == nil || m.Returns == nil {
		t.Fatalf("no query tool with a response schema: %+v", l.Candidates)
	}
	answer := func(source string) string {
		return `{"results": [{"query": "q", "results": [{"text": "t", "score": 0.5, "metadata": {"source": "` + source + `"}}]}]}`
	}
	if err := validates(t, m.Returns, answer("web")); err != nil {
		t.Errorf("a valid answer: %v", err)
	}
	if err := validates(t, m.Returns, answer("carrier pigeon")); err == nil {
		t.Errorf("a source outside the enumeration five references deep was accepted")
	}
	if err := validates(t, m.Returns, `{"results": [{"query": "q", "results": [{"text": "t", "score": "high", "metadata": {}}]}]}`); err == nil {
		t.Errorf("a string score three references deep was accepted")
	}
}

// A response schema that refers to itself is expanded a bounded number of
// times, and one that would expand past maxReturnsValues is expanded less deep.
func TestResponseRefsBounded(t *testing.T) {
	doc := `{"openapi": "3.0.3", "info": {"title": "t", "version": "1.0.0"}, "servers": [{"url": "https://api.example"}],
	  "paths": {
	    "/tree": {"get": {"operationId": "tree", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}}}},
	    "/wide": {"get": {"operationId": "wide", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/W0"}}}}}}}},
	  "components": {"schemas": {
	    "Node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}},
	    %s}}}`
	var wide []string
	for i := 0; i < 8; i++ { // each level refers to the next 12 times: 12^8 values expanded fully
		var props []string
		for j := 0; j < 12; j++ {
			props = append(props, fmt.Sprintf(`"p%d": {"$ref": "#/components/schemas/W%d"}`, j, i+1))
		}
		wide = append(wide, fmt.Sprintf(`"W%d": {"type": "object", "properties": {%s}}`, i, strings.Join(props, ",")))
	}
	wide = append(wide, `"W8": {"type": "integer"}`)
	l, err := Parse(context.Background(), "t.json", []byte(fmt.Sprintf(doc, strings.Join(wide, ","))), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range l.Candidates {
		m := c.Manifest
		b, err := json.Marshal(m.Returns)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 40*maxReturnsValues {
			t.Errorf("%s: response schema of %d bytes", m.Name, len(b))
		}
		if !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, "levels of references") }) {
			t.Errorf("%s: no note of the depth: %q", m.Name, m.Notes)
		}
	}
}
