package toolexec

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/manifest/openapi"
	"github.com/helixhq/helix/internal/pgtest"
)

// A multipart upload arrives intact at a server that parses it: fields,
// arrays, files from --files as @PATH or as base64, base64 text fields.
func TestMultipartUpload(t *testing.T) {
	pool := pgtest.New(t)
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0, 1, 2, 0xff}, 3000)...)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "face.png"), png, 0o600); err != nil {
		t.Fatal(err)
	}
	var hits seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.add(r.URL.Path)
		if r.URL.Query().Get("api-key") != "key-123456" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f := r.MultipartForm
		bad := func(msg string) { http.Error(w, msg, http.StatusUnprocessableEntity) }
		if r.URL.Path != "/members/m1/avatar" || f.Value["caption"][0] != "me, today" || !slices.Equal(f.Value["tags"], []string{"a", "b c"}) ||
			f.Value["meta"][0] != `{"n":1}` {
			bad("fields " + r.URL.Path + " " + strings.Join(f.Value["caption"], "|"))
			return
		}
		av := f.File["avatar"]
		if len(av) != 1 || av[0].Header.Get("Content-Type") != "application/octet-stream" {
			bad("avatar")
			return
		}
		file, _ := av[0].Open()
		got, _ := io.ReadAll(file)
		if !bytes.Equal(got, png) {
			bad("avatar bytes differ")
			return
		}
		if r.URL.Query().Get("want") == "" && av[0].Filename != "face.png" {
			bad("avatar filename " + av[0].Filename)
			return
		}
		if th := f.File["thumb"]; len(th) != 0 || f.Value["thumb"][0] != base64.StdEncoding.EncodeToString(png) {
			bad("thumb")
			return
		}
		if len(f.File["scans"]) != 2 {
			bad("scans")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"ok": true}`))
	}))
	defer srv.Close()
	importTools(t, pool, "importer/uploads.yaml", srv.URL, openapi.Options{})
	r := &Runner{HTTP: &HTTPRunner{AllowPrivate: true, FilesDir: dir, Secrets: &Secrets{Env: env(map[string]string{"HELIX_TOOL_UPLOADS_APIKEY": "key-123456"})}}}
	b64 := base64.StdEncoding.EncodeToString(png)
	res, err := run(t, pool, r, "uploads.uploadAvatar", `{"memberId": "m1", "body": {"caption": "me, today", "tags": ["a", "b c"], "meta": {"n": 1},
		"avatar": "@face.png", "thumb": "@face.png", "scans": ["@face.png", "`+b64+`"]}}`)
	if err != nil || res.HTTPStatus != http.StatusCreated || len(res.SchemaErrors) > 0 {
		t.Fatalf("upload: %v, %+v", err, res)
	}
	// The file in base64 instead, the thumb already base64.
	res, err = run(t, pool, r, "uploads.uploadAvatar", `{"memberId": "m1", "body": {"caption": "me, today", "tags": ["a", "b c"], "meta": {"n": 1},
		"avatar": "`+b64+`", "thumb": "`+b64+`", "scans": ["`+b64+`", "`+b64+`"]}}`)
	if err == nil || res.HTTPStatus != http.StatusUnprocessableEntity || !strings.Contains(string(res.Output), "avatar filename avatar") {
		t.Fatalf("base64 upload: %v, %+v", err, res) // named after its field: the server saw the bytes were right
	}
	before := len(hits.list())
	for input, want := range map[string]string{
		`{"memberId": "m1", "body": {"avatar": "@../face.png"}}`: "path escapes",
		`{"memberId": "m1", "body": {"avatar": "not base64!"}}`:  "give it as @PATH or as base64",
		`{"memberId": "m1", "body": {"avatar": "@missing.png"}}`: "no such file",
		`{"memberId": "m1", "body": {"avatar": "@/etc/passwd"}}`: "@/etc/passwd",
		`{"memberId": "m1", "body": {"scans": ["@face.png"]}}`:   "avatar",
	} {
		_, err := run(t, pool, r, "uploads.uploadAvatar", input)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an input error saying %q", input, err, want)
		}
	}
	// Without --files, no @PATH is read; over the size limit, no file is sent.
	for _, h := range []*HTTPRunner{{AllowPrivate: true}, {AllowPrivate: true, FilesDir: dir, MaxRequest: 1000}} {
		h.Secrets = r.HTTP.Secrets
		_, err := run(t, pool, &Runner{HTTP: h}, "uploads.uploadAvatar", `{"memberId": "m1", "body": {"avatar": "@face.png"}}`)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "--files") && !strings.Contains(err.Error(), "over the 1000-byte limit") {
			t.Errorf("FilesDir %q, MaxRequest %d: %v", h.FilesDir, h.MaxRequest, err)
		}
	}
	if n := len(hits.list()); n != before {
		t.Errorf("%d requests sent for refused input", n-before)
	}
}

// Empty values of required path, query and header parameters are refused
// before anything is sent, unless the parameter allows empty values; the
// namespace's credential serves a tool whose operation name has a dot.
func TestEmptyRequiredParametersAndDottedNames(t *testing.T) {
	pool := pgtest.New(t)
	var hits seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.add(r.URL.RequestURI() + " " + r.Header.Get("X-Trace"))
	}))
	defer srv.Close()
	importTools(t, pool, "importer/uploads.yaml", srv.URL, openapi.Options{})
	r := &Runner{HTTP: &HTTPRunner{AllowPrivate: true, Secrets: &Secrets{Env: env(map[string]string{"HELIX_TOOL_UPLOADS_APIKEY": "key-123456"})}}}
	for input, want := range map[string]string{
		`{"memberId": "", "scope": "a", "filter": "f", "X-Trace": "t"}`: "path parameter memberId is empty",
		`{"memberId": "m", "scope": "", "filter": "f", "X-Trace": "t"}`: "query parameter scope is empty",
		`{"memberId": "m", "scope": "a", "filter": "f", "X-Trace": ""}`: "header parameter X-Trace is empty",
		`{"memberId": "m", "scope": [], "filter": "f", "X-Trace": "t"}`: "", // refused by the schema: a string
	} {
		_, err := run(t, pool, r, "uploads.listTokens", input)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an input error saying %q", input, err, want)
		}
	}
	if got := hits.list(); len(got) != 0 {
		t.Fatalf("sent %q", got)
	}
	if _, err := run(t, pool, r, "uploads.listTokens", `{"memberId": "m", "scope": "a", "filter": "", "X-Trace": "t"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, pool, r, "uploads.articlesearch.json", `{"q": "moon"}`); err != nil {
		t.Fatal(err)
	}
	want := []string{"/members/m/tokens?api-key=key-123456&filter=&scope=a t", "/articlesearch.json?api-key=key-123456&q=moon "}
	if got := hits.list(); !slices.Equal(got, want) {
		t.Errorf("sent %q, want %q", got, want)
	}
	if got := EnvNames("uploads.articlesearch.json", "uploads", "apiKey"); !slices.Equal(got, []string{"HELIX_TOOL_UPLOADS_ARTICLESEARCH_JSON_APIKEY", "HELIX_TOOL_UPLOADS_APIKEY"}) {
		t.Errorf("EnvNames %q", got)
	}
}
