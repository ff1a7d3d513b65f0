package tool

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/manifest/openapi"
	"github.com/helixhq/helix/internal/owner"
)

// TestToolsPerUser: A imports and approves its own weather beside the
// shared one; A's list and show give A's, B's give the shared one; B cannot
// show, approve or revoke A's tool (not found, as for a missing one), and a
// user cannot approve a shared tool.
func TestToolsPerUser(t *testing.T) {
	pool := seed(t) // shared weather 1.0.0 approved, 1.1.0 proposed
	ctx := context.Background()
	a, b := uuid.MustParse("a0000000-0000-4000-8000-0000000000a1"), uuid.MustParse("b0000000-0000-4000-8000-0000000000b2")
	data, err := os.ReadFile("../../../testdata/manifest/tools/weather-1.0.0.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l, err := openapi.Parse(ctx, "weather-1.0.0.yaml", data, openapi.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	changes, err := manifest.Record(ctx, pool, l.Candidates, manifest.ImportOptions{Actor: "alice", Now: now, Owner: owner.User(a)})
	if err != nil || len(changes) != 1 || changes[0].Action != "created" || changes[0].State != manifest.Proposed {
		t.Fatalf("A importing its own weather@1.0.0 beside the shared one: %+v %v", changes, err)
	}
	run := func(user *uuid.UUID, fn func(context.Context, *Options) error, mod func(*Options)) (string, error) {
		opts, s := newOpts(t, pool, false)
		if user != nil {
			opts.UserID = cmdutil.UserID{ID: *user, Given: true}
		}
		mod(opts)
		err := fn(ctx, opts)
		return s.Out.String(), err
	}
	notFound := func(err error) bool {
		var nf *manifest.NotFoundError
		code, _ := cmdutil.ExitCodeFor(ctx, err)
		return errors.As(err, &nf) && code == cmdutil.ExitUsage
	}
	// B approving A's tool, and A approving the shared proposed 1.1.0: not found
	if _, err := run(&b, approveRun, func(o *Options) { o.Name, o.Version, o.By = "weather", "1.0.0", "bob" }); !notFound(err) {
		t.Fatalf("B approving A's weather: %v, want not found", err)
	}
	if _, err := run(&a, approveRun, func(o *Options) { o.Name, o.Version, o.By = "weather", "1.1.0", "alice" }); !notFound(err) {
		t.Fatalf("A approving the shared weather@1.1.0: %v, want not found", err)
	}
	if out, err := run(&a, approveRun, func(o *Options) { o.Name, o.Version, o.By = "weather", "1.0.0", "alice" }); err != nil || out != "approved weather@1.0.0 (by alice)\n" {
		t.Fatalf("A approving its own weather: %q %v", out, err)
	}
	// the shared 1.0.0 is still approved: A's approval superseded nothing of the operator's
	shared, err := manifest.Show(ctx, pool, "weather", "1.0.0")
	if err != nil || shared.State != manifest.Approved || shared.Owner != nil {
		t.Fatalf("shared weather@1.0.0 after A approved its own: %+v %v", shared, err)
	}
	out, _ := run(&a, listRun, func(*Options) {})
	if !strings.Contains(out, "weather\t1.0.0\tapproved\tapi.weather.example\t") || !strings.HasSuffix(strings.Split(out, "\n")[0], "\t"+a.String()) || strings.Count(out, "\n") != 3 {
		t.Errorf("A's list:\n%s", out)
	}
	out, _ = run(&b, listRun, func(*Options) {})
	if strings.Contains(out, a.String()) || strings.Count(out, "\n") != 2 {
		t.Errorf("B's list shows A's tool:\n%s", out)
	}
	out, _ = run(&a, showRun, func(o *Options) { o.Name = "weather" })
	if !strings.Contains(out, "owner:       "+a.String()) {
		t.Errorf("A's show weather is not A's own:\n%s", out)
	}
	out, _ = run(&b, showRun, func(o *Options) { o.Name = "weather" })
	if !strings.Contains(out, "owner:       shared") || !strings.Contains(out, "weather@1.1.0") {
		t.Errorf("B's show weather is not the shared one:\n%s", out)
	}
	// B revoking A's tool: not found; A's own revoke leaves the shared one
	if _, err := run(&b, revokeRun, func(o *Options) { o.Name, o.Reason, o.By = "weather", "mine now", "bob" }); err != nil {
		// B has no weather of its own: not found
		if !notFound(err) {
			t.Fatalf("B revoking weather: %v", err)
		}
	} else {
		t.Fatal("B revoking weather revoked something")
	}
	if _, err := run(&a, revokeRun, func(o *Options) { o.Name, o.Reason, o.By = "weather", "done", "alice" }); err != nil {
		t.Fatal(err)
	}
	if shared, _ := manifest.Show(ctx, pool, "weather", "1.0.0"); shared.State != manifest.Approved {
		t.Fatalf("A's revoke touched the shared weather: %s", shared.State)
	}
}
