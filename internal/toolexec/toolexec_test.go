package toolexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/manifest/openapi"
	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/pgtest"
)

const testdata = "../../testdata/manifest/"

// importTools records and approves the operations of a document, with its
// server replaced by server.
func importTools(t *testing.T, pool *pgxpool.Pool, file, server string, o openapi.Options) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdata, file))
	if err != nil {
		t.Fatal(err)
	}
	o.Server = server
	l, err := openapi.Parse(context.Background(), file, data, openapi.LoadOptions{OpenAPI: o})
	if err != nil {
		t.Fatal(err)
	}
	approveAll(t, pool, l.Candidates)
}

func approveAll(t *testing.T, pool *pgxpool.Pool, cands []manifest.Candidate) {
	t.Helper()
	ctx := context.Background()
	if _, err := manifest.Record(ctx, pool, cands, manifest.ImportOptions{Actor: "t", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, c := range cands {
		if _, err := manifest.Approve(ctx, pool, c.Manifest.Name, c.Manifest.Version, "t", "test", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// seen is what the test server received.
type seen struct {
	mu   sync.Mutex
	reqs []string
}

func (s *seen) add(r string) { s.mu.Lock(); s.reqs = append(s.reqs, r); s.mu.Unlock() }
func (s *seen) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func run(t *testing.T, pool *pgxpool.Pool, r *Runner, name, input string) (*Result, error) {
	t.Helper()
	tool, err := Load(context.Background(), pool, name, "")
	if err != nil {
		t.Fatal(err)
	}
	return r.Exec(context.Background(), pool, tool, Options{Input: []byte(input), UserID: "6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b"})
}

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

// A server that checks method, path, query, headers, body and auth as the
// services behind the real documents would, and answers in their shapes.
func TestExecRealDocuments(t *testing.T) {
	pool := pgtest.New(t)
	var got seen
	fail := func(w http.ResponseWriter, r *http.Request, why string) {
		got.add("BAD " + r.Method + " " + r.URL.String() + ": " + why)
		http.Error(w, why, http.StatusBadRequest)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Accept") == "" {
			fail(w, r, "no Accept")
			return
		}
		key := r.Method + " " + r.URL.Path
		got.add(key + "?" + r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		switch key {
		case "GET /v1/pets": // oai-v3.0-petstore listPets
			if r.URL.RawQuery != "limit=5" {
				fail(w, r, "query")
				return
			}
			w.Header().Set("X-Next", "/v1/pets?page=2")
			io.WriteString(w, `[{"id": 1, "name": "rex"}, {"id": 2, "name": "tom", "tag": "cat"}]`)
		case "GET /v1/pets/42": // showPetById, answering in the wrong shape
			io.WriteString(w, `{"id": "forty-two"}`)
		case "GET /api/pets": // petstore-expanded findPets: style form, explode
			if r.URL.RawQuery != "limit=3&tags=dog&tags=small+dog" {
				fail(w, r, "query "+r.URL.RawQuery)
				return
			}
			io.WriteString(w, `[{"id": 7, "name": "rex", "tag": "dog"}]`)
		case "POST /api/pets": // addPet: JSON body
			var p map[string]any
			if r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &p) != nil || p["name"] != "rex" || p["tag"] != "dog" {
				fail(w, r, "body "+string(body))
				return
			}
			io.WriteString(w, `{"id": 8, "name": "rex", "tag": "dog"}`)
		case "DELETE /api/pets/8":
			w.WriteHeader(http.StatusNoContent)
		case "POST /oa_citations/v1/records": // uspto perform-search: form body, path defaults given
			vals, err := url.ParseQuery(string(body))
			if r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || err != nil || vals.Get("criteria") != "*:*" || vals.Get("rows") != "10" {
				fail(w, r, "form "+string(body))
				return
			}
			io.WriteString(w, `[{"patent": {"number": "US1"}}]`)
		case "GET /users": // non-oauth-scopes: bearer token
			if r.Header.Get("Authorization") != "Bearer jwt-secret-1" {
				fail(w, r, "auth "+r.Header.Get("Authorization"))
				return
			}
			io.WriteString(w, `{"users": []}`)
		case "POST /api/nodes": // tools/recursive.yaml createNode: header, query, bearer, body
			if r.Header.Get("X-Request-Id") != "req-1" || r.URL.RawQuery != "dry_run=true" || r.Header.Get("Authorization") != "Bearer tree-token" {
				fail(w, r, "headers/query")
				return
			}
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id": "n1"}`)
		default:
			fail(w, r, "unexpected")
		}
	}))
	defer srv.Close()
	importTools(t, pool, "oai-v3.0-petstore.yaml", srv.URL+"/v1", openapi.Options{})
	importTools(t, pool, "oai-v3.0-petstore-expanded.yaml", srv.URL+"/api", openapi.Options{Namespace: "expanded"})
	importTools(t, pool, "oai-v3.0-uspto.json", srv.URL, openapi.Options{})
	importTools(t, pool, "oai-v3.1-non-oauth-scopes.json", srv.URL, openapi.Options{})
	importTools(t, pool, "tools/recursive.yaml", srv.URL+"/api", openapi.Options{})
	r := &Runner{HTTP: &HTTPRunner{AllowPrivate: true, Secrets: &Secrets{Env: env(map[string]string{
		"HELIX_TOOL_NON_OAUTH_SCOPES_EXAMPLE_BEARERAUTH": "jwt-secret-1", // by namespace
		"HELIX_TOOL_TREE_CREATENODE_BEARER":              "tree-token",   // by tool
	})}}}

	cases := []struct {
		tool, input string
		status      string
		http        int
		output      string
		mismatch    bool
	}{
		{"swagger_petstore.listPets", `{"limit": 5}`, StatusOK, 200, `[{"id": 1, "name": "rex"}, {"id": 2, "name": "tom", "tag": "cat"}]`, false},
		{"swagger_petstore.showPetById", `{"petId": "42"}`, StatusOK, 200, `{"id": "forty-two"}`, true},
		{"expanded.findPets", `{"tags": ["dog", "small dog"], "limit": 3}`, StatusOK, 200, `[{"id": 7, "name": "rex", "tag": "dog"}]`, false},
		{"expanded.addPet", `{"body": {"name": "rex", "tag": "dog"}}`, StatusOK, 200, `{"id": 8, "name": "rex", "tag": "dog"}`, false},
		{"expanded.deletePet", `{"id": 8}`, StatusOK, 204, `null`, false},
		{"uspto_data_set_api.perform-search", `{"dataset": "oa_citations", "version": "v1", "body": {"criteria": "*:*", "start": 0, "rows": 10}}`, StatusOK, 200, `[{"patent": {"number": "US1"}}]`, false},
		{"non-oauth_scopes_example.get_users", `{}`, StatusOK, 200, `{"users": []}`, false},
		{"tree.createNode", `{"X-Request-Id": "req-1", "dry_run": true, "body": {"name": "root"}}`, StatusOK, 201, `{"id": "n1"}`, false},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			res, err := run(t, pool, r, c.tool, c.input)
			if err != nil || res.Status != c.status || res.HTTPStatus != c.http {
				t.Fatalf("status %s %d err %v (%s); server saw %v", res.Status, res.HTTPStatus, err, res.Error, got.list())
			}
			var a, b any
			_ = json.Unmarshal(res.Output, &a)
			_ = json.Unmarshal([]byte(c.output), &b)
			if ja, _ := json.Marshal(a); string(ja) != func() string { jb, _ := json.Marshal(b); return string(jb) }() {
				t.Errorf("output %s, want %s", res.Output, c.output)
			}
			if (len(res.SchemaErrors) > 0) != c.mismatch {
				t.Errorf("response schema errors %v, want mismatch=%v", res.SchemaErrors, c.mismatch)
			}
			if res.ExecutionID == 0 || res.BytesReceived != int64(len(strings.TrimSpace(string(res.Output))))*btoi(c.output != "null") {
				t.Errorf("execution %d bytes %d", res.ExecutionID, res.BytesReceived)
			}
		})
	}
	for _, g := range got.list() {
		if strings.HasPrefix(g, "BAD") {
			t.Error(g)
		}
	}
	// The petstore's X-Next header is passed on.
	res, _ := run(t, pool, r, "swagger_petstore.listPets", `{"limit": 5}`)
	if res.Headers["X-Next"] != "/v1/pets?page=2" || res.Headers["Content-Type"] != "application/json" {
		t.Errorf("headers %v", res.Headers)
	}
	var rows int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM tool_executions WHERE user_id IS NOT NULL AND status = 'ok' AND input_sha256 <> ''`).Scan(&rows); err != nil || rows != len(cases)+1 {
		t.Errorf("audit rows %d %v", rows, err)
	}
}

func btoi(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// httpTool records and approves a hand-written HTTP manifest.
func httpTool(t *testing.T, pool *pgxpool.Pool, name, url string, hosts []string, creds [][]manifest.Credential) {
	t.Helper()
	m := &manifest.Manifest{Name: name, Version: "1.0.0",
		Entrypoint:  manifest.Entrypoint{HTTP: &manifest.HTTPCall{Method: "GET", URL: url}},
		Parameters:  map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string", "x-helix-in": "query"}}},
		Permissions: manifest.Permissions{Network: hosts, Timeout: "5s"},
		Credentials: creds,
	}
	approveAll(t, pool, []manifest.Candidate{{Manifest: m, Source: "test"}})
}

func hostOf(u string) string { p, _ := url.Parse(u); return p.Host }

func TestPermissions(t *testing.T) {
	pool := pgtest.New(t)
	const secret = "s3cr3t-key-value"
	var hitsA, hitsB seen
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hitsB.add(r.URL.String()) }))
	defer b.Close()
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hitsA.add(r.URL.String())
		switch r.URL.Path {
		case "/redirect":
			// Passing the key on, as a careless service might.
			http.Redirect(w, r, b.URL+"/stolen?api_key="+r.URL.Query().Get("api_key"), http.StatusFound)
		case "/big":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `"`+strings.Repeat("x", 4096)+`"`)
		case "/slow":
			time.Sleep(3 * time.Second)
		}
	}))
	defer a.Close()
	key := [][]manifest.Credential{{{Scheme: "api_key", Type: "apiKey", In: "query", Name: "api_key"}}}
	httpTool(t, pool, "elsewhere", a.URL+"/x", []string{"api.example.com"}, nil)
	httpTool(t, pool, "redirector", a.URL+"/redirect", []string{hostOf(a.URL)}, key)
	httpTool(t, pool, "big", a.URL+"/big", []string{hostOf(a.URL)}, nil)
	httpTool(t, pool, "private", a.URL+"/x", []string{hostOf(a.URL)}, nil)
	r := &Runner{HTTP: &HTTPRunner{AllowPrivate: true, MaxResponse: 1024,
		Secrets: &Secrets{Env: env(map[string]string{"HELIX_TOOL_REDIRECTOR_API_KEY": secret})}}}

	res, err := run(t, pool, r, "elsewhere", `{}`)
	var re *refusedError
	if !errors.As(err, &re) || res.Status != StatusRefused || len(hitsA.list()) != 0 {
		t.Errorf("refused host: %s %v, server hit %v", res.Status, err, hitsA.list())
	}
	res, err = run(t, pool, r, "redirector", `{"q": "a b"}`)
	if !errors.As(err, &re) || res.Status != StatusRefused || !strings.Contains(res.Error, "redirect to "+hostOf(b.URL)+" refused") || len(hitsB.list()) != 0 {
		t.Errorf("redirect to refused host: %s %v (%s), B hit %v", res.Status, err, res.Error, hitsB.list())
	}
	if hits := hitsA.list(); len(hits) != 1 || !strings.Contains(hits[0], "api_key="+secret) || !strings.Contains(hits[0], "q=a+b") {
		t.Errorf("the key goes where the scheme says: %v", hits)
	}
	res, err = run(t, pool, r, "big", `{}`)
	if err == nil || res.Status != StatusTooLarge {
		t.Errorf("oversized response: %s %v", res.Status, err)
	}
	r.HTTP.AllowPrivate = false
	res, err = run(t, pool, r, "private", `{}`)
	if !errors.As(err, &re) || res.Status != StatusRefused || !strings.Contains(res.Error, "private") {
		t.Errorf("SSRF guard: %s %v", res.Status, err)
	}
	// Invalid input: refused before anything is sent, and audited.
	before := len(hitsA.list())
	res, err = run(t, pool, r, "big", `{"q": 1}`)
	var ie *InputError
	if !errors.As(err, &ie) || res.Status != StatusInvalidInput || len(hitsA.list()) != before || !strings.Contains(res.Error, "/q") {
		t.Errorf("invalid input: %s %v", res.Status, err)
	}
	// Missing credentials: nothing sent, the variable to set named.
	r.HTTP.Secrets = &Secrets{Env: env(nil)}
	res, err = run(t, pool, r, "redirector", `{}`)
	var rte *RuntimeError
	if !errors.As(err, &rte) || !strings.Contains(err.Error(), "HELIX_TOOL_REDIRECTOR_API_KEY") || len(hitsA.list()) != before {
		t.Errorf("missing credential: %s %v", res.Status, err)
	}
	// The secret is in no audit row.
	var leaks int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM tool_executions t WHERE row_to_json(t)::text LIKE '%' || $1 || '%'`, secret).Scan(&leaks); err != nil || leaks != 0 {
		t.Errorf("secret in %d audit rows (%v)", leaks, err)
	}
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM tool_executions`).Scan(&n); err != nil || n != 6 {
		t.Errorf("%d audit rows, want 6", n)
	}
}

func TestOnlyApprovedToolsRun(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	m := &manifest.Manifest{Name: "ping", Version: "1.0.0",
		Entrypoint: manifest.Entrypoint{HTTP: &manifest.HTTPCall{Method: "GET", URL: "https://api.example.com/ping"}},
		Parameters: map[string]any{"type": "object"}, Permissions: manifest.Permissions{Network: []string{"api.example.com"}}}
	if _, err := manifest.Record(ctx, pool, []manifest.Candidate{{Manifest: m, Source: "t"}}, manifest.ImportOptions{Actor: "t", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	var na *NotApprovedError
	if _, err := Load(ctx, pool, "ping", "1.0.0"); !errors.As(err, &na) || na.State != manifest.Proposed {
		t.Errorf("proposed: %v", err)
	}
	if _, err := manifest.Approve(ctx, pool, "ping", "1.0.0", "t", "", time.Now()); err != nil {
		t.Fatal(err)
	}
	if tl, err := Load(ctx, pool, "ping", ""); err != nil || tl.Version != "1.0.0" {
		t.Errorf("approved: %v", err)
	}
	if _, err := manifest.Revoke(ctx, pool, "ping", "", "t", "test", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, pool, "ping", "1.0.0"); !errors.As(err, &na) || na.State != manifest.Revoked {
		t.Errorf("revoked: %v", err)
	}
	var nf *manifest.NotFoundError
	if _, err := Load(ctx, pool, "ping", ""); !errors.As(err, &nf) && !errors.As(err, &na) {
		t.Errorf("no approved version: %v", err)
	}
}

func TestSerialization(t *testing.T) {
	arr := []any{"a", "b c"}
	obj := map[string]any{"x": json.Number("1"), "y": "z"}
	cases := []struct {
		p    param
		v    any
		want string
	}{
		{param{name: "id", in: "path", style: "simple"}, arr, "a,b%20c"},
		{param{name: "id", in: "path", style: "simple", explode: true}, obj, "x=1,y=z"},
		{param{name: "id", in: "path", style: "label"}, arr, ".a,b%20c"},
		{param{name: "id", in: "path", style: "label", explode: true}, arr, ".a.b%20c"},
		{param{name: "id", in: "path", style: "matrix"}, arr, ";id=a,b%20c"},
		{param{name: "id", in: "path", style: "matrix", explode: true}, arr, ";id=a;id=b%20c"},
		{param{name: "id", in: "path", style: "matrix", explode: true}, obj, ";x=1;y=z"},
	}
	for _, c := range cases {
		if got := pathValue(c.p, c.v); got != c.want {
			t.Errorf("path %+v: %q, want %q", c.p, got, c.want)
		}
	}
	qcases := []struct {
		p    param
		v    any
		want string
	}{
		{param{name: "t", style: "form", explode: true}, arr, "t=a&t=b+c"},
		{param{name: "t", style: "form"}, arr, "t=a,b+c"},
		{param{name: "t", style: "spaceDelimited"}, arr, "t=a%20b+c"},
		{param{name: "t", style: "pipeDelimited"}, arr, "t=a|b+c"},
		{param{name: "t", style: "form", explode: true}, obj, "x=1&y=z"},
		{param{name: "t", style: "form"}, obj, "t=x,1,y,z"},
		{param{name: "t", style: "deepObject", explode: true}, obj, "t%5Bx%5D=1&t%5By%5D=z"},
		{param{name: "t", style: "form", explode: true}, true, "t=true"},
	}
	for _, c := range qcases {
		if got := strings.Join(queryValue(c.p, c.v), "&"); got != c.want {
			t.Errorf("query %+v: %q, want %q", c.p, got, c.want)
		}
	}
	u, _ := url.Parse("https://api.example.com:8443/x")
	for _, h := range []struct {
		allowed []string
		ok      bool
	}{{[]string{"api.example.com"}, false}, {[]string{"api.example.com:8443"}, true}, {[]string{"*.example.com:8443"}, true}, {[]string{"example.com:8443"}, false}} {
		if hostAllowed(h.allowed, u) != h.ok {
			t.Errorf("%v allows %s: want %v", h.allowed, u.Host, h.ok)
		}
	}
}

func FuzzBuildRequest(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(testdata, "oai-v3.0-petstore-expanded.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	l, err := openapi.Parse(context.Background(), "p", data, openapi.LoadOptions{})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{`{"tags": ["a"], "limit": 3}`, `{"id": 8}`, `{"body": {"name": "x"}}`, `{`, `[]`, `{"tags": [{"a": 1}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		for _, c := range l.Candidates {
			m := c.Manifest
			in, err := validateInput(m.Parameters, []byte(input))
			if err != nil {
				continue
			}
			req, _, err := buildRequest(context.Background(), m.Entrypoint.HTTP, m.Parameters, in, bodyFiles{max: 1 << 20})
			if err != nil {
				continue
			}
			if req.URL.Host != "petstore.swagger.io" {
				t.Fatalf("%s: input %q moved the request to %s", m.Name, input, req.URL)
			}
			for _, seg := range strings.Split(req.URL.EscapedPath(), "/") {
				if seg == "." || seg == ".." {
					t.Fatalf("%s: input %q made a dot-segment: %s", m.Name, input, req.URL)
				}
			}
			for k, vs := range req.Header {
				for _, v := range vs {
					if strings.IndexFunc(v, badHeaderRune) >= 0 {
						t.Fatalf("%s: input %q made header %s %q", m.Name, input, k, v)
					}
				}
			}
		}
	})
}

// FuzzWithoutInput: whatever the input, a message quoting any of its values
// (3 characters or more, as they are or percent-encoded) is stored without them.
func FuzzWithoutInput(f *testing.F) {
	for _, s := range []string{`{"id": "id-secret-4711", "q": "q secret/4712"}`, `{"a": ["xyz", {"b": 12345}]}`, `{"x": "a…b", "y": "…b"}`, `"plain"`, `{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		v, err := manifest.DecodeInput([]byte(input))
		if err != nil {
			return
		}
		var leaves []string
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				for _, e := range x {
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			case string:
				leaves = append(leaves, x, url.QueryEscape(x))
			case json.Number:
				leaves = append(leaves, x.String())
			}
		}
		walk(v)
		msg := "GET https://api.example.com/items/{id}: " + strings.Join(leaves, " / ")
		out := withoutInput(msg, []byte(input))
		for _, l := range leaves {
			if len(l) >= 3 && strings.Contains(out, l) {
				t.Fatalf("input %q: %q still holds %q", input, out, l)
			}
		}
	})
}

// TestEchoedCredentialMasked: a service that echoes the tool's credential in
// its body and headers has it masked with the one spelling, [REDACTED]; a
// refused private address is netguard.ErrPrivate to the exit-code table.
func TestEchoedCredentialMasked(t *testing.T) {
	pool := pgtest.New(t)
	const secret = "tool-secret-7d2e"
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := r.URL.Query().Get("api_key")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req-"+k)
		fmt.Fprintf(w, `{"you_sent": %q}`, k)
	}))
	defer a.Close()
	key := [][]manifest.Credential{{{Scheme: "api_key", Type: "apiKey", In: "query", Name: "api_key"}}}
	httpTool(t, pool, "echo", a.URL+"/x", []string{hostOf(a.URL)}, key)
	r := &Runner{HTTP: &HTTPRunner{AllowPrivate: true, Secrets: &Secrets{Env: env(map[string]string{"HELIX_TOOL_ECHO_API_KEY": secret})}}}
	res, err := run(t, pool, r, "echo", `{}`)
	if err != nil || res.Status != StatusOK {
		t.Fatalf("%s %v", res.Status, err)
	}
	if got := compactJSON(res.Output); got != `{"you_sent":"[REDACTED]"}` || res.Headers["X-Request-Id"] != "req-[REDACTED]" {
		t.Errorf("output %s, headers %v: want the key as [REDACTED]", got, res.Headers)
	}
	r.HTTP.AllowPrivate = false
	if _, err := run(t, pool, r, "echo", `{}`); !errors.Is(err, netguard.ErrPrivate) {
		t.Errorf("private address: %v, want netguard.ErrPrivate in the chain", err)
	}
}

func compactJSON(b []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}
