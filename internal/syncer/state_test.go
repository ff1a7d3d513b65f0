package syncer

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)

func ch(dev string, clock Clock, sec int, op Op, doc string) Change {
	return Change{Device: dev, Clock: clock, TS: t0.Add(time.Duration(sec) * time.Second), Op: op, Doc: json.RawMessage(doc)}
}

func fold(t testing.TB, strat Strategy, cs []Change) *State {
	t.Helper()
	s := &State{}
	for _, c := range cs {
		if _, err := s.Apply(c, strat); err != nil {
			t.Fatalf("apply %+v: %v", c, err)
		}
	}
	return s
}

func doc(s *State) string {
	d := s.Document()
	if d == nil {
		return "<deleted>"
	}
	return string(d)
}

func TestClockCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b Clock
		want Order
	}{
		{Clock{"a": 1}, Clock{"a": 1}, Equal},
		{Clock{"a": 1}, Clock{"a": 1, "b": 0}, Equal},
		{Clock{"a": 1}, Clock{"a": 2}, Before},
		{Clock{"a": 1}, Clock{"a": 1, "b": 1}, Before},
		{Clock{"a": 2, "b": 1}, Clock{"a": 1, "b": 1}, After},
		{Clock{"a": 2}, Clock{"b": 1}, Concurrent},
		{Clock{}, Clock{"b": 1}, Before},
	} {
		if got := tc.a.Compare(tc.b); got != tc.want {
			t.Errorf("%v vs %v = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if got := (Clock{"a": 3, "b": 1}).Merge(Clock{"b": 4, "c": 2}); !reflect.DeepEqual(got, Clock{"a": 3, "b": 4, "c": 2}) {
		t.Errorf("merge = %v", got)
	}
}

func TestApplyOutcomes(t *testing.T) {
	s := &State{}
	steps := []struct {
		c    Change
		want Outcome
		doc  string
	}{
		{ch("phone", Clock{"phone": 1}, 0, OpPut, `{"title":"a","tags":{"x":1}}`), Applied, `{"tags":{"x":1},"title":"a"}`},
		{ch("phone", Clock{"phone": 2}, 5, OpPatch, `{"title":"b"}`), Applied, `{"tags":{"x":1},"title":"b"}`},
		// A redelivered change changes nothing.
		{ch("phone", Clock{"phone": 2}, 5, OpPatch, `{"title":"b"}`), Discarded, `{"tags":{"x":1},"title":"b"}`},
		// An old full document the state has superseded is discarded.
		{ch("phone", Clock{"phone": 1}, 0, OpPut, `{"title":"a","tags":{"x":1}}`), Discarded, `{"tags":{"x":1},"title":"b"}`},
		// The laptop edited concurrently: its nested key merges, its title
		// is older by timestamp and loses.
		{ch("laptop", Clock{"phone": 1, "laptop": 1}, 3, OpPatch, `{"title":"c","tags":{"y":2}}`), Merged, `{"tags":{"x":1,"y":2},"title":"b"}`},
		// Null deletes a key (a tombstone), later by timestamp than the laptop's write.
		{ch("web", Clock{"phone": 2, "laptop": 1, "web": 1}, 9, OpPatch, `{"tags":{"x":null}}`), Applied, `{"tags":{"y":2},"title":"b"}`},
		{ch("web", Clock{"phone": 2, "laptop": 1, "web": 2}, 10, OpDelete, ``), Applied, `<deleted>`},
	}
	for i, st := range steps {
		got, err := s.Apply(st.c, FieldLWW)
		if err != nil {
			t.Fatal(err)
		}
		if got != st.want || doc(s) != st.doc {
			t.Errorf("step %d: %s %s, want %s %s", i, got, doc(s), st.want, st.doc)
		}
	}
	if want := (Clock{"phone": 2, "laptop": 1, "web": 2}); !reflect.DeepEqual(s.Clock, want) {
		t.Errorf("clock %v, want %v", s.Clock, want)
	}
}

func TestCausalWinsOverSkewedTimestamp(t *testing.T) {
	// The laptop saw the phone's edit, so its edit wins although its wall clock is behind.
	s := fold(t, FieldLWW, []Change{
		ch("phone", Clock{"phone": 1}, 100, OpPatch, `{"title":"phone"}`),
		ch("laptop", Clock{"phone": 1, "laptop": 1}, 50, OpPatch, `{"title":"laptop"}`),
	})
	if got := doc(s); got != `{"title":"laptop"}` {
		t.Errorf("doc %s", got)
	}
}

func TestScalarAndObjectAtOneKey(t *testing.T) {
	cs := []Change{
		ch("a", Clock{"a": 1}, 1, OpPatch, `{"k":{"x":1,"y":2}}`),
		ch("b", Clock{"b": 1}, 2, OpPatch, `{"k":5}`),
		ch("c", Clock{"c": 1}, 3, OpPatch, `{"k":{"z":3}}`),
	}
	// k=5 at t2 replaced the object of t1; the object of t3 starts afresh.
	if got := doc(fold(t, FieldLWW, cs)); got != `{"k":{"z":3}}` {
		t.Errorf("doc %s", got)
	}
	if got := doc(fold(t, FieldLWW, cs[:2])); got != `{"k":5}` {
		t.Errorf("doc %s", got)
	}
}

func TestLWWAndManual(t *testing.T) {
	cs := []Change{
		ch("a", Clock{"a": 1}, 1, OpPut, `{"x":1}`),
		ch("b", Clock{"a": 1, "b": 1}, 2, OpPatch, `{"y":2}`),
		ch("c", Clock{"a": 1, "c": 1}, 3, OpPatch, `{"z":3}`),
	}
	if got := doc(fold(t, LWW, cs)); got != `{"z":3}` {
		t.Errorf("lww doc %s", got)
	}
	if got := doc(fold(t, FieldLWW, cs)); got != `{"x":1,"y":2,"z":3}` {
		t.Errorf("field-lww doc %s", got)
	}
	s := &State{}
	var outs []Outcome
	for _, c := range cs {
		o, _ := s.Apply(c, Manual)
		outs = append(outs, o)
	}
	if !reflect.DeepEqual(outs, []Outcome{Applied, Applied, Conflicted}) || len(s.Siblings()) != 2 {
		t.Fatalf("outcomes %v, %d siblings", outs, len(s.Siblings()))
	}
	// Resolving: a write that saw both siblings replaces them.
	o, _ := s.Apply(ch("helix", s.Clock.Merge(Clock{"helix": 1}), 4, OpPut, `{"y":2,"z":3}`), Manual)
	if o != Applied || len(s.Siblings()) != 1 || doc(s) != `{"y":2,"z":3}` {
		t.Errorf("after resolve: %s, %d siblings, %s", o, len(s.Siblings()), doc(s))
	}
}

func TestInvalidChanges(t *testing.T) {
	for _, c := range []Change{
		ch("", Clock{"a": 1}, 0, OpPatch, `{}`),
		ch("a", Clock{"b": 1}, 0, OpPatch, `{}`),
		ch("a", Clock{"a": 1}, 0, OpPatch, `[1]`),
		ch("a", Clock{"a": 1}, 0, "upsert", `{}`),
	} {
		s := &State{}
		if o, err := s.Apply(c, FieldLWW); o != Invalid || err == nil || len(s.Writes) != 0 {
			t.Errorf("%+v: %s %v", c, o, err)
		}
	}
}

// TestPropertyOrderIndependence: thousands of seeded random histories; every
// permutation and every split into batches (folded apart, then joined in any
// order) reaches byte-identical state, clock and document.
func TestPropertyOrderIndependence(t *testing.T) {
	t.Parallel()
	// The race detector slows this tenfold; it checks the same code paths.
	cases := 2000
	if testing.Short() || raceEnabled {
		cases = 300
	}
	for seed := int64(1); seed <= int64(cases); seed++ {
		r := rand.New(rand.NewSource(seed))
		cs := genChanges(r, 4+r.Intn(30))
		for _, strat := range []Strategy{FieldLWW, LWW, Manual} {
			ref := fold(t, strat, cs)
			want, _ := json.Marshal(ref)
			for k := 0; k < 3; k++ {
				perm := shuffled(r, cs)
				got, _ := json.Marshal(fold(t, strat, perm))
				if string(got) != string(want) {
					t.Fatalf("seed %d %s: permutation differs\n got %s\nwant %s", seed, strat, got, want)
				}
				split := splitJoin(t, r, strat, perm)
				if got, _ := json.Marshal(split); string(got) != string(want) {
					t.Fatalf("seed %d %s: batch split differs\n got %s\nwant %s", seed, strat, got, want)
				}
				if string(split.Document()) != string(ref.Document()) {
					t.Fatalf("seed %d %s: document differs", seed, strat)
				}
			}
			if strat == FieldLWW {
				checkNothingLost(t, seed, cs, ref)
			}
		}
	}
}

func shuffled(r *rand.Rand, cs []Change) []Change {
	out := append([]Change(nil), cs...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func splitJoin(t *testing.T, r *rand.Rand, strat Strategy, cs []Change) *State {
	var parts []*State
	for len(cs) > 0 {
		n := 1 + r.Intn(len(cs))
		parts = append(parts, fold(t, strat, cs[:n]))
		cs = cs[n:]
	}
	r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	s := &State{}
	for _, p := range parts {
		s.Join(p)
	}
	return s
}

// checkNothingLost: every value a change wrote is in the final document,
// unless another change that is causally later, or concurrent and
// later-or-tied by (timestamp, device), wrote that very key (the key
// itself, a covering write above it, or a key below it).
func checkNothingLost(t *testing.T, seed int64, cs []Change, s *State) {
	t.Helper()
	var final map[string]any
	if d := s.Document(); d != nil {
		_ = json.Unmarshal(d, &final)
	}
	ws := make([]Write, len(cs))
	for i, c := range cs {
		ws[i], _ = NewWrite(c, FieldLWW)
	}
	for i := range ws {
		for _, e := range ws[i].Entries {
			if e.Kind != kindValue {
				continue
			}
			got, ok := lookup(final, e.Path)
			if ok && jsonEqual(got, e.Value) {
				continue
			}
			if !overwritten(ws, i, e.Path) {
				t.Fatalf("seed %d: %s's %s=%s lost (final %s)", seed, cs[i].Device, strings.Join(e.Path, "."), e.Value, s.Document())
			}
		}
	}
}

func overwritten(ws []Write, i int, p []string) bool {
	w := &ws[i]
	for j := range ws {
		o := &ws[j]
		if j == i {
			continue
		}
		ord := w.Clock.Compare(o.Clock)
		if !(ord == Before || ord == Concurrent && writeLess(w, o)) {
			continue
		}
		for _, e := range o.Entries {
			switch {
			case len(e.Path) < len(p) && isPrefix(e.Path, p) && covers(e.Kind):
				return true
			case len(e.Path) >= len(p) && isPrefix(p, e.Path):
				return true
			}
		}
	}
	return false
}

func lookup(m map[string]any, p []string) (any, bool) {
	var cur any = m
	for _, k := range p {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func jsonEqual(v any, raw json.RawMessage) bool {
	var w any
	_ = json.Unmarshal(raw, &w)
	return reflect.DeepEqual(v, w)
}

// TestLeafJSONIsMarshal: the fast encodings of leaves give json.Marshal's bytes.
func TestLeafJSONIsMarshal(t *testing.T) {
	doc := `{"a":[1,"x",{"y":null}],"b":1.50,"c":-0,"d":1e5,"e":true,"f":false,"g":"plain text",
		"h":"<b>&amp;</b>","i":"quote \" back \\ slash","j":"tab\tnew\nline","k":"\u00e9t\u00e9 \u2028","l":"","m":"\u007f","n":12345678901234567890}`
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		t.Fatal(err)
	}
	for k, v := range obj {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := leafJSON(v); err != nil || string(got) != string(want) {
			t.Errorf("%s: leafJSON gives %s (%v), json.Marshal %s", k, got, err, want)
		}
	}
}
