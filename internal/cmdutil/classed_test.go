package cmdutil

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/manifest/openapi"
	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/syncer"
	"github.com/helixhq/helix/internal/toolexec"
)

// TestDomainErrorsKnowTheirClass: the errors of manifest, toolexec and
// syncer carry their exit class from where they arise (issue 34), so the
// commands return them as they are; wrapping keeps the class.
func TestDomainErrorsKnowTheirClass(t *testing.T) {
	ctx := context.Background()
	gone := httptest.NewServer(http.NotFoundHandler())
	down := gone.URL + "/x.yaml"
	gone.Close() // connection refused: retry later
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: [unclosed"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(target string) error {
		_, err := manifest.Read(ctx, target, nil, netguard.Client(true, 0), 1<<20)
		return err
	}
	parse := func(path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = openapi.Parse(ctx, path, b, openapi.LoadOptions{})
		return err
	}
	_, maxErr := manifest.ParseMaxima("lots", "", "", "")
	_, stratErr := syncer.ParseStrategy("newest")
	for _, c := range []struct {
		name string
		err  error
		code ExitCode
		kind string
	}{
		{"tool input", fmt.Errorf("exec: %w", &toolexec.InputError{Msg: "input to t@1: missing x"}), 2, "input"},
		{"tool runtime", &toolexec.RuntimeError{Msg: "container tools need docker or podman"}, 2, "input"},
		{"tool not approved", fmt.Errorf("%w; nothing was sent", &toolexec.NotApprovedError{Ref: "t@1", State: "proposed"}), 2, "input"},
		{"tool service down", &toolexec.UnavailableError{Msg: "GET x: connection refused"}, 4, "unavailable"},
		{"no tool", &manifest.NotFoundError{Ref: "t@9"}, 2, "input"},
		{"bad transition", &manifest.StateError{Ref: "t@1", State: "revoked", Want: manifest.Approved}, 2, "input"},
		{"conflict", fmt.Errorf("%w (nothing was imported)", &manifest.ConflictError{Name: "t", Version: "1"}), 2, "input"},
		{"unreachable document", read(down), 4, "unavailable"},
		{"document 404", read(notFound.URL + "/x.yaml"), 2, "input"},
		{"missing file", read(filepath.Join(t.TempDir(), "none.yaml")), 2, "input"},
		{"malformed document", parse(bad), 2, "input"},
		{"bad maxima", maxErr, 2, "input"},
		{"no conflict", fmt.Errorf("conflict 7: %w", syncer.ErrNoConflict), 2, "input"},
		{"conflict closed", syncer.ErrNotOpen, 2, "input"},
		{"bad take", syncer.ErrBadTake, 2, "input"},
		{"bad strategy", stratErr, 2, "input"},
	} {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if code, kind := ExitCodeFor(ctx, c.err); code != c.code || kind != c.kind {
			t.Errorf("%s: %v: exit %d %s, want %d %s", c.name, c.err, code, kind, c.code, c.kind)
		}
	}
}
