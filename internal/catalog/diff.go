package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
)

// Diff is what changed from one catalog to another.
type Diff struct {
	Added   []string `json:"added"`   // provider/model
	Removed []string `json:"removed"` // provider/model
	Changed []Change `json:"changed"` // models, and providers' own fields (key without a slash)
}

// Change lists the fields of one model or provider that differ.
type Change struct {
	Key    string        `json:"key"`
	Fields []FieldChange `json:"fields"`
}

// FieldChange is one leaf that differs; Old or New is absent when the field
// was added or removed. Lists are compared whole.
type FieldChange struct {
	Path string `json:"path"`
	Old  any    `json:"old,omitempty"`
	New  any    `json:"new,omitempty"`
}

// Empty reports whether the catalogs were equal.
func (d *Diff) Empty() bool { return len(d.Added)+len(d.Removed)+len(d.Changed) == 0 }

// String renders a change as "cost.input 2.5 → 2".
func (f FieldChange) String() string {
	return fmt.Sprintf("%s %s → %s", f.Path, render(f.Old), render(f.New))
}

func render(v any) string {
	switch x := v.(type) {
	case nil:
		return "(none)"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Compare diffs two catalogs model by model and field by field.
func Compare(old, new Catalog) (*Diff, error) {
	d := &Diff{Added: []string{}, Removed: []string{}, Changed: []Change{}}
	for _, pid := range unionKeys(old, new) {
		op, np := old[pid], new[pid]
		if op != nil && np != nil {
			oh, err := providerHead(op)
			if err != nil {
				return nil, err
			}
			nh, err := providerHead(np)
			if err != nil {
				return nil, err
			}
			if fs, err := compareJSON(oh, nh); err != nil {
				return nil, err
			} else if len(fs) > 0 {
				d.Changed = append(d.Changed, Change{Key: pid, Fields: fs})
			}
		}
		var om, nm map[string]*Model
		if op != nil {
			om = op.Models
		}
		if np != nil {
			nm = np.Models
		}
		for _, mid := range unionKeys(om, nm) {
			key := Key(pid, mid)
			switch {
			case om[mid] == nil:
				d.Added = append(d.Added, key)
			case nm[mid] == nil:
				d.Removed = append(d.Removed, key)
			default:
				ob, err := json.Marshal(om[mid])
				if err != nil {
					return nil, err
				}
				nb, err := json.Marshal(nm[mid])
				if err != nil {
					return nil, err
				}
				if bytes.Equal(ob, nb) {
					continue
				}
				fs, err := compareJSON(ob, nb)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", key, err)
				}
				if len(fs) > 0 {
					d.Changed = append(d.Changed, Change{Key: key, Fields: fs})
				}
			}
		}
	}
	return d, nil
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func compareJSON(a, b []byte) ([]FieldChange, error) {
	var av, bv any
	if err := json.Unmarshal(a, &av); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &bv); err != nil {
		return nil, err
	}
	var out []FieldChange
	walkDiff("", av, bv, &out)
	return out, nil
}

// walkDiff descends into objects present on both sides; anything else that
// differs is one change at its dotted path.
func walkDiff(path string, a, b any, out *[]FieldChange) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		for _, k := range unionKeys(am, bm) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			av, ain := am[k]
			bv, bin := bm[k]
			switch {
			case !ain:
				*out = append(*out, FieldChange{Path: p, New: bv})
			case !bin:
				*out = append(*out, FieldChange{Path: p, Old: av})
			default:
				walkDiff(p, av, bv, out)
			}
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, FieldChange{Path: path, Old: a, New: b})
	}
}
