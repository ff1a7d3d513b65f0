package toolexec

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/pgtest"
)

// itemTool is GET {server}/items/{id}?q= with an X-Trace header and a
// patterned code parameter, approved for the server's host.
func itemTool(server string) *manifest.Manifest {
	str := func(in string) map[string]any { return map[string]any{"type": "string", "x-helix-in": in} }
	code := str("query")
	code["pattern"] = "^[a-z]+$"
	return &manifest.Manifest{Name: "items", Version: "1.0.0",
		Entrypoint: manifest.Entrypoint{HTTP: &manifest.HTTPCall{Method: "GET", URL: server + "/items/{id}"}},
		Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"id": str("path"), "q": str("query"), "code": code, "X-Trace": str("header")}},
		Permissions: manifest.Permissions{Network: []string{hostOf(server)}, Timeout: "5s"},
	}
}

// Issue 32, findings 3-6: dot-segment path values, input in the audit's
// error, CR/LF in a header, a stored spec changed after approval.
func TestExecHardening(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	var hits seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.add(r.Method + " " + r.URL.RequestURI())
		http.NotFound(w, r)
	}))
	defer srv.Close()
	approveAll(t, pool, []manifest.Candidate{{Manifest: itemTool(srv.URL), Source: "test"}})
	r := &Runner{HTTP: &HTTPRunner{AllowPrivate: true}}

	// 3: a path parameter . or .. is refused before anything is sent (exit 2).
	for _, id := range []string{".", ".."} {
		res, err := run(t, pool, r, "items", `{"id": "`+id+`"}`)
		var ie *InputError
		if !errors.As(err, &ie) || res.Status != StatusInvalidInput || !strings.Contains(res.Error, "dot-segment") {
			t.Errorf("id %q: %s %v", id, res.Status, err)
		}
	}
	// ... while dots inside a segment pass as they are.
	if _, err := run(t, pool, r, "items", `{"id": "..a"}`); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("id ..a: %v, want the server's 404", err)
	}
	if h := hits.list(); len(h) != 1 || h[0] != "GET /items/..a" {
		t.Errorf("server saw %v, want only GET /items/..a", h)
	}

	// 5: CR/LF in a header parameter is bad input (exit 2), nothing sent.
	before := len(hits.list())
	res, err := run(t, pool, r, "items", `{"id": "a", "X-Trace": "x\r\nX-Injected: 1"}`)
	var ie *InputError
	if !errors.As(err, &ie) || res.Status != StatusInvalidInput || len(hits.list()) != before {
		t.Errorf("CR/LF header: %s %v, server saw %v", res.Status, err, hits.list()[before:])
	}

	// 4: input values reach no audit row, whatever the error: an HTTP
	// error (the URL), a schema error quoting the value, an unreachable service.
	const idSecret, qSecret, codeSecret = "id-secret-4711", "q secret/4712", "CODE4713"
	input := `{"id": "` + idSecret + `", "q": "` + qSecret + `"}`
	if res, err := run(t, pool, r, "items", input); err == nil || res.Status != StatusHTTPError {
		t.Errorf("404: %s %v", res.Status, err)
	}
	if res, err := run(t, pool, r, "items", `{"id": "a", "code": "`+codeSecret+`"}`); !errors.As(err, &ie) {
		t.Errorf("pattern: %s %v", res.Status, err)
	}
	srv.Close()
	if res, err := run(t, pool, r, "items", input); err == nil || res.Status != StatusUnavailable {
		t.Errorf("closed server: %s %v", res.Status, err)
	}
	rows, err := pool.Query(ctx, `SELECT coalesce(error, '') FROM tool_executions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for rows.Next() {
		var e string
		if err := rows.Scan(&e); err != nil {
			t.Fatal(err)
		}
		errs = append(errs, e)
	}
	if len(errs) != 7 {
		t.Errorf("%d audit rows, want 7", len(errs))
	}
	for _, e := range errs {
		for _, s := range []string{idSecret, qSecret, "q+secret%2F4712", "q%20secret%2F4712", codeSecret} {
			if strings.Contains(e, s) {
				t.Errorf("audit error %q holds the input %q", e, s)
			}
		}
	}
	t.Logf("audit errors: %q", errs)

	// 6: the stored spec edited in place after approval does not run.
	if _, err := pool.Exec(ctx, `UPDATE tool_manifests SET manifest = jsonb_set(manifest, '{entrypoint,http,url}', '"https://attacker.example/items/{id}"')
		WHERE name = 'items'`); err != nil {
		t.Fatal(err)
	}
	var na *NotApprovedError
	if _, err := Load(ctx, pool, "items", ""); !errors.As(err, &na) || na.Changed == "" || !strings.Contains(err.Error(), "stored spec changed") {
		t.Errorf("changed spec: %v, want refused", err)
	}
	// A new version, approved, runs again.
	m := itemTool("https://api.example.com")
	m.Version = "1.0.1"
	approveAll(t, pool, []manifest.Candidate{{Manifest: m, Source: "test"}})
	if tl, err := Load(ctx, pool, "items", ""); err != nil || tl.Version != "1.0.1" {
		t.Errorf("re-approved as 1.0.1: %v", err)
	}
}
