package manifest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
)

// An import interrupted as any of its phases starts stops at once with the
// context's error, and runs no later phase.
func TestImportInterruptedInEachPhase(t *testing.T) {
	docs := map[string][]string{
		// Swagger 2.0 goes through the conversion too.
		"oai-v2.0-json-petstore.json": {phaseDecode, phaseRefs, phaseConvert, phaseValidate, phaseBuild, phaseCompile},
		"oai-v3.0-uspto.json":         {phaseDecode, phaseRefs, phaseValidate, phaseBuild, phaseCompile},
	}
	for doc, phases := range docs {
		data := readTestdata(t, doc)
		// Uninterrupted, every phase runs, in this order.
		var mu sync.Mutex
		var seen []string
		o := LoadOptions{OpenAPI: OpenAPIOptions{onPhase: func(p string) { mu.Lock(); seen = append(seen, p); mu.Unlock() }}}
		if _, err := Parse(context.Background(), doc, data, o); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(seen, phases) {
			t.Fatalf("%s: phases %v, want %v", doc, seen, phases)
		}
		for i, stop := range phases {
			ctx, cancel := context.WithCancel(context.Background())
			var after []string
			o.OpenAPI.onPhase = func(p string) {
				mu.Lock()
				defer mu.Unlock()
				if p == stop {
					cancel()
				} else if slices.Index(phases, p) > i && p != phaseValidate {
					after = append(after, p)
				}
			}
			start := time.Now()
			l, err := Parse(ctx, doc, data, o)
			cancel()
			if !errors.Is(err, context.Canceled) || l != nil {
				t.Errorf("%s interrupted in %s: %v, %v", doc, stop, l, err)
			}
			if len(after) > 0 {
				t.Errorf("%s interrupted in %s: went on to %v", doc, stop, after)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s interrupted in %s: took %s", doc, stop, d)
			}
		}
	}
}

// Past its deadline, an import in the middle of expanding one operation's
// references stops there: the inliner looks at the context as it goes.
func TestInlinerStopsAtDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := &builder{ctx: ctx, root: map[string]any{}, sh: newShared()}
	in := &inliner{b: b}
	wide := map[string]any{}
	for i := 0; i < 3*ctxEvery; i++ {
		wide[string(rune('a'+i%26))+string(rune(i))] = map[string]any{"type": "string"}
	}
	in.schema(map[string]any{"properties": wide})
	if !errors.Is(in.err, context.Canceled) || in.size > 2*ctxEvery {
		t.Errorf("err %v after %d values", in.err, in.size)
	}
}

// erringCtx ends (its Err, not its Done) after its Err has been asked n times.
type erringCtx struct {
	context.Context
	mu sync.Mutex
	n  int
}

func (c *erringCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// Interrupted while it stores the tools, an import writes nothing.
func TestRecordInterruptedWritesNothing(t *testing.T) {
	pool := pgtest.New(t)
	cands := candidates(t, "oai-v3.0-uspto.json", "oai-v3.0-petstore.yaml")
	if len(cands) < 3 {
		t.Fatalf("%d candidates", len(cands))
	}
	// The first row of the COPY goes out, the second finds the import interrupted.
	ctx := &erringCtx{Context: context.Background(), n: 1}
	_, err := Record(ctx, pool, cands, ImportOptions{Actor: "test", Now: time.Now()})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Record: %v", err)
	}
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT (SELECT count(*) FROM tool_manifests) + (SELECT count(*) FROM tool_audit)").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d rows written", n)
	}
}
