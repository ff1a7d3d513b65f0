package mcpserver

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/helixhq/helix/internal/manifest"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/pgtest"
)

// recordFor records and approves ms as o's own tools.
func recordFor(t *testing.T, pool *pgxpool.Pool, o owner.Owner, ms ...*manifest.Manifest) {
	t.Helper()
	ctx := context.Background()
	var cands []manifest.Candidate
	for _, m := range ms {
		cands = append(cands, manifest.Candidate{Manifest: m, Source: "test"})
	}
	if _, err := manifest.Record(ctx, pool, cands, manifest.ImportOptions{Actor: "t", Now: time.Now(), Owner: o}); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if _, err := manifest.ApproveFor(ctx, pool, m.Name, m.Version, o, "t", "test", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestServesTheUsersOwnAndShared: mcp serve --user-id A lists A's approved
// tool and the shared ones, never B's; calling B's tool by name is refused
// before anything is sent; A's newly approved tool is announced
// (tools/list_changed) and listed; B approving one changes nothing for A.
func TestServesTheUsersOwnAndShared(t *testing.T) {
	pool := pgtest.New(t)
	svc := newService(t)
	b := uuid.MustParse("b0000000-0000-4000-8000-0000000000b2")
	record(t, pool, httpTool(svc, "shop.getItem", "GET", "/items/{id}"))
	approve(t, pool, "shop.getItem")
	recordFor(t, pool, owner.User(user), httpTool(svc, "mine.notes", "GET", "/items/{id}"))
	recordFor(t, pool, owner.User(b), httpTool(svc, "theirs.diary", "GET", "/items/{id}"))
	changed := make(chan struct{}, 10)
	srv, cs := serve(t, pool, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	if got := toolNames(t, cs); !slices.Equal(got, []string{MemorySearchTool, "mine.notes", "shop.getItem"}) {
		t.Fatalf("tools/list for A: %v", got)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "theirs.diary", Arguments: map[string]any{"id": "1"}}); err == nil {
		t.Fatal("A called B's tool")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "mine.notes", Arguments: map[string]any{"id": "7"}})
	if err != nil || res.IsError {
		t.Fatalf("A calling its own tool: %v %+v", err, res)
	}
	if got := svc.requests(); !slices.Equal(got, []string{"GET /items/7"}) {
		t.Errorf("service saw %v, want A's one call", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); srv.Watch(ctx, 20*time.Millisecond) }()
	defer wg.Wait()
	defer cancel()
	// B's new tool: nothing changes for A (no notification within a few looks)
	recordFor(t, pool, owner.User(b), httpTool(svc, "theirs.more", "GET", "/items/{id}"))
	select {
	case <-changed:
		t.Errorf("A was told of a change in B's tools")
	case <-time.After(300 * time.Millisecond):
	}
	// A's new tool: announced and listed
	recordFor(t, pool, owner.User(user), httpTool(svc, "mine.more", "GET", "/items/{id}"))
	wait(t, changed)
	if got := toolNames(t, cs); !slices.Equal(got, []string{MemorySearchTool, "mine.more", "mine.notes", "shop.getItem"}) {
		t.Fatalf("tools/list for A after A's approval: %v", got)
	}
	if got := strings.Join(toolNames(t, cs), ","); strings.Contains(got, "theirs") {
		t.Errorf("A sees B's tools: %s", got)
	}
}
