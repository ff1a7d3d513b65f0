package composite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkChain10 measures what the engine adds to ten skill executions:
// parsing is done once, the skills are in-process Go functions.
func BenchmarkChain10(b *testing.B) {
	var src strings.Builder
	src.WriteString("name: chain\nversion: 1\nsteps:\n  - {id: s1, skill: inc, input: {n: $.input.n}}\n")
	for i := 2; i <= 10; i++ {
		fmt.Fprintf(&src, "  - {id: s%d, skill: inc, input: {n: $.steps.s%d.output.n}, when: '$.steps.s%d.output.n > 0'}\n", i, i-1, i-1)
	}
	d, err := Parse([]byte(src.String()), "bench.yaml", ".")
	if err != nil {
		b.Fatal(err)
	}
	g := newGoSkills()
	in := json.RawMessage(`{"n": 1}`)
	b.ReportAllocs()
	for b.Loop() {
		if rec := Run(context.Background(), d, in, RunOptions{Executor: g}); rec.Status != StatusOK {
			b.Fatal(rec.Error)
		}
	}
}
