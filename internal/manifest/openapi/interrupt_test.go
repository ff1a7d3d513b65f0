package openapi

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/manifest"
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
		o := LoadOptions{OpenAPI: Options{onPhase: func(p string) { mu.Lock(); seen = append(seen, p); mu.Unlock() }}}
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
	b := &builder{ctx: ctx, root: map[string]any{}, sh: manifest.NewShared()}
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
