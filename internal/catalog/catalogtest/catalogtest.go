// Package catalogtest holds the test oracle for catalog drift: it reads
// models.dev's api.json as plain JSON, without helix's types or diff, so the
// tests of both compare what helix reports against an independent answer.
package catalogtest

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"
)

// ExpectedDiff returns the provider/model keys added, removed and changed
// between two raw api.json documents, each list sorted.
func ExpectedDiff(t testing.TB, oldRaw, newRaw []byte) (added, removed, changed []string) {
	t.Helper()
	o, n := rawModels(t, oldRaw), rawModels(t, newRaw)
	for k, nv := range n {
		if ov, ok := o[k]; !ok {
			added = append(added, k)
		} else if !reflect.DeepEqual(ov, nv) {
			changed = append(changed, k)
		}
	}
	for k := range o {
		if _, ok := n[k]; !ok {
			removed = append(removed, k)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	sort.Strings(changed)
	return added, removed, changed
}

// rawModels flattens api.json into provider/model → descriptor.
func rawModels(t testing.TB, raw []byte) map[string]any {
	t.Helper()
	var doc map[string]struct {
		Models map[string]any `json:"models"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for pid, p := range doc {
		for mid, m := range p.Models {
			out[pid+"/"+mid] = m
		}
	}
	return out
}
