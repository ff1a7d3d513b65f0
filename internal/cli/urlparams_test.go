package cli

import (
	"net/url"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/db"
)

// withParam adds key=value to the query of a URL.
func withParam(t *testing.T, raw, key, value string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(key, value)
	// %20, not +, for a space: libpq and pgx read a query's + literally.
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	return u.String()
}

// TestURLParametersOnEveryPath (issue 49, item 3): the URL's options and
// default_query_exec_mode parameters, through a direct connection and
// PgBouncer in session and transaction mode. options=-c NAME=VALUE is a
// setting like ?NAME=VALUE: applied where a session keeps it, refused
// through the transaction pooler naming it (before: exit 2 everywhere,
// "set a session setting options"). exec and simple_protocol are refused
// on every path naming the parameter (before: a direct decay run failed
// with a raw SQL error, and the transaction pooler overrode it silently);
// describe_exec works on every path; cache_statement is refused through
// the transaction pooler only.
func TestURLParametersOnEveryPath(t *testing.T) {
	t.Parallel()
	for _, p := range connectionPaths {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			_, u := pathURL(t, p, false)
			run := func(url string, args ...string) result {
				return helix(t, []string{"HELIX_DATABASE_URL=" + url}, "", args...)
			}
			opt := withParam(t, u, "options", "-c work_mem=7MB --lock-timeout=3s")
			r := run(opt, "decay", "run", "--at", "2026-07-01T00:00:00Z")
			if p == db.PathTransaction {
				if r.code != 2 || !strings.Contains(r.stderr, "options=-c work_mem") || !strings.Contains(r.stderr, "transaction pooler cannot keep") || !strings.Contains(r.stderr, "env HELIX_DATABASE_URL") {
					t.Errorf("options through the transaction pooler: exit %d, want 2 naming options=-c work_mem and the URL's source\n%s", r.code, r.stderr)
				}
			} else if r.code != 0 {
				t.Errorf("options: exit %d, want 0\n%s", r.code, r.stderr)
			}
			bad := run(withParam(t, u, "options", "-B 128"), "migrate", "status")
			if bad.code != 2 || !strings.Contains(bad.stderr, `options parameter (env HELIX_DATABASE_URL): options: "-B" is not a setting`) {
				t.Errorf("options -B: exit %d, want 2 naming the switch\n%s", bad.code, bad.stderr)
			}
			for _, mode := range []string{"exec", "simple_protocol"} {
				r := run(withParam(t, u, "default_query_exec_mode", mode), "decay", "run", "--at", "2026-07-02T00:00:00Z")
				if r.code != 2 || !strings.Contains(r.stderr, "default_query_exec_mode="+mode+", which helix cannot use") {
					t.Errorf("default_query_exec_mode=%s: exit %d, want 2 naming it\n%s", mode, r.code, r.stderr)
				}
			}
			r = run(withParam(t, u, "default_query_exec_mode", "describe_exec"), "decay", "run", "--at", "2026-07-03T00:00:00Z")
			if r.code != 0 {
				t.Errorf("default_query_exec_mode=describe_exec: exit %d, want 0\n%s", r.code, r.stderr)
			}
			r = run(withParam(t, u, "default_query_exec_mode", "cache_statement"), "decay", "run", "--at", "2026-07-04T00:00:00Z")
			if want := map[bool]int{true: 2, false: 0}[p == db.PathTransaction]; r.code != want ||
				want == 2 && !strings.Contains(r.stderr, "default_query_exec_mode=cache_statement") {
				t.Errorf("default_query_exec_mode=cache_statement: exit %d, want %d\n%s", r.code, want, r.stderr)
			}
		})
	}
}

func pathDirect(t *testing.T) string {
	d, _ := pathURL(t, db.PathDirect, false)
	return d
}

// TestSessionSettingErrorNamesTheURLsSource (issue 49, item 3): a setting
// of the URL that the server refuses is named with where the URL came from,
// as a URL syntax error is.
func TestSessionSettingErrorNamesTheURLsSource(t *testing.T) {
	t.Parallel()
	u := pathDirect(t)
	for _, c := range []struct{ env, url, want string }{
		{"SUPABASE_DB_URL", withParam(t, u, "statement_timeout", "abc"), `?statement_timeout= in the database URL (env SUPABASE_DB_URL)`},
		{"DATABASE_URL", withParam(t, u, "options", "-c lock_timeout=soon"), `options=-c lock_timeout=… in the database URL (env DATABASE_URL)`},
	} {
		r := helix(t, []string{c.env + "=" + c.url}, "", "migrate", "status")
		if r.code != 2 || !strings.Contains(r.stderr, "database refused a session setting") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, want 2 with %q\n%s", c.env, r.code, c.want, r.stderr)
		}
	}
}

// TestNoURLNamesEveryVariable (issue 49, item 3): with no database URL the
// message names every environment variable helix reads for it.
func TestNoURLNamesEveryVariable(t *testing.T) {
	t.Parallel()
	r := helix(t, nil, "", "migrate", "status")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	for _, k := range config.Keys {
		if k.Name != "database-url" {
			continue
		}
		for _, v := range append([]string{config.EnvName(k.Name)}, k.Env...) {
			if !strings.Contains(r.stderr, v) {
				t.Errorf("the message does not name %s, which helix reads:\n%s", v, r.stderr)
			}
		}
	}
}
