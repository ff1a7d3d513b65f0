package pgtest

import (
	"strings"
	"testing"
)

// Without HELIX_TEST_DATABASE_URL the tests use helix's own cluster's port,
// never a shared system server on 5432 (issue 49).
func TestServerURLNeverTheSystemServer(t *testing.T) {
	t.Setenv("HELIX_TEST_DATABASE_URL", "")
	t.Setenv("HELIX_PG_PORT", "")
	if u := ServerURL(); !strings.Contains(u, "127.0.0.1:55432/") {
		t.Errorf("default test server %s, want helix's own cluster on 55432", u)
	}
	t.Setenv("HELIX_PG_PORT", "55499")
	if u := ServerURL(); !strings.Contains(u, "127.0.0.1:55499/") {
		t.Errorf("HELIX_PG_PORT=55499: test server %s", u)
	}
	t.Setenv("HELIX_TEST_DATABASE_URL", "postgres://x@db:6543/y")
	if u := ServerURL(); u != "postgres://x@db:6543/y" {
		t.Errorf("HELIX_TEST_DATABASE_URL: test server %s", u)
	}
}
