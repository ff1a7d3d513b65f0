package syncer

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
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
