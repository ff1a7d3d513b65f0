package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

// The output contract a program relies on, checked on the real binary under
// -o json: stdout is empty or exactly one line holding one JSON document;
// every stderr line is one JSON object, and only the last may carry the key
// "error" — the final error object, whose code is the exit status (log lines
// say "err"). Each case's exit status is the class README documents.

// checkJSONContract fails unless r keeps the contract above.
func checkJSONContract(t *testing.T, what string, r result) {
	t.Helper()
	if r.stdout != "" {
		if strings.Count(r.stdout, "\n") != 1 || !strings.HasSuffix(r.stdout, "\n") {
			t.Errorf("%s: stdout is not one line:\n%s", what, r.stdout)
		} else if !json.Valid([]byte(r.stdout)) {
			t.Errorf("%s: stdout is not JSON: %q", what, r.stdout)
		}
	}
	if r.code == 0 && r.stdout == "" {
		t.Errorf("%s: success without a result on stdout", what)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if r.stderr == "" {
		lines = nil
	}
	for i, l := range lines {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Errorf("%s: stderr line %d is not a JSON object: %q", what, i+1, l)
			continue
		}
		raw, has := obj["error"]
		last := i == len(lines)-1
		switch {
		case has && (!last || r.code == 0):
			t.Errorf("%s: stderr line %d carries \"error\" but is not the final error: %q", what, i+1, l)
		case has:
			var e struct {
				Message string
				Code    int
				Kind    string
			}
			if err := json.Unmarshal(raw, &e); err != nil || e.Message == "" || e.Kind == "" || e.Code != r.code {
				t.Errorf("%s: final error %s does not match exit %d", what, raw, r.code)
			}
		case last && r.code != 0:
			t.Errorf("%s: exit %d without a final error object; last stderr line %q", what, r.code, l)
		}
	}
	if r.code != 0 && len(lines) == 0 {
		t.Errorf("%s: exit %d with nothing on stderr", what, r.code)
	}
}

// TestOutputContract runs jobs and admin commands as a program would, over
// the failure classes of README's exit-status table and a few successes.
func TestOutputContract(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, _ := filepath.Abs("../..")
	td := func(p string) string { return filepath.Join(root, "testdata", p) }
	url := pgtest.URL(t)
	seed(t, url)
	env := []string{"DATABASE_URL=" + url}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// a local service: loopback, so refused unless --allow-private
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[]`))
	}))
	t.Cleanup(srv.Close)
	// an approved HTTP tool whose server is that loopback service
	for _, args := range [][]string{
		{"manifest", "import", td("manifest/oai-v3.0-petstore.yaml"), "--server", srv.URL + "/v1", "--include", "listPets"},
		{"tool", "approve", "swagger_petstore.listPets@1.0.0"},
	} {
		if r := helix(t, env, "", args...); r.code != 0 {
			t.Fatalf("%v: exit %d %s", args, r.code, r.stderr)
		}
	}
	throw := write("throw.js", `function main(x) { throw new Error("boom"); }`)
	badConfig := write("config.yaml", "log-level: info\ndatabase-url: \"postgres://u@h:0/x\"\n")
	out := filepath.Join("/no/such/dir", "x.wav")
	const ana = "11111111-1111-4111-8111-111111111111"
	const nobody = "0a0a0a0a-0a0a-4a0a-8a0a-0a0a0a0a0a0a"

	lockHeld := func() func() {
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		l, err := db.TryLock(ctx, pool, "decay")
		if err != nil {
			t.Fatal(err)
		}
		return func() { _ = l.Release(ctx); pool.Close() }
	}

	cases := []struct {
		name  string
		env   []string // replaces DATABASE_URL when it sets one
		args  []string
		code  cmdutil.ExitCode
		say   string // in the final error's message (or on stderr for a success)
		setup func() func()
	}{
		// 2: bad usage
		{name: "flag value", args: []string{"synthesize", "--user-id", ana, "--concurrency", "abc"}, code: 2, say: `invalid --concurrency \"abc\": a whole number`},
		{name: "flag range", args: []string{"synthesize", "--user-id", ana, "--concurrency", "99999999999999999999"}, code: 2, say: "out of range"},
		{name: "extra argument", args: []string{"synthesize", "--user-id", ana, "--since", "3", "months"}, code: 2, say: `unexpected argument \"months\"`},
		{name: "missing argument", args: []string{"import", "memories"}, code: 2, say: "missing argument"},
		{name: "unknown verb", args: []string{"migrate", "sideways"}, code: 2, say: `unknown command \"sideways\"`},
		{name: "unknown shell", args: []string{"completion", "bogus"}, code: 2, say: `unknown shell \"bogus\" for \"helix completion\": use bash, fish, powershell, zsh`},
		{name: "unknown flag", args: []string{"decay", "run", "--no-such-flag"}, code: 2, say: "unknown flag"},
		{name: "bad duration", args: []string{"worker", "--shutdown-timeout", "5"}, code: 2, say: `invalid --shutdown-timeout \"5\": a duration`},
		{name: "bad user id", args: []string{"embed", "--user-id", "bob"}, code: 2, say: `invalid --user-id \"bob\": not a UUID`},
		{name: "neither target", args: []string{"synthesize"}, code: 2, say: "--user-id"},
		{name: "bad log format", args: []string{"version", "--log-format", "xml"}, code: 2, say: `invalid --log-format \"xml\"`},
		// 2: bad input
		{name: "missing input file", args: []string{"import", "memories", "/no/such/file.jsonl"}, code: 2, say: "/no/such/file.jsonl"},
		{name: "missing output dir", args: []string{"voice", "convert", td("voice/speech-64k.mp3"), out}, code: 2, say: "cannot create files in /no/such/dir"},
		{name: "loopback catalog", args: []string{"catalog", "fetch", "--source", srv.URL + "/api.json"}, code: 2, say: "private or loopback"},
		{name: "loopback manifest", args: []string{"manifest", "import", srv.URL + "/tool.yaml"}, code: 2, say: "private or loopback"},
		{name: "loopback tool", args: []string{"tool", "exec", "swagger_petstore.listPets"}, code: 2, say: "private or loopback"},
		{name: "unknown provider", args: []string{"catalog", "fetch", "--only-provider", "nosuch", "--source", td("catalog/api-2026-06-14.json")}, code: 2, say: "has no provider nosuch (it has 15 providers"},
		{name: "unknown tool", args: []string{"tool", "exec", "nosuch"}, code: 2, say: "nosuch"},
		{name: "unknown job", args: []string{"jobs", "show", "999999"}, code: 2, say: "999999"},
		{name: "bad setting", env: []string{"HELIX_DB_STATEMENT_TIMEOUT=banana", "DATABASE_URL=" + url}, args: []string{"migrate", "status"}, code: 2, say: "HELIX_DB_STATEMENT_TIMEOUT"},
		// 2: database URLs name the source and the faulty part
		{name: "url port", env: []string{"DATABASE_URL=postgres://u:pw@127.0.0.1:99999/x"}, args: []string{"migrate", "status"}, code: 2, say: `invalid database URL (env DATABASE_URL): port \"99999\"`},
		{name: "url sslmode", env: []string{"SUPABASE_DB_URL=postgres://u@127.0.0.1/x?sslmode=bogus"}, args: []string{"migrate", "status"}, code: 2, say: `(env SUPABASE_DB_URL): sslmode \"bogus\"`},
		{name: "url scheme", env: []string{"DATABASE_URL=mysql://u@h/db"}, args: []string{"decay", "run"}, code: 2, say: `scheme \"mysql\"`},
		{name: "url not a url", env: []string{"DATABASE_URL=not a url"}, args: []string{"synthesize", "--all-users"}, code: 2, say: "(env DATABASE_URL): not a URL"},
		{name: "url in config file", env: []string{"HELIX_CONFIG=" + badConfig}, args: []string{"migrate", "status"}, code: 2, say: "(file " + badConfig + `:2): port \"0\"`},
		// 1: the job failed
		{name: "skill fails", args: []string{"skill", "exec", throw}, code: 1, say: "boom"},
		// 4: unavailable
		{name: "database down", env: []string{"DATABASE_URL=" + closedPortURL(t)}, args: []string{"decay", "run"}, code: 4, say: "retry later"},
		{name: "provider down", env: []string{"DATABASE_URL=" + url, "HELIX_EMBED_BASE_URL=http://127.0.0.1:9/v1", "HELIX_EMBED_RETRIES=0"}, args: []string{"embed", "--user-id", ana, "--model", "m"}, code: 4, say: "127.0.0.1:9"},
		// 5: skipped
		{name: "lock held", args: []string{"decay", "run"}, code: 5, say: "skipped: held by", setup: lockHeld},
		// 0: results are one line
		{name: "version", args: []string{"version"}},
		{name: "migrate status", args: []string{"migrate", "status"}},
		{name: "synthesize", args: []string{"synthesize", "--user-id", ana, "--dry-run"}},
		{name: "synthesize nobody", args: []string{"synthesize", "--user-id", nobody}, say: "has no memories"},
		{name: "search", args: []string{"memory", "search", "garden", "--user-id", ana, "--mode", "text"}},
		{name: "jobs list", args: []string{"jobs", "list"}},
		{name: "config show", args: []string{"config", "show"}},
		{name: "embed dry run", args: []string{"embed", "--all-users", "--dry-run"}},
		{name: "import warning", args: []string{"manifest", "import", td("manifest/oai-v3.1-webhook-example.json"), "--dry-run"}, say: "no tools to import"},
	}
	for _, c := range cases {
		e := env
		if len(c.env) > 0 {
			e = c.env
		}
		release := func() {}
		if c.setup != nil {
			release = c.setup()
		}
		r := helix(t, e, "", append(append([]string{}, c.args...), "-o", "json")...)
		release()
		what := fmt.Sprintf("%s (helix %s)", c.name, strings.Join(c.args, " "))
		if r.code != int(c.code) {
			t.Errorf("%s: exit %d, want %d\nstderr: %s", what, r.code, c.code, r.stderr)
			continue
		}
		checkJSONContract(t, what, r)
		if c.say != "" && !strings.Contains(r.stderr, c.say) {
			t.Errorf("%s: stderr does not say %s:\n%s", what, c.say, r.stderr)
		}
	}
}
