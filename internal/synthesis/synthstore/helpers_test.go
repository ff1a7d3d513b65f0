package synthstore

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/synthesis"
)

var testNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

var (
	demoOnce sync.Once
	demoMem  []memories.Memory
	demoErr  error
)

// demoRows parses testdata/demo/memories.jsonl once per test binary (tests
// only read the result).
func demoRows(t testing.TB) []memories.Memory {
	t.Helper()
	demoOnce.Do(func() {
		f, err := os.Open("../../../testdata/demo/memories.jsonl")
		if err != nil {
			demoErr = err
			return
		}
		defer f.Close()
		demoMem, demoErr = memories.Parse(f, testNow)
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoMem
}

// backToBack says whether the embeddings of ms[idx...] (each of dim reals)
// lie one after another in one array, as Load leaves them for Analyze to
// cluster in place.
func backToBack(ms []synthesis.Memory, idx []int, dim int) bool {
	first := ms[idx[0]].Embedding
	all := first[:cap(first)]
	if len(all) < len(idx)*dim {
		return false
	}
	for r, i := range idx {
		if &ms[i].Embedding[0] != &all[r*dim] {
			return false
		}
	}
	return true
}
