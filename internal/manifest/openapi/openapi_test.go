package openapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/helixhq/helix/internal/manifest"
)

const testdata = "../../../testdata/manifest/"

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func parseFile(t testing.TB, name string, o LoadOptions) (*Loaded, error) {
	t.Helper()
	if name == openAIFile && o.OpenAPI.Include == nil && o.OpenAPI.Exclude == nil {
		// The 3 MB document is parsed once for all tests: its YAML is slow under -race.
		openAIOnce.Do(func() { openAILoaded, openAIErr = Parse(context.Background(), name, readTestdata(t, name), o) })
		return openAILoaded, openAIErr
	}
	return Parse(context.Background(), name, readTestdata(t, name), o)
}

const openAIFile = "openai-openapi.yaml.gz"

var (
	openAIOnce   sync.Once
	openAILoaded *Loaded
	openAIErr    error
)

func TestRealWorldOpenAPI(t *testing.T) {
	cases := []struct {
		file    string
		ns      string // the namespace from info.title
		version string
		tools   []string // names, or nil to check only the count
		count   int
	}{
		{file: "oai-v2.0-json-petstore.json", ns: "swagger_petstore", version: "2.0", tools: []string{"createPets", "listPets", "showPetById"}},
		{file: "oai-v3.0-petstore.yaml", ns: "swagger_petstore", version: "3.0.0", tools: []string{"createPets", "listPets", "showPetById"}},
		{file: "oai-v3.0-petstore-expanded.yaml", ns: "swagger_petstore", version: "3.0.0", tools: []string{"addPet", "deletePet", "findPets", "find_pet_by_id"}},
		{file: "oai-v3.0-uspto.json", ns: "uspto_data_set_api", version: "3.0.1", tools: []string{"list-data-sets", "list-searchable-fields", "perform-search"}},
		{file: "oai-v3.0-link-example.json", ns: "link_example", version: "3.0.0", count: 6},
		{file: "oai-v3.0-api-with-examples.json", ns: "simple_api_overview", version: "3.0.0", tools: []string{"getVersionDetailsv2", "listVersionsv2"}},
		{file: "oai-v3.0-callback-example.json", ns: "callback_example", version: "3.0.0", count: 1},
		{file: "oai-v3.1-non-oauth-scopes.json", ns: "non-oauth_scopes_example", version: "3.1.0", count: 1},
		{file: "oai-v3.1-webhook-example.json", ns: "webhook_example", version: "3.1.0", count: 0},
		{file: "openai-openapi.yaml.gz", ns: "openai_api", version: "3.1.0", count: 288},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			l, err := parseFile(t, c.file, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if l.Kind != "openapi" || l.OpenAPI != c.version {
				t.Errorf("kind %s version %s, want openapi %s", l.Kind, l.OpenAPI, c.version)
			}
			var names []string
			for _, cand := range l.Candidates {
				m := cand.Manifest
				short, ok := strings.CutPrefix(m.Name, c.ns+".")
				if !ok {
					t.Errorf("%s: not in namespace %s", m.Name, c.ns)
				}
				names = append(names, short)
				if err := manifest.CompileSchema(manifest.JSONValue(m.Parameters)); err != nil {
					t.Errorf("%s: parameters do not compile as 2020-12: %v", m.Name, err)
				}
				if m.Entrypoint.HTTP == nil || m.Entrypoint.HTTP.Method == "" || m.Entrypoint.HTTP.URL == "" {
					t.Errorf("%s: no HTTP entrypoint: %+v", m.Name, m.Entrypoint)
				}
				if !strings.Contains(cand.Source, "#/paths/") {
					t.Errorf("%s: source %q does not point at its operation", m.Name, cand.Source)
				}
			}
			want := c.count
			if c.tools != nil {
				want = len(c.tools)
				slices.Sort(names)
				if !slices.Equal(names, c.tools) {
					t.Errorf("tools %v, want %v", names, c.tools)
				}
			}
			if len(names) != want {
				t.Errorf("%d tools, want %d", len(names), want)
			}
			if want == 0 && !slices.ContainsFunc(l.Warnings, func(w manifest.Warning) bool { return strings.Contains(w.Message, "only webhooks") }) {
				t.Errorf("a webhook-only document should say it has no tools: %+v", l.Warnings)
			}
		})
	}
}

func TestOpenAIWarningsAreLocated(t *testing.T) {
	l, err := parseFile(t, "openai-openapi.yaml.gz", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var recursive *manifest.Warning
	for i, w := range l.Warnings {
		if strings.Contains(w.Message, "$recursiveRef") {
			recursive = &l.Warnings[i]
			break
		}
	}
	if recursive == nil {
		t.Fatalf("expected kin-openapi's $recursiveRef finding among %d warnings", len(l.Warnings))
	}
	if !strings.HasPrefix(recursive.Pointer, "/components/schemas/") {
		t.Errorf("warning pointer %q, want a component schema", recursive.Pointer)
	}
	name := strings.TrimPrefix(recursive.Pointer, "/components/schemas/")
	if !strings.Contains(string(readTestdata(t, openAIFile)), "\n    "+name+":\n") {
		t.Errorf("warning pointer %q does not name a schema of the document", recursive.Pointer)
	}
	// Credentials are names and kinds only.
	for _, c := range l.Candidates {
		if c.Manifest.Name == "openai_api.createChatCompletion" {
			if len(c.Manifest.Credentials) == 0 || c.Manifest.Credentials[0][0].Type != "http" {
				t.Errorf("createChatCompletion credentials %+v, want the bearer scheme", c.Manifest.Credentials)
			}
			if got := c.Manifest.Permissions.Network; !slices.Equal(got, manifest.Network{"api.openai.com"}) {
				t.Errorf("network %v, want api.openai.com", got)
			}
			return
		}
	}
	t.Error("no createChatCompletion tool")
}

func TestOperationToTool(t *testing.T) {
	l, err := parseFile(t, "tools/recursive.yaml", LoadOptions{OpenAPI: Options{Timeout: "15s"}})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*manifest.Manifest{}
	for _, c := range l.Candidates {
		byName[c.Manifest.Name] = c.Manifest
	}
	create := byName["tree.createNode"]
	if create == nil {
		t.Fatalf("tools %v", byName)
	}
	b, _ := json.Marshal(create.Parameters)
	var p struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Required, []string{"X-Request-Id", "body"}) {
		t.Errorf("required %v, want the header and the body", p.Required)
	}
	if p.Properties["dry_run"]["x-helix-in"] != "query" || p.Properties["X-Request-Id"]["x-helix-in"] != "header" {
		t.Errorf("parameter locations lost: %s", b)
	}
	body := p.Properties["body"]
	if body["type"] != "object" || !strings.Contains(string(b), "recursive reference #/components/schemas/Node cut") {
		t.Errorf("body should inline Node and cut its recursion: %s", b)
	}
	if len(create.Notes) == 0 || !strings.Contains(create.Notes[0], "recursive reference") {
		t.Errorf("notes %v, want the cut recursion", create.Notes)
	}
	if e := create.Entrypoint.HTTP; e.Method != "POST" || e.URL != "https://tree.example/api/nodes" || e.BodyContentType != "application/json" {
		t.Errorf("entrypoint %+v", e)
	}
	if got := create.Permissions; !slices.Equal(got.Network, manifest.Network{"tree.example"}) || got.Timeout != "15s" {
		t.Errorf("permissions %+v", got)
	}
	if len(create.Credentials) != 1 || !reflect.DeepEqual(create.Credentials[0][0], manifest.Credential{Scheme: "bearer", Type: "http", HTTPScheme: "bearer"}) {
		t.Errorf("credentials %+v", create.Credentials)
	}
	get := byName["tree.get_nodes_id"]
	if get == nil {
		t.Fatalf("an operation without operationId is named from method and path; got %v", byName)
	}
	if len(get.Credentials) != 0 {
		t.Errorf("security: [] means no credentials, got %+v", get.Credentials)
	}
	if get.Version != "2.1.0" || !slices.Equal(get.Tags, []string{"nodes"}) {
		t.Errorf("version %s tags %v", get.Version, get.Tags)
	}
}

func TestIncludeExclude(t *testing.T) {
	names := func(o Options) []string {
		l, err := parseFile(t, "oai-v3.0-petstore.yaml", LoadOptions{OpenAPI: o})
		if err != nil {
			t.Fatal(err)
		}
		var ns []string
		for _, c := range l.Candidates {
			ns = append(ns, strings.TrimPrefix(c.Manifest.Name, "swagger_petstore."))
		}
		slices.Sort(ns)
		return ns
	}
	if got := names(Options{Include: []string{"listPets", "showPetById"}}); !slices.Equal(got, []string{"listPets", "showPetById"}) {
		t.Errorf("include by operationId: %v", got)
	}
	if got := names(Options{Exclude: []string{"pets"}}); len(got) != 0 {
		t.Errorf("exclude by tag: %v", got)
	}
	if got := names(Options{Include: []string{"pets"}, Exclude: []string{"createPets"}}); !slices.Equal(got, []string{"listPets", "showPetById"}) {
		t.Errorf("include tag, exclude one: %v", got)
	}
}

// With several broken references, the one reported is the first in key
// order, every run, although they are found in map order.
func TestFirstBrokenRefIsStable(t *testing.T) {
	doc := []byte(`{"openapi": "3.0.3", "info": {"title": "t", "version": "1.0.0"}, "paths": {
	  "/a": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Ok"}}}}}}},
	  "/b": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Gone"}}}}}}},
	  "/c": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "https://example.com/x.json"}}}}}}}},
	  "components": {"schemas": {"Ok": {"type": "string"}, "Loop": {"$ref": "#/components/schemas/Loop"}}}}`)
	for i := 0; i < 20; i++ {
		_, err := Parse(context.Background(), "t.json", doc, LoadOptions{})
		var le *manifest.Error
		if !errors.As(err, &le) || le.Pointer != "/components/schemas/Loop/$ref" {
			t.Fatalf("run %d: %v, want the cycle in /components first", i, err)
		}
	}
}

func TestMalformed(t *testing.T) {
	cases := []struct {
		file    string
		line    int
		pointer string
		msg     string
	}{
		{"bad/bad-yaml.yaml", 3, "", "invalid YAML"},
		{"bad/unknown-field.yaml", 19, "/permissions/gpu", `unknown field "gpu"`},
		{"bad/missing-name.yaml", 1, "", "missing property 'name'"},
		{"bad/bad-semver.yaml", 2, "/version", "not a semantic version"},
		{"bad/cyclic-refs.yaml", 16, "/components/schemas/Alias/$ref", "cyclic reference: #/components/schemas/Thing → #/components/schemas/Alias → #/components/schemas/Thing"},
		{"bad/external-refs.yaml", 12, "/paths/~1things/get/responses/200/content/application~1json/schema/$ref", "external reference"},
		{"bad/truncated.json", 82, "", "ends early"},
		{"bad/truncated.yaml", 36, "/paths/~1pets/get/responses/200/content/application~1json/schema/$ref", "points at nothing"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			_, err := parseFile(t, c.file, LoadOptions{})
			var le *manifest.Error
			var be *BudgetError
			if !errors.As(err, &le) && !errors.As(err, &be) {
				t.Fatalf("error %v, want a located *manifest.Error", err)
			}
			if le.Line != c.line || le.Pointer != c.pointer || !strings.Contains(le.Msg, c.msg) {
				t.Errorf("got line %d pointer %q msg %q; want line %d pointer %q msg ~%q", le.Line, le.Pointer, le.Msg, c.line, c.pointer, c.msg)
			}
			if !strings.HasPrefix(err.Error(), c.file+":") {
				t.Errorf("error %q should start with the file and line", err)
			}
		})
	}
}

func TestManifests(t *testing.T) {
	l, err := parseFile(t, "tools/ocr.yaml", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := l.Candidates[0].Manifest
	lim, err := m.Permissions.Limits()
	if err != nil {
		t.Fatal(err)
	}
	want := manifest.Limits{StorageBytes: 1 << 30, CPUMillis: 500, MemoryBytes: 1 << 30, TimeoutMS: 120000}
	if lim.StorageBytes != want.StorageBytes || lim.CPUMillis != want.CPUMillis || lim.MemoryBytes != want.MemoryBytes || lim.TimeoutMS != want.TimeoutMS || len(lim.Hosts) != 0 {
		t.Errorf("limits %+v, want %+v", lim, want)
	}
	if m.Entrypoint.Container == nil || m.Entrypoint.Container.Image != "ghcr.io/helix/ocr:2.0.0" {
		t.Errorf("entrypoint %+v", m.Entrypoint)
	}
	if _, err := parseFile(t, "tools/summarize.json", LoadOptions{}); err != nil {
		t.Errorf("JSON manifest: %v", err)
	}

	// Configured maxima apply.
	_, err = parseFile(t, "tools/ocr.yaml", LoadOptions{Maxima: manifest.Maxima{MemoryBytes: 512 << 20}})
	var le *manifest.Error
	if !errors.As(err, &le) || le.Pointer != "/permissions/memory" || le.Line != 17 || !strings.Contains(le.Msg, "manifest.max-memory") {
		t.Errorf("memory over the maximum: %v", err)
	}
}

func TestManifestSemanticChecks(t *testing.T) {
	base := string(readTestdata(t, "tools/weather-1.0.0.yaml"))
	cases := []struct{ from, to, pointer, msg string }{
		{"network: [api.weather.example]", "network: [api..example]", "/permissions/network/0", "not a host name"},
		{"network: [api.weather.example]", "network: [\"api.weather.example:99999\"]", "/permissions/network/0", "invalid port"},
		{"memory: 128MiB", "memory: lots", "/permissions/memory", "invalid size \"lots\""},
		{"timeout: 10s", "timeout: soon", "/permissions/timeout", "not a positive duration"},
		{"method: GET", "method: FETCH", "/entrypoint/http/method", "value must be one of"},
		{"  required: [place]", "  required: place", "/parameters", "not a valid JSON Schema"},
		{"entrypoint:\n", "entrypoint:\n  skill: x\n", "/entrypoint", "maxProperties"},
	}
	for _, c := range cases {
		src := strings.Replace(base, c.from, c.to, 1)
		if src == base {
			t.Fatalf("replacement %q not found", c.from)
		}
		_, err := Parse(context.Background(), "w.yaml", []byte(src), LoadOptions{})
		var le *manifest.Error
		if !errors.As(err, &le) || le.Pointer != c.pointer || !strings.Contains(le.Msg, c.msg) || le.Line == 0 {
			t.Errorf("%s: got %v; want pointer %s, message ~%q, with a line", c.to, err, c.pointer, c.msg)
		}
	}
}

func TestWidening(t *testing.T) {
	prev := manifest.Limits{Hosts: []string{"a.example"}, MemoryBytes: 128 << 20, TimeoutMS: 10000}
	if w := manifest.Widening(prev, manifest.Limits{Hosts: []string{"a.example"}, MemoryBytes: 64 << 20}); len(w) != 0 {
		t.Errorf("narrower permissions reported as widening: %v", w)
	}
	w := manifest.Widening(prev, manifest.Limits{Hosts: []string{"a.example", "b.example"}, MemoryBytes: 256 << 20, TimeoutMS: 10000})
	if !slices.Equal(w, []string{"new host b.example", "memory 128 MiB → 256 MiB"}) {
		t.Errorf("widening %v", w)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"tools/weather-1.0.0.yaml", "tools/summarize.json", "tools/recursive.yaml", "oai-v3.0-petstore.yaml", "bad/cyclic-refs.yaml",
		"importer/percent-encoded-refs.yaml", "importer/ecma-patterns.yaml", "importer/scheme-relative-server.yaml"} {
		f.Add(readTestdata(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(context.Background(), "fuzz", data, LoadOptions{})
		if err != nil {
			var le *manifest.Error
			var be *BudgetError
			if !errors.As(err, &le) && !errors.As(err, &be) {
				t.Fatalf("unlocated error %T: %v", err, err)
			}
			return
		}
		for _, c := range l.Candidates {
			if _, _, err := manifest.Digest(c.Manifest); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestYAMLAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		prev := "*a" + string(rune('0'+i-1))
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [" + strings.Repeat(prev+", ", 9) + prev + "]\n")
	}
	_, err := manifest.Decode("bomb.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "expands to too many values") {
		t.Fatalf("alias bomb: %v", err)
	}
}

func TestExponentialSchemaIsBounded(t *testing.T) {
	// L0 uses L1 six times, L1 uses L2 six times... : 6^12 values if fully expanded.
	var b strings.Builder
	b.WriteString(`{"openapi": "3.0.3", "info": {"title": "t", "version": "1.0.0"},
"paths": {"/x": {"post": {"operationId": "x", "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/L0"}}}}, "responses": {"200": {"description": "ok"}}}}},
"components": {"schemas": {`)
	for i := 0; i < 12; i++ {
		next := fmt.Sprintf(`{"$ref": "#/components/schemas/L%d"}`, i+1)
		fmt.Fprintf(&b, `"L%d": {"type": "object", "properties": {"a": %s, "b": %s, "c": %s, "d": %s, "e": %s, "f": %s}},`, i, next, next, next, next, next, next)
	}
	b.WriteString(`"L12": {"type": "string"}}}}`)
	l, err := Parse(context.Background(), "exp.json", []byte(b.String()), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Candidates) != 1 || !strings.Contains(strings.Join(l.Candidates[0].Manifest.Notes, " "), "expansion stopped") {
		t.Errorf("want one tool with a note on the stopped expansion: %+v", l.Candidates)
	}
}

// kin-openapi loads a pruned copy: extensions of the document, path items and
// operations go, while names that only look like extensions (a property or a
// response header called x-...) and kin-openapi's findings stay.
func TestPruneForKinKeepsFindings(t *testing.T) {
	doc := []byte(`{"openapi": "3.0.3", "info": {"title": "t", "version": "1.0.0"}, "x-meta": {"big": true},
	  "paths": {"/a": {"x-item": 1, "post": {"operationId": "a", "x-oaiMeta": {"examples": [1, 2]},
	    "parameters": [{"name": "x-trace", "in": "header", "schema": {"type": "string"}}],
	    "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S"}}}},
	    "responses": {"200": {"description": "ok", "headers": {"x-rate": {"schema": {"type": "integer"}}}}}}}},
	  "components": {"schemas": {"S": {"type": "object", "properties": {"x-keep": {"type": "strin"}}}}}}`)
	d, err := manifest.Decode("t.json", doc)
	if err != nil {
		t.Fatal(err)
	}
	root := d.Tree.(map[string]any)
	p := pruneForKin(root)
	op := p["paths"].(map[string]any)["/a"].(map[string]any)["post"].(map[string]any)
	if p["x-meta"] != nil || p["paths"].(map[string]any)["/a"].(map[string]any)["x-item"] != nil || op["x-oaiMeta"] != nil {
		t.Errorf("extensions left for kin-openapi: %v", p)
	}
	if root["x-meta"] == nil || root["paths"].(map[string]any)["/a"].(map[string]any)["post"].(map[string]any)["x-oaiMeta"] == nil {
		t.Error("pruneForKin changed the document")
	}
	if op["responses"].(map[string]any)["200"].(map[string]any)["headers"].(map[string]any)["x-rate"] == nil {
		t.Error("the response header x-rate was dropped")
	}
	l, err := Parse(context.Background(), "t.json", doc, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(l.Warnings, func(w manifest.Warning) bool {
		return w.Pointer == "/components/schemas/S" && strings.Contains(w.Message, "strin")
	}) {
		t.Errorf("kin-openapi's finding on the property x-keep is missing: %+v", l.Warnings)
	}
}

// kin-openapi's copy is encoding/json's, but for descriptions.
func TestAppendKinJSON(t *testing.T) {
	v := map[string]any{
		"a":           []any{int64(-3), 1.5, 1e21, 2.5e-7, true, false, nil, "plain", "quote \" back \\ tab \t nl \n nul \x00 <&> é ✓ \u2028", "bad \xff utf8"},
		"description": "long text", "empty": map[string]any{"description": ""},
		"properties": map[string]any{"description": map[string]any{"type": "string", "description": "kept short"}},
	}
	got, err := appendKinJSON(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	v["description"] = "."
	v["properties"].(map[string]any)["description"].(map[string]any)["description"] = "."
	want, _ := json.Marshal(v)
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	_ = json.Unmarshal(want, &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, err := appendKinJSON(nil, map[string]any{"x": math.Inf(1)}); err == nil {
		t.Error("+Inf: want encoding/json's error")
	}
}

// Issue 22, finding 4: text PostgreSQL cannot store, or that the decoder
// would rewrite, is refused naming the line; a backslash that YAML reads
// literally is kept.
func TestTextRefusedWithLine(t *testing.T) {
	pet := string(readTestdata(t, "oai-v3.0-petstore.yaml"))
	petJSON := string(readTestdata(t, "oai-v3.0-uspto.json"))
	cases := []struct{ name, doc, want string }{
		{"JSON \\u0000", strings.Replace(petJSON, `"title": "USPTO Data Set API"`, `"title": "Swagger\u0000Petstore"`, 1), "escape \\u0000 is a NUL character"},
		{"JSON lone surrogate", strings.Replace(petJSON, `"title": "USPTO Data Set API"`, `"title": "Swagger \ud800"`, 1), "lone UTF-16 high surrogate"},
		{"YAML \\0", strings.Replace(pet, "title: Swagger Petstore", `title: "Swagger\0Petstore"`, 1), "a NUL character"},
		{"YAML invalid UTF-8", strings.Replace(pet, "title: Swagger Petstore", "title: Swagger \xff", 1), "invalid UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(c.doc, "Swagger") || c.doc == pet || c.doc == petJSON {
				t.Fatal("the fixture changed: the replacement did not apply")
			}
			_, err := Parse(context.Background(), "pet", []byte(c.doc), LoadOptions{})
			var le *manifest.Error
			if !errors.As(err, &le) || !strings.Contains(err.Error(), c.want) || !(le.Line > 1 || strings.Contains(le.Msg, "line ")) {
				t.Fatalf("got %v, want a located %q", err, c.want)
			}
		})
	}
	lit := strings.Replace(pet, "title: Swagger Petstore", `title: '^[\x00-\x7F]*$ \u0000'`, 1)
	l, err := Parse(context.Background(), "pet", []byte(lit), LoadOptions{})
	if err != nil || len(l.Candidates) == 0 {
		t.Fatalf("a literal backslash in a single-quoted YAML scalar: %v", err)
	}
}
