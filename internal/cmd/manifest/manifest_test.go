package manifest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/pgtest"
)

const testdata = "../../../testdata/manifest/"

func TestNewCmdImportFlags(t *testing.T) {
	cases := []struct {
		argv    []string
		check   func(*ImportOptions) bool
		wantErr string
	}{
		{argv: []string{"a.yaml", "b.json"}, check: func(o *ImportOptions) bool {
			return len(o.Targets) == 2 && o.By != "" && !o.AllowPrivate && o.FetchTimeout == 30*time.Second && o.ToolTimeout == "30s"
		}},
		{argv: []string{"https://x.example/o.json", "--include", "pets,listUsers", "--exclude", "admin", "--allow-private",
			"--auto-approve-narrower", "--by", "alice", "--server", "https://api.example", "--dry-run", "--max-bytes", "1MiB"},
			check: func(o *ImportOptions) bool {
				return strings.Join(o.Include, ",") == "pets,listUsers" && o.Exclude[0] == "admin" && o.AllowPrivate &&
					o.AutoApproveNarrower && o.By == "alice" && o.Server == "https://api.example" && o.DryRun && o.MaxSize == "1MiB"
			}},
		{argv: []string{}, wantErr: "nothing to import"},
		{argv: []string{"--mcp-command", "npx -y server", "--mcp-env", "API_KEY,OTHER", "--namespace", "srv"}, check: func(o *ImportOptions) bool {
			return len(o.Targets) == 0 && o.MCPCommand == "npx -y server" && strings.Join(o.MCPEnv, ",") == "API_KEY,OTHER" && o.Namespace == "srv"
		}},
		{argv: []string{"--mcp-url", "https://mcp.example/mcp"}, check: func(o *ImportOptions) bool { return o.MCPURL == "https://mcp.example/mcp" }},
		{argv: []string{"--mcp-command", "x", "--mcp-url", "https://mcp.example/mcp"}, wantErr: "none of the others can be"},
		{argv: []string{"a.yaml", "--mcp-env", "API_KEY"}, wantErr: "--mcp-env goes with"},
		{argv: []string{"--mcp-url", "ftp://x"}, wantErr: "invalid --mcp-url"},
		{argv: []string{"--mcp-command", "x", "--mcp-env", "A=B"}, wantErr: "invalid --mcp-env"},
		{argv: []string{"--mcp-command", "node 'a b.js"}, wantErr: "invalid --mcp-command"},
		{argv: []string{"--mcp-command", "node srv.js > log"}, wantErr: "without a shell"},
		{argv: []string{"a.yaml", "--tool-timeout", "soon"}, wantErr: "invalid --tool-timeout"},
		{argv: []string{"a.yaml", "--max-bytes", "big"}, wantErr: "invalid --max-bytes"},
	}
	for _, c := range cases {
		f, _ := cmdtest.Factory(t, false)
		var got *ImportOptions
		cmd := NewCmdImport(f, func(o *ImportOptions) error { got = o; return nil })
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
		if err != nil || got == nil || !c.check(got) {
			t.Errorf("%v: options %+v, err %v", c.argv, got, err)
		}
	}
}

func newImport(t *testing.T, tty bool, targets ...string) (*ImportOptions, cmdtest.Streams) {
	t.Helper()
	f, s := cmdtest.Factory(t, tty)
	return &ImportOptions{IO: f.IOStreams, F: f, Client: netguard.Client, Targets: targets, By: "tester",
		FetchTimeout: 5 * time.Second, MaxSize: "32MiB", ToolTimeout: "30s", Deadline: time.Minute, MemoryLimit: "0"}, s
}

func TestImportRun(t *testing.T) {
	pool := pgtest.New(t)
	for _, tty := range []bool{true, false} {
		opts, s := newImport(t, tty, testdata+"oai-v3.0-petstore.yaml")
		cmdtest.WithDB(opts.F, pool)
		if err := importRun(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		src := testdata + "oai-v3.0-petstore.yaml#/paths/"
		if tty {
			want := "NAME                          VERSION  ACTION   STATE     REASON\n" +
				"swagger_petstore.listPets     1.0.0    created  proposed  imported from " + src + "~1pets/get\n" +
				"swagger_petstore.createPets   1.0.0    created  proposed  imported from " + src + "~1pets/post\n" +
				"swagger_petstore.showPetById  1.0.0    created  proposed  imported from " + src + "~1pets~1{petId}/get\n"
			if s.Out.String() != want {
				t.Errorf("tty stdout:\n%s\nwant:\n%s", s.Out, want)
			}
			if s.Err.String() != "3 created, 0 unchanged\n" {
				t.Errorf("stderr %q", s.Err)
			}
		} else {
			want := "swagger_petstore.listPets\t1.0.0\tunchanged\tproposed\t\nswagger_petstore.createPets\t1.0.0\tunchanged\tproposed\t\nswagger_petstore.showPetById\t1.0.0\tunchanged\tproposed\t\n"
			if s.Out.String() != want {
				t.Errorf("non-tty stdout (second import is a no-op):\n%q\nwant:\n%q", s.Out, want)
			}
			if s.Err.String() != "0 created, 3 unchanged\n" {
				t.Errorf("stderr %q", s.Err)
			}
		}
	}
	var runs int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM job_runs WHERE job = 'manifest-import' AND status = 'ok'`).Scan(&runs); err != nil || runs != 2 {
		t.Errorf("job_runs: %d %v", runs, err)
	}
}

func TestImportWebhooksOnly(t *testing.T) {
	opts, s := newImport(t, false, testdata+"oai-v3.1-webhook-example.json")
	if err := importRun(context.Background(), opts); err != nil { // no database needed: nothing to write
		t.Fatal(err)
	}
	if s.Out.String() != "" || !strings.Contains(s.Err.String(), "only webhooks (1)") || !strings.Contains(s.Err.String(), "no tools to import") {
		t.Errorf("stdout %q stderr %q", s.Out, s.Err)
	}
}

func TestImportMalformedWritesNothing(t *testing.T) {
	pool := pgtest.New(t)
	entries, err := os.ReadDir(testdata + "bad")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		// A good file first: one bad input fails the whole run.
		opts, s := newImport(t, false, testdata+"tools/weather-1.0.0.yaml", testdata+"bad/"+e.Name())
		cmdtest.WithDB(opts.F, pool)
		err := importRun(context.Background(), opts)
		var ee *cmdutil.ExitError
		if !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage {
			t.Errorf("%s: error %v, want exit 2", e.Name(), err)
			continue
		}
		if !strings.Contains(err.Error(), e.Name()+":") || !strings.Contains(err.Error(), "nothing was imported") {
			t.Errorf("%s: error %q should name the file and its location", e.Name(), err)
		}
		if s.Out.Len() != 0 {
			t.Errorf("%s: stdout %q", e.Name(), s.Out)
		}
	}
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM tool_manifests`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d tools written, %v", n, err)
	}
}

func TestImportURL(t *testing.T) {
	doc, err := os.ReadFile(testdata + "oai-v3.0-link-example.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/specs/links.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(doc)
	}))
	defer srv.Close()

	opts, _ := newImport(t, false, srv.URL+"/specs/links.json")
	err = importRun(context.Background(), opts)
	if !errors.Is(err, netguard.ErrPrivate) {
		t.Fatalf("loopback without --allow-private: %v", err)
	}
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage {
		t.Errorf("exit code for a refused address: %v", err)
	}

	opts, _ = newImport(t, false, srv.URL+"/specs/links.json")
	opts.AllowPrivate, opts.MaxSize = true, "1KiB"
	if err := importRun(context.Background(), opts); !errors.Is(err, netguard.ErrTooLarge) {
		t.Errorf("size cap: %v", err)
	}

	pool := pgtest.New(t)
	opts, s := newImport(t, false, srv.URL+"/specs/links.json")
	opts.AllowPrivate = true
	opts.F.Global.Output = "json"
	cmdtest.WithDB(opts.F, pool)
	if err := importRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var res Result
	if err := json.Unmarshal(s.Out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, s.Out)
	}
	if res.Created != 6 || len(res.Sources) != 1 || res.Sources[0].OpenAPI != "3.0.0" {
		t.Errorf("result %+v", res)
	}
	// The document has no servers: the tools call the host it was fetched from.
	var host string
	if err := pool.QueryRow(context.Background(), `SELECT DISTINCT value FROM tool_permissions WHERE kind = 'host'`).Scan(&host); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(srv.URL, "http://"+host) {
		t.Errorf("host %s, want the server's %s", host, srv.URL)
	}
}

func TestImportDryRun(t *testing.T) {
	opts, s := newImport(t, false, testdata+"tools/weather-1.0.0.yaml", testdata+"tools/ocr.yaml")
	opts.DryRun = true // and no database: cmdtest fails the test if one is opened
	if err := importRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if want := "weather\t1.0.0\tvalidated\t\t\nocr\t2.0.0-beta.1\tvalidated\t\t\n"; s.Out.String() != want {
		t.Errorf("stdout %q, want %q", s.Out, want)
	}
}
