package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/netguard"
)

// TestExitCodeFor is the table README's exit-status section documents.
func TestExitCodeFor(t *testing.T) {
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	private := fmt.Errorf("GET http://127.0.0.1/x: dial 127.0.0.1:80: %w", netguard.ErrPrivate)
	for _, c := range []struct {
		ctx  context.Context
		err  error
		code ExitCode
		kind string
	}{
		{ctx, nil, 0, ""},
		{ctx, errors.New("boom"), 1, "failed"},
		{ctx, DriftError(errors.New("drift")), 1, "drift"},
		{ctx, FlagErrorf("bad flag"), 2, "usage"},
		{ctx, InputError(errors.New("bad file")), 2, "input"},
		// a refused private address is bad input in every command, however
		// the command classed the failure around it
		{ctx, private, 2, "input"},
		{ctx, UnavailableError(private), 2, "input"},
		{ctx, &PartialError{Failed: []string{"a: x"}, Total: 3}, 3, "partial"},
		{ctx, fmt.Errorf("wrapped: %w", UnavailableError(errors.New("down"))), 4, "unavailable"},
		// a provider that kept failing is unavailable by its own class, and a
		// run whose every failed item is that is unavailable, not partial
		{ctx, fmt.Errorf("embed u1: %w", httpretry.Unavailable("embeddings", &httpretry.GaveUp{Err: errors.New("EOF"), Attempts: 3})), 4, "unavailable"},
		{ctx, &PartialError{Failed: []string{"u1: down"}, Total: 2, Errs: []error{fmt.Errorf("u1: %w", httpretry.ErrUnavailable)}}, 4, "unavailable"},
		{ctx, &PartialError{Failed: []string{"u1: down", "u2: bad"}, Total: 2, Errs: []error{httpretry.ErrUnavailable, InputError(errors.New("bad"))}}, 3, "partial"},
		{ctx, &httpretry.APIError{Provider: "openai", Status: 400}, 1, "failed"},
		{ctx, &db.ErrLockHeld{Job: "decay", Holder: "h"}, 5, "skipped"},
		{cancelled, errors.New("anything"), 130, "interrupted"},
		{ctx, fmt.Errorf("step: %w", context.Canceled), 130, "interrupted"},
	} {
		if code, kind := ExitCodeFor(c.ctx, c.err); code != c.code || kind != c.kind {
			t.Errorf("ExitCodeFor(%v) = %d %s, want %d %s", c.err, code, kind, c.code, c.kind)
		}
	}
}
