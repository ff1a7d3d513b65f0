package syncer

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FuzzPut: a put of any JSON object onto an empty entity renders that
// object back, minus the keys set to null; anything else is rejected as
// invalid rather than crashing the reconcile run.
func FuzzPut(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":{"b":[1,{"c":null}],"d":null}}`, `{"":{"":""}}`, `[1]`, `null`, `{"a":1e400}`, `{"a":"\u00e9"}`, `{} {}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		s := &State{}
		o, err := s.Apply(Change{Device: "d", Clock: Clock{"d": 1}, Op: OpPut, Doc: json.RawMessage(doc)}, FieldLWW)
		if err != nil {
			if o != Invalid || len(s.Writes) != 0 {
				t.Fatalf("rejected %q but kept state: %s", doc, o)
			}
			return
		}
		in, err := decode([]byte(doc))
		if err != nil {
			t.Fatalf("accepted %q that encoding/json rejects: %v", doc, err)
		}
		out, err := decode(s.Document())
		if err != nil {
			t.Fatalf("document of %q: %v", doc, err)
		}
		if want := dropNulls(in); !reflect.DeepEqual(out, want) {
			t.Fatalf("put %q rendered %s, want %v", doc, s.Document(), want)
		}
	})
}

func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

func dropNulls(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, x := range m {
		if x != nil {
			out[k] = dropNulls(x)
		}
	}
	return out
}

// FuzzPatch: two patches as devices upload them (any bytes) onto one
// entity. Each is folded in or refused as invalid, never a panic; what is
// accepted stays within the bounds, and the merge state read back from its
// stored form renders the same document.
func FuzzPatch(f *testing.F) {
	for _, s := range [][2]string{
		{`{"a":1}`, `{"a":null,"b":{"c":2}}`},
		{`{"tags":{"travel":true}}`, `{"tags":{"work":false}}`},
		{`{"a":{"b":{"c":{"d":1}}}}`, `{"a":{"b":null}}`},
		{`{"a":"{[\"}"}`, `{"a":[[[[1]]]]}`},
		{`{"a":1}`, `[`},
		{`{"a":` + strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 41), `{}`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, p1, p2 string) {
		s := &State{}
		for i, p := range []string{p1, p2} {
			dev := string(rune('a' + i))
			o, err := s.Apply(Change{Device: dev, Clock: Clock{dev: 1}, TS: time.Unix(int64(i), 0), Op: OpPatch, Doc: json.RawMessage(p)}, FieldLWW)
			if err != nil {
				if o != Invalid {
					t.Fatalf("patch %q: error %v with outcome %s", p, err, o)
				}
				continue
			}
			if len(p) > MaxDocBytes || jsonDepth([]byte(p)) > MaxDepth {
				t.Fatalf("accepted a patch past the bounds: %d bytes, depth %d", len(p), jsonDepth([]byte(p)))
			}
		}
		ms, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back State
		if err := json.Unmarshal(ms, &back); err != nil {
			t.Fatalf("merge state %s does not read back: %v", ms, err)
		}
		if a, b := s.Document(), back.Document(); !bytes.Equal(a, b) {
			t.Fatalf("document %s, after a round trip %s", a, b)
		}
	})
}

// FuzzMergeState: a stored merge state is read back by every reconcile; a
// damaged one is an error, never a panic, and one that reads renders.
func FuzzMergeState(f *testing.F) {
	f.Add([]byte(`{"clock":{"d":1},"writes":[{"c":{"d":1},"ts":1,"d":"d","e":[{"p":[],"k":"o"},{"p":["a"],"k":"o"},{"s":1,"p":["b"],"k":"v","v":1}]}]}`))
	f.Add([]byte(`{"clock":{"d":1},"writes":[{"c":{"d":1},"ts":1,"d":"d","e":[{"p":[],"k":"r"},{"p":["a","b"],"k":"v","v":"x"}]}]}`))
	f.Add([]byte(`{"writes":[{"e":[{"s":3,"p":["x"],"k":"v"}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s State
		if json.Unmarshal(b, &s) != nil {
			return
		}
		_ = s.Document()
		if _, err := json.Marshal(&s); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzFastWalk: wherever the byte-level walk of a document answers, it
// gives the entries encoding/json's decoding and walk give, byte for byte.
func FuzzFastWalk(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, ` { "b" : {"c": null, "a": -1.5e3}, "a": "x y" } `, `{"a":[1, 2]}`,
		`{"a":"\u00e9"}`, `{"a":1,"a":2}`, `{"é":1}`, `{"a":"<b>"}`, `{"a":{}}`, `{"a":true,"b":false}`, `{"a":1} x`, `[1]`, `{"a":"x\"y"}`, `{"a":[[1, "x"], {"b":1}]}`, `{"a":[ "a<b" ]}`, `{"a":[[ ],true , null]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		fast, ok := fastWalk(nil, []byte(doc))
		if !ok {
			return
		}
		d := json.NewDecoder(strings.NewReader(doc))
		d.UseNumber()
		var obj map[string]any
		if err := d.Decode(&obj); err != nil || obj == nil {
			t.Fatalf("fast walk took %q, which encoding/json refuses: %v", doc, err)
		}
		slow, err := walk(nil, nil, obj)
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if len(fast) == 0 && len(slow) == 0 {
			return
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\nfast %q\nslow %q", doc, fast, slow)
		}
	})
}

// FuzzParseClock: a clock read on the fast path is the one json.Unmarshal
// reads, and the fast path refuses nothing json.Unmarshal accepts.
func FuzzParseClock(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": 1, "b": 22}`, `{"a":01}`, `{"a":1.0}`, `{"a":-1}`, `{"a":18446744073709551616}`,
		`{"a":null}`, `null`, `{"a":1,"a":2}`, `{"\u00e9":1}`, `{"a":1} {}`, `{"a":1e2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want Clock
		werr := json.Unmarshal([]byte(s), &want)
		got, err := parseClock([]byte(s))
		if (err == nil) != (werr == nil) || err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: parseClock %v (%v), json.Unmarshal %v (%v)", s, got, err, want, werr)
		}
		if fast, ok := fastClock([]byte(s)); ok && (werr != nil || !reflect.DeepEqual(fast, want)) {
			t.Fatalf("%q: fast path %v, json.Unmarshal %v (%v)", s, fast, want, werr)
		}
	})
}

// FuzzAppendState: appendState writes what encoding/json's reflection
// writes for the wire form (referenceState) for any state read back from a
// stored one (whose values are compact, as json.Marshal leaves them), and
// for the states random histories fold to.
func FuzzAppendState(f *testing.F) {
	f.Add([]byte(`{"clock":{"d":1,"a<b":2},"writes":[{"c":{"d":1},"ts":1,"d":"d\u00e9","e":[{"p":[],"k":"o"},{"p":["a"],"k":"o"},{"s":1,"p":["b","x&y"],"k":"v","v":"<i>"}]}]}`))
	f.Add([]byte(`{"clock":null,"writes":null}`))
	f.Add([]byte(`{"writes":[{"e":[{"p":["x"],"k":"t"}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s State
		if json.Unmarshal(b, &s) != nil {
			return
		}
		stored, err := referenceState(&s)
		if err != nil {
			return // a value that is not JSON: nothing NewWrite or a stored state holds
		}
		var back State
		if err := json.Unmarshal(stored, &back); err != nil {
			t.Fatal(err)
		}
		want, err := referenceState(&back)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendState(nil, &back); string(got) != string(want) {
			t.Fatalf("appendState\n%s\nencoding/json\n%s", got, want)
		}
	})
}

func TestAppendStateOfHistories(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 300; i++ {
		s := &State{}
		for _, c := range genChanges(r, 1+r.Intn(30)) {
			if _, err := s.Apply(c, []Strategy{FieldLWW, LWW, Manual}[i%3]); err != nil {
				t.Fatal(err)
			}
		}
		want, err := referenceState(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendState(nil, s); string(got) != string(want) {
			t.Fatalf("history %d: appendState\n%s\nencoding/json\n%s", i, got, want)
		}
		if got, want := appendClock(nil, s.Clock), must(json.Marshal(s.Clock)); string(got) != string(want) {
			t.Fatalf("history %d: appendClock %s, json.Marshal %s", i, got, want)
		}
	}
}

// referenceState is the stored form as encoding/json writes it from the
// wire types: what Write.MarshalJSON did before appendWrite.
func referenceState(s *State) ([]byte, error) {
	var ws []json.RawMessage
	if s.Writes != nil {
		ws = make([]json.RawMessage, len(s.Writes))
	}
	for i, w := range s.Writes {
		ww := wireWrite{Clock: w.Clock, TS: w.TS, Device: w.Device, Entries: make([]wireEntry, len(w.Entries))}
		var prev []string
		for j, e := range w.Entries {
			n := 0
			for n < len(prev) && n < len(e.Path) && prev[n] == e.Path[n] {
				n++
			}
			suffix := e.Path[n:]
			if suffix == nil {
				suffix = []string{}
			}
			ww.Entries[j] = wireEntry{Shared: n, Path: suffix, Kind: e.Kind, Value: e.Value}
			prev = e.Path
		}
		b, err := json.Marshal(ww)
		if err != nil {
			return nil, err
		}
		ws[i] = b
	}
	return json.Marshal(struct {
		Clock  Clock             `json:"clock"`
		Writes []json.RawMessage `json:"writes"`
	}{s.Clock, ws})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
