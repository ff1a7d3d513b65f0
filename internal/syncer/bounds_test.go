package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/pgtest"
)

func nested(depth int, leaf string) string {
	return strings.Repeat(`{"a":`, depth) + leaf + strings.Repeat(`}`, depth)
}

// Issue 22, finding 9: one patch nested 9,000 levels deep cost 14 s, 1.9 GB
// and 162 MB of merge state. Past the bounds a change is invalid with a
// clear error; within them the stored state grows with the document, not
// with the square of its depth.
func TestChangeBounds(t *testing.T) {
	cases := []struct {
		name, doc, want string
	}{
		{"9,000 levels", nested(9000, "1"), "nested 9000 levels deep, more than the 32"},
		{"33 levels", nested(33, "1"), "nested 33 levels deep"},
		{"deep array in a value", `{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, "nested 41 levels deep"},
		{"2 MiB", `{"a":"` + strings.Repeat("x", 2<<20) + `"}`, "document of 2097160 bytes, more than the 1048576"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &State{}
			o, err := s.Apply(Change{Device: "d", Clock: Clock{"d": 1}, TS: time.Unix(1, 0), Op: OpPatch, Doc: json.RawMessage(c.doc)}, FieldLWW)
			if o != Invalid || !errors.Is(err, ErrInvalidChange) || !strings.Contains(err.Error(), c.want) || len(s.Writes) != 0 {
				t.Fatalf("outcome %s, %v: want invalid saying %q", o, err, c.want)
			}
		})
	}
	// Braces inside strings are not nesting.
	s := &State{}
	if _, err := s.Apply(Change{Device: "d", Clock: Clock{"d": 1}, Op: OpPut, Doc: json.RawMessage(`{"a":"` + strings.Repeat(`{[\"`, 100) + `"}`)}, FieldLWW); err != nil {
		t.Fatal(err)
	}
}

func TestMergeStateGrowsWithTheData(t *testing.T) {
	// At the depth bound, and wide: 300 chains 32 deep.
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 300; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d":%s`, i, nested(31, `"v"`))
	}
	b.WriteString("}")
	doc := b.String()
	s := &State{}
	if _, err := s.Apply(Change{Device: "d", Clock: Clock{"d": 1}, TS: time.Unix(1, 0), Op: OpPatch, Doc: json.RawMessage(doc)}, FieldLWW); err != nil {
		t.Fatal(err)
	}
	ms, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	// Each level costs one entry, {"s":N,"p":["a"],"k":"o"}, about 25 bytes
	// for the 6 bytes of {"a": }: linear, where full paths cost 32²/2 segments per chain.
	if len(ms) > 6*len(doc) {
		t.Fatalf("merge state of %d bytes for a %d-byte document", len(ms), len(doc))
	}
	t.Logf("document %d bytes, merge state %d bytes", len(doc), len(ms))
	var back State
	if err := json.Unmarshal(ms, &back); err != nil {
		t.Fatal(err)
	}
	if string(back.Document()) != string(s.Document()) || !jsonEqualRaw(t, ms, &back) {
		t.Fatal("merge state does not round-trip")
	}
	// A chain of nested paths shares one backing array after reading.
	e := back.Writes[0].Entries
	if len(e) < 3 || &e[1].Path[0] != &e[2].Path[0] {
		t.Error("nested paths read back do not share their prefix")
	}
	// Appending to one path never changes another.
	_ = append(e[1].Path, "zzz")
	if e[2].Path[1] != "a" {
		t.Fatal("an append to one entry's path wrote into the next entry's")
	}
}

func jsonEqualRaw(t *testing.T, ms []byte, s *State) bool {
	again, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(again) == string(ms)
}

// A merge state stored before front coding (full paths, no "s") still reads.
func TestMergeStateOldForm(t *testing.T) {
	old := `{"clock":{"d":1},"writes":[{"c":{"d":1},"ts":1,"d":"d","e":[{"p":[],"k":"o"},{"p":["a"],"k":"o"},{"p":["a","b"],"k":"v","v":1},{"p":["c"],"k":"v","v":"x"}]}]}`
	var s State
	if err := json.Unmarshal([]byte(old), &s); err != nil {
		t.Fatal(err)
	}
	if got := string(s.Document()); got != `{"a":{"b":1},"c":"x"}` {
		t.Fatalf("document %s", got)
	}
	var bad State
	if err := json.Unmarshal([]byte(`{"writes":[{"e":[{"s":3,"p":["x"],"k":"v"}]}]}`), &bad); err == nil {
		t.Fatal("an entry sharing more segments than the one before it was accepted")
	}
}

// In the real reconcile path, a change past the bounds is its own invalid
// outcome with its error, and the batch around it is applied.
func TestReconcileBoundedChange(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	user := uuid.MustParse("00000000-0000-4000-8000-000000000001")
	ts := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	ps := []Pending{
		{EntityType: "memory", EntityID: "m1", UserID: user, Change: Change{Device: "a", Clock: Clock{"a": 1}, TS: ts, Op: OpPatch, Doc: json.RawMessage(`{"x":1}`)}},
		{EntityType: "memory", EntityID: "m1", UserID: user, Change: Change{Device: "b", Clock: Clock{"b": 1}, TS: ts, Op: OpPatch, Doc: json.RawMessage(nested(9000, "1"))}},
		{EntityType: "memory", EntityID: "m2", UserID: user, Change: Change{Device: "a", Clock: Clock{"a": 1}, TS: ts, Op: OpPatch, Doc: json.RawMessage(`{"y":2}`)}},
	}
	if _, err := Enqueue(ctx, pool, ps); err != nil {
		t.Fatal(err)
	}
	c, err := newReconciler(1, 10).Run(ctx, pool, Filter{})
	if err != nil || c.Invalid != 1 || c.Applied+c.Merged != 2 {
		t.Fatalf("counts %+v, %v", c, err)
	}
	var msg string
	if err := pool.QueryRow(ctx, `SELECT error FROM sync_changes WHERE outcome = 'invalid'`).Scan(&msg); err != nil || !strings.Contains(msg, "nested 9000 levels deep") {
		t.Fatalf("invalid change's error %q, %v", msg, err)
	}
	var doc string
	if err := pool.QueryRow(ctx, `SELECT doc::text FROM sync_state WHERE entity_id = 'm1'`).Scan(&doc); err != nil || doc != `{"x": 1}` {
		t.Fatalf("m1 = %s, %v", doc, err)
	}
}
