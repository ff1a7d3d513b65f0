package syncer

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"time"
)

// genChanges simulates 3–5 devices editing one entity offline: each device
// bumps its own counter per edit and now and then learns another device's
// clock (a sync), so the history holds causal chains and concurrent edits.
// Wall clocks are skewed per device, so a causally later edit can carry an
// earlier timestamp, and timestamps tie.
func genChanges(r *rand.Rand, n int) []Change {
	devs := make([]string, 3+r.Intn(3))
	clocks := make([]Clock, len(devs))
	skew := make([]int, len(devs))
	for i := range devs {
		devs[i] = fmt.Sprintf("dev-%c", 'a'+i)
		clocks[i] = Clock{}
		skew[i] = r.Intn(7) - 3
	}
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	out := make([]Change, 0, n)
	for step := 0; step < n; step++ {
		d := r.Intn(len(devs))
		if r.Intn(3) == 0 {
			clocks[d] = clocks[d].Merge(clocks[r.Intn(len(devs))])
		}
		clocks[d][devs[d]]++
		c := Change{
			Device: devs[d],
			Clock:  clocks[d].Copy(),
			TS:     base.Add(time.Duration(step/2+skew[d]) * time.Second),
		}
		switch p := r.Intn(100); {
		case p < 8:
			c.Op = OpDelete
		case p < 22:
			c.Op = OpPut
			c.Doc = genObject(r, 2, false)
		default:
			c.Op = OpPatch
			c.Doc = genObject(r, 2, true)
		}
		out = append(out, c)
	}
	return out
}

func genObject(r *rand.Rand, depth int, nulls bool) json.RawMessage {
	b, _ := json.Marshal(genMap(r, depth, nulls))
	return b
}

func genMap(r *rand.Rand, depth int, nulls bool) map[string]any {
	keys := []string{"a", "b", "c", "d"}
	m := map[string]any{}
	for i := 1 + r.Intn(3); i > 0; i-- {
		k := keys[r.Intn(len(keys))]
		switch p := r.Intn(10); {
		case p < 2 && nulls:
			m[k] = nil
		case p < 4 && depth > 0:
			m[k] = genMap(r, depth-1, nulls)
		case p < 5:
			m[k] = []any{r.Intn(3), "x"}
		case p < 7:
			m[k] = fmt.Sprintf("s%d", r.Intn(5))
		default:
			m[k] = r.Intn(10)
		}
	}
	return m
}
