package tool

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/manifest/openapi"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/toolexec"
)

func TestExecArgs(t *testing.T) {
	cases := []struct {
		argv    []string
		want    ExecOptions
		wantErr string
	}{
		{argv: []string{"swagger_petstore.listPets@1.0.0", "--input", `{"limit": 5}`, "--user-id", "6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b"},
			want: ExecOptions{Name: "swagger_petstore.listPets", Version: "1.0.0", Input: `{"limit": 5}`, UserID: cmdutil.UserID{ID: uuid.MustParse("6f1c2a5e-8d4b-4e1f-9a7c-3b2d1e0f4a5b"), Given: true}, MaxResponse: "10MiB"}},
		{argv: []string{"ping", "--input", "@in.json", "--max-bytes", "1KiB", "--allow-private"},
			want: ExecOptions{Name: "ping", Input: "@in.json", MaxResponse: "1KiB", AllowPrivate: true}},
		{argv: []string{"ping", "--user-id", "alice"}, wantErr: "not a UUID"},
		{argv: []string{"ping", "--max-bytes", "lots"}, wantErr: "invalid --max-bytes"},
		{argv: []string{"@1.0.0"}, wantErr: "missing tool name"},
	}
	for _, c := range cases {
		f, _ := cmdtest.Factory(t, false)
		var got *ExecOptions
		cmd := NewCmdExec(f, func(o *ExecOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: error %v, want %q", c.argv, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", c.argv, err)
			continue
		}
		if got.Name != c.want.Name || got.Version != c.want.Version || got.Input != c.want.Input || got.UserID != c.want.UserID ||
			got.MaxResponse != c.want.MaxResponse || got.AllowPrivate != c.want.AllowPrivate {
			t.Errorf("%v: options %+v, want %+v", c.argv, *got, c.want)
		}
	}
}

// The petstore imported with its server on a local test service: exec prints
// the body on stdout and a status line on stderr, never the credential.
func TestExecRun(t *testing.T) {
	const secret = "pet-secret-9"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/pets" || r.URL.RawQuery != "limit=2" || r.Header.Get("api_key") != secret {
			http.Error(w, "unexpected "+r.URL.String(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`[{"id":1,"name":"rex"}]`))
	}))
	defer srv.Close()
	pool := pgtest.New(t)
	ctx := context.Background()
	data, err := os.ReadFile("../../../testdata/manifest/oai-v3.0-petstore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l, err := openapi.Parse(ctx, "petstore", data, openapi.LoadOptions{OpenAPI: openapi.Options{Server: srv.URL + "/v1", Include: []string{"listPets"}}})
	if err != nil {
		t.Fatal(err)
	}
	// The petstore declares no security; give listPets an API key to show where it comes from.
	l.Candidates[0].Manifest.Credentials = [][]manifest.Credential{{{Scheme: "api_key", Type: "apiKey", In: "header", Name: "api_key"}}}
	if _, err := manifest.Record(ctx, pool, l.Candidates, manifest.ImportOptions{Actor: "t", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	newExec := func(tty bool) (*ExecOptions, cmdtest.Streams) {
		f, s := cmdtest.Factory(t, tty)
		cmdtest.WithDB(f, pool)
		return &ExecOptions{IO: f.IOStreams, F: f, Name: "swagger_petstore.listPets", Input: `{"limit": 2}`, AllowPrivate: true, MaxResponse: "1MiB",
			LookupEnv: func(k string) (string, bool) {
				if k == "HELIX_TOOL_SWAGGER_PETSTORE_API_KEY" {
					return secret, true
				}
				return "", false
			},
			FindRuntime: toolexec.FindRuntime}, s
	}
	// Proposed: exit 2, nothing sent, nothing printed on stdout.
	opts, s := newExec(false)
	err = execRun(ctx, opts)
	if cmdutil.Code(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "is proposed") || s.Out.String() != "" {
		t.Fatalf("proposed tool: %v, stdout %q", err, s.Out)
	}
	if _, err := manifest.Approve(ctx, pool, "swagger_petstore.listPets", "1.0.0", "t", "", time.Now()); err != nil {
		t.Fatal(err)
	}
	opts, s = newExec(false)
	if err := execRun(ctx, opts); err != nil {
		t.Fatalf("%v; stderr %s", err, s.Err)
	}
	if s.Out.String() != "[\n  {\n    \"id\": 1,\n    \"name\": \"rex\"\n  }\n]\n" || !strings.HasPrefix(s.Err.String(), "swagger_petstore.listPets@1.0.0: ok, HTTP 200 in ") {
		t.Errorf("stdout %q stderr %q", s.Out, s.Err)
	}
	opts, s = newExec(false)
	opts.F.Global.Output = "json"
	if err := execRun(ctx, opts); err != nil {
		t.Fatal(err)
	}
	var res toolexec.Result
	if err := json.Unmarshal(s.Out.Bytes(), &res); err != nil || res.Status != "ok" || res.HTTPStatus != 200 || compact(res.Output) != `[{"id":1,"name":"rex"}]` {
		t.Errorf("json %s (%v)", s.Out, err)
	}
	// Revoked: exit 2 again.
	if _, err := manifest.Revoke(ctx, pool, "swagger_petstore.listPets", "", "t", "test", time.Now()); err != nil {
		t.Fatal(err)
	}
	opts, s = newExec(false)
	if err := execRun(ctx, opts); cmdutil.Code(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "is revoked") {
		t.Errorf("revoked tool: %v", err)
	}
	if strings.Contains(s.Out.String()+s.Err.String(), secret) {
		t.Error("the credential was printed")
	}
}

func compact(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestExecInterrupted: a tool exec stopped mid-request (SIGINT cancels the
// command's context) is recorded as interrupted, prints no result, and its
// error is the context's, which the exit-code table makes 130.
func TestExecInterrupted(t *testing.T) {
	got := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(got)
		<-r.Context().Done() // the answer never comes
	}))
	defer srv.Close()
	pool := pgtest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	data, err := os.ReadFile("../../../testdata/manifest/oai-v3.0-petstore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l, err := openapi.Parse(ctx, "petstore", data, openapi.LoadOptions{OpenAPI: openapi.Options{Server: srv.URL + "/v1", Include: []string{"listPets"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Record(ctx, pool, l.Candidates, manifest.ImportOptions{Actor: "t", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Approve(ctx, pool, "swagger_petstore.listPets", "1.0.0", "t", "", time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, output := range []string{"text", "json"} {
		got = make(chan struct{})
		f, s := cmdtest.Factory(t, false)
		cmdtest.WithDB(f, pool)
		f.Global.Output = output
		opts := &ExecOptions{IO: f.IOStreams, F: f, Name: "swagger_petstore.listPets", Input: `{"limit": 2}`, AllowPrivate: true, MaxResponse: "1MiB",
			LookupEnv: func(string) (string, bool) { return "", false }, FindRuntime: toolexec.FindRuntime}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-got; cancel() }()
		err := execRun(ctx, opts)
		if code, _ := cmdutil.ExitCodeFor(ctx, err); code != cmdutil.ExitInterrupted {
			t.Errorf("%s: exit %d (%v), want 130", output, code, err)
		}
		if s.Out.Len() != 0 {
			t.Errorf("%s: an interrupted run printed a result: %q", output, s.Out)
		}
	}
	var statuses []string
	rows, _ := pool.Query(context.Background(), `SELECT status || ' ' || coalesce(error, '') FROM tool_executions ORDER BY id`)
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, s)
	}
	if len(statuses) != 2 || !strings.HasPrefix(statuses[0], "interrupted interrupted before it finished") || statuses[0] != statuses[1] {
		t.Errorf("tool_executions: %q, want two rows, interrupted", statuses)
	}
}

// A tool's text is shown on a terminal with its control characters escaped
// (a pipe gets the bytes as they are); a schema finding likewise.
func TestPrintResultEscapesOutsideText(t *testing.T) {
	res := &toolexec.Result{Tool: "srv.echo", Version: "1.0.0", Status: toolexec.StatusOK, ExecutionID: 7,
		Output: json.RawMessage(`"ok\u001b[2J\u001b[HAPPROVED\nsecond line"`), SchemaErrors: []string{"/x: \u001b]0;title\u0007"}}
	for _, tty := range []bool{true, false} {
		f, s := cmdtest.Factory(t, tty)
		if err := printResult(&ExecOptions{IO: f.IOStreams, F: f}, res); err != nil {
			t.Fatal(err)
		}
		want := "ok\x1b[2J\x1b[HAPPROVED\nsecond line\n"
		if tty {
			want = "ok\\x1b[2J\\x1b[HAPPROVED\nsecond line\n"
		}
		if s.Out.String() != want {
			t.Errorf("tty=%v: stdout %q, want %q", tty, s.Out, want)
		}
		if strings.Contains(s.Err.String(), "\x1b") || !strings.Contains(s.Err.String(), `/x: \x1b]0;title\x07`) {
			t.Errorf("tty=%v: stderr %q", tty, s.Err)
		}
	}
}
