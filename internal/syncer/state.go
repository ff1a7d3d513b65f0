package syncer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/helixhq/helix/internal/exitcode"
)

// Op is what a change does to its entity.
type Op string

// Change operations.
const (
	// OpPatch merges a JSON object into the document, RFC 7396 style: a key
	// set to null is deleted, a nested object is merged key by key, any other
	// value (scalars, arrays) replaces what was at that key.
	OpPatch Op = "patch"
	// OpPut replaces the whole document.
	OpPut Op = "put"
	// OpDelete deletes the entity (a tombstone: it still carries its clock).
	OpDelete Op = "delete"
)

// Strategy is how concurrent changes to one entity type are merged.
type Strategy string

// Merge strategies.
const (
	FieldLWW Strategy = "field-lww" // key by key, last writer wins per key
	LWW      Strategy = "lww"       // whole document, last writer wins
	Manual   Strategy = "manual"    // concurrent versions kept as siblings for a person to choose
)

// ParseStrategy validates a strategy name.
func ParseStrategy(s string) (Strategy, error) {
	switch st := Strategy(s); st {
	case FieldLWW, LWW, Manual:
		return st, nil
	}
	return "", exitcode.AsInput(fmt.Errorf("unknown sync strategy %q: use field-lww, lww or manual", s))
}

// Outcome is what reconciling did with one change.
type Outcome string

// Outcomes of a change.
const (
	Applied    Outcome = "applied"    // its clock dominated (or equalled) everything the entity had seen
	Discarded  Outcome = "discarded"  // already seen: every key it wrote was superseded by a causally later write
	Merged     Outcome = "merged"     // concurrent with (or late to) the state; folded in key by key
	Conflicted Outcome = "conflicted" // manual strategy: kept as a sibling until someone resolves it
	Invalid    Outcome = "invalid"    // malformed (bad clock or document); nothing was changed
)

// Change is one device's edit of an entity.
type Change struct {
	Device string
	Clock  Clock
	TS     time.Time // the device's wall clock when it made the edit
	Op     Op
	Doc    json.RawMessage
}

// Entry kinds. v, r and t "cover" their path: they hide what causally or
// by timestamp earlier writes put anywhere below it.
const (
	kindValue  = "v" // a scalar or array at the path
	kindObject = "o" // the path is an object, merged with what is there
	kindReset  = "r" // the path is an object holding exactly the write's keys (a full document)
	kindTomb   = "t" // the path (and everything below) is deleted
)

func covers(kind string) bool { return kind != kindObject }

// Entry is one path a write touched.
type Entry struct {
	Path  []string        `json:"p"`
	Kind  string          `json:"k"`
	Value json.RawMessage `json:"v,omitempty"`
}

// Write is what is left of one change inside a state: its stamp and the
// entries no causally later write has superseded yet.
type Write struct {
	Clock   Clock   `json:"c"`
	TS      int64   `json:"ts"` // Unix microseconds
	Device  string  `json:"d"`
	Entries []Entry `json:"e"`
}

// wireWrite is how a write is stored in sync_state.merge_state. Entries are
// front-coded: each keeps only the path segments after those it shares
// with the entry before it ("s"), so a chain of nested keys costs one
// segment per level instead of the whole path each time (a document nested
// d deep stored d² segments). A stored state without "s" reads as before.
type wireWrite struct {
	Clock   Clock       `json:"c"`
	TS      int64       `json:"ts"`
	Device  string      `json:"d"`
	Entries []wireEntry `json:"e"`
}

type wireEntry struct {
	Shared int             `json:"s,omitempty"`
	Path   []string        `json:"p"`
	Kind   string          `json:"k"`
	Value  json.RawMessage `json:"v,omitempty"`
}

// MarshalJSON writes the front-coded form (appendWrite).
func (w Write) MarshalJSON() ([]byte, error) { return appendWrite(nil, &w), nil }

// UnmarshalJSON reads the front-coded form (and the older one, full paths).
// A path that extends the one before it shares its memory, so reading a
// state costs what storing it did.
func (w *Write) UnmarshalJSON(b []byte) error {
	var ww wireWrite
	if err := json.Unmarshal(b, &ww); err != nil {
		return err
	}
	*w = Write{Clock: ww.Clock, TS: ww.TS, Device: ww.Device, Entries: make([]Entry, len(ww.Entries))}
	arena := make([]string, 0, 8) // non-nil: an empty path reads as [], as it was written
	prevStart, prevEnd := 0, 0    // the previous path is arena[prevStart:prevEnd]
	for i, e := range ww.Entries {
		if e.Shared < 0 || e.Shared > prevEnd-prevStart {
			return fmt.Errorf("merge state: entry %d shares %d path segments, the one before has %d", i, e.Shared, prevEnd-prevStart)
		}
		if e.Shared == prevEnd-prevStart && prevEnd == len(arena) {
			arena = append(arena, e.Path...)
		} else {
			start := len(arena)
			arena = append(arena, arena[prevStart:prevStart+e.Shared]...)
			arena = append(arena, e.Path...)
			prevStart = start
		}
		prevEnd = len(arena)
		// Capacity capped: appending to one entry's path never writes into another's.
		w.Entries[i] = Entry{Path: arena[prevStart:prevEnd:prevEnd], Kind: e.Kind, Value: e.Value}
	}
	return nil
}

// State is an entity's replicated state: a join-semilattice. Adding writes
// is commutative, associative and idempotent, so the state (and the
// document rendered from it) depends only on the set of changes folded in.
type State struct {
	Clock  Clock   `json:"clock"`
	Writes []Write `json:"writes"`
}

// ErrInvalidChange wraps every reason a change cannot be folded in.
var ErrInvalidChange = errors.New("invalid change")

// Bounds of one change's document. Each object key becomes an entry holding
// its whole path, so a document nested d levels deep costs d² in memory; a
// 9,000-level patch took 14 s and 1.9 GB to reconcile. Past these bounds a
// change is invalid (its own outcome and error), never a stalled batch.
const (
	MaxDocBytes = 1 << 20 // 1 MiB of JSON
	MaxDepth    = 32      // objects and arrays nested in one another
)

// NewWrite turns a change into the write it contributes under strat. Under
// lww and manual every change is taken as a whole document (a patch's
// object is the new document); under field-lww a patch touches only its keys.
func NewWrite(c Change, strat Strategy) (Write, error) {
	if c.Device == "" {
		return Write{}, fmt.Errorf("%w: empty device id", ErrInvalidChange)
	}
	if c.Clock[c.Device] == 0 {
		cj, _ := json.Marshal(c.Clock)
		return Write{}, fmt.Errorf("%w: clock %s has no entry for its own device %q", ErrInvalidChange, cj, c.Device)
	}
	w := Write{Clock: c.Clock.Copy(), TS: c.TS.UnixMicro(), Device: c.Device}
	switch c.Op {
	case OpDelete:
		w.Entries = []Entry{{Path: []string{}, Kind: kindTomb}}
		return w, nil
	case OpPut, OpPatch:
	default:
		return Write{}, fmt.Errorf("%w: unknown op %q (use patch, put or delete)", ErrInvalidChange, c.Op)
	}
	if len(c.Doc) > MaxDocBytes {
		return Write{}, fmt.Errorf("%w: document of %d bytes, more than the %d a change may hold", ErrInvalidChange, len(c.Doc), MaxDocBytes)
	}
	if depth := jsonDepth(c.Doc); depth > MaxDepth {
		return Write{}, fmt.Errorf("%w: document nested %d levels deep, more than the %d a change may hold", ErrInvalidChange, depth, MaxDepth)
	}
	root := kindObject
	if c.Op == OpPut || strat != FieldLWW {
		root = kindReset
	}
	w.Entries = append(w.Entries, Entry{Path: []string{}, Kind: root})
	if es, ok := fastWalk(w.Entries, c.Doc); ok {
		w.Entries = es
		return w, nil
	}
	d := json.NewDecoder(bytes.NewReader(c.Doc))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil || obj == nil {
		return Write{}, fmt.Errorf("%w: document must be a JSON object", ErrInvalidChange)
	}
	if _, err := d.Token(); err != io.EOF {
		return Write{}, fmt.Errorf("%w: document has data after its object", ErrInvalidChange)
	}
	var err error
	w.Entries, err = walk(w.Entries, nil, obj)
	return w, err
}

// jsonDepth is the deepest nesting of objects and arrays in b (which need
// not be valid: the decoder judges that), found without decoding.
func jsonDepth(b []byte) int {
	depth, deepest, inStr := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

func walk(out []Entry, path []string, obj map[string]any) ([]Entry, error) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := append(append(make([]string, 0, len(path)+1), path...), k)
		switch v := obj[k].(type) {
		case nil:
			out = append(out, Entry{Path: p, Kind: kindTomb})
		case map[string]any:
			out = append(out, Entry{Path: p, Kind: kindObject})
			var err error
			if out, err = walk(out, p, v); err != nil {
				return nil, err
			}
		default:
			b, err := leafJSON(v)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrInvalidChange, strings.Join(p, "."), err)
			}
			out = append(out, Entry{Path: p, Kind: kindValue, Value: b})
		}
	}
	return out, nil
}

// leafJSON encodes a decoded value exactly as json.Marshal does (stored
// values are compared byte for byte), without its reflection for numbers,
// booleans and strings that need no escaping, the common leaves.
func leafJSON(v any) ([]byte, error) {
	switch v := v.(type) {
	case json.Number: // from the decoder: valid, so Marshal writes it as is
		return []byte(v), nil
	case bool:
		return strconv.AppendBool(nil, v), nil
	case string:
		plain := true
		for i := 0; i < len(v) && plain; i++ {
			c := v[i]
			plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
		}
		if plain {
			return append(append(append(make([]byte, 0, len(v)+2), '"'), v...), '"'), nil
		}
	}
	return json.Marshal(v)
}

// Apply folds change c into s and says what became of it.
func (s *State) Apply(c Change, strat Strategy) (Outcome, error) {
	w, err := NewWrite(c, strat)
	if err != nil {
		return Invalid, err
	}
	return s.ApplyWrite(w, strat), nil
}

// ApplyWrite folds a write made by NewWrite into s.
func (s *State) ApplyWrite(w Write, strat Strategy) Outcome {
	dominated := s.Clock.LessEq(w.Clock)
	kept := s.add(w)
	s.Clock.mergeIn(w.Clock)
	switch {
	case !kept:
		return Discarded
	case strat == Manual && len(s.Writes) > 1:
		return Conflicted
	case dominated:
		return Applied
	}
	return Merged
}

// Join folds every write of o into s: the state two reconcilers would reach
// had they split the changes between them.
func (s *State) Join(o *State) {
	for _, w := range o.Writes {
		s.add(cloneWrite(w))
	}
	s.Clock = s.Clock.Merge(o.Clock)
}

// dominates reports whether entry a of write wa hides entry b of write wb
// wherever b could matter, given that wa is causally later than wb (the
// callers compare the clocks once per pair of writes, not per entry): a
// sits at or above b and covers it. An object marker hides only an older
// marker at its own path, and only one that is older by timestamp too: a
// causally later marker with an earlier (skewed) wall clock must not lower
// the stamp with which the path was made an object.
func dominates(a *Entry, wa *Write, b *Entry, wb *Write) bool {
	if len(a.Path) > len(b.Path) || !isPrefix(a.Path, b.Path) {
		return false
	}
	if !covers(a.Kind) {
		if len(a.Path) != len(b.Path) || covers(b.Kind) || !writeLess(wb, wa) {
			return false
		}
	}
	return true
}

func isPrefix(p, q []string) bool {
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// add inserts w, drops whatever it supersedes, and reports whether anything
// of w itself survives. Conceptually the state is the set of (stamp, entry)
// pairs no causally later entry hides, grouped by stamp: a redelivered
// change adds pairs already there. The states it is given are always pruned
// and "hides" is transitive, so pruning against the survivors alone gives
// the same result as pruning the full history.
func (s *State) add(w Write) bool {
	// How w's clock compares with each write's, once per write: comparing
	// clocks per entry took a third of the merge's time.
	ords := make([]Order, len(s.Writes))
	var same *Write
	for j := range s.Writes {
		ords[j] = w.Clock.Compare(s.Writes[j].Clock)
		if o := &s.Writes[j]; ords[j] == Equal && sameStamp(o, &w) {
			same = o
		}
	}
	kept := w.Entries[:0:0]
	for i := range w.Entries {
		if !s.hidden(ords, &w, &w.Entries[i]) && (same == nil || !hasEntry(same, &w.Entries[i])) {
			kept = append(kept, w.Entries[i])
		}
	}
	if len(kept) == 0 {
		return false
	}
	w.Entries = kept
	out := s.Writes[:0]
	sameAt := -1
	for j, o := range s.Writes {
		if ords[j] == After { // o is causally before w
			es := o.Entries[:0]
			for k := range o.Entries {
				if !writeHides(&w, &o, &o.Entries[k]) {
					es = append(es, o.Entries[k])
				}
			}
			if len(es) == 0 {
				continue
			}
			o.Entries = es
		}
		if ords[j] == Equal && sameStamp(&o, &w) {
			sameAt = len(out)
		}
		out = append(out, o)
	}
	s.Writes = out
	if sameAt >= 0 {
		same := &s.Writes[sameAt]
		same.Entries = append(same.Entries, w.Entries...)
		sortEntries(same.Entries)
	} else {
		sortEntries(w.Entries)
		s.Writes = append(s.Writes, w)
	}
	sort.Slice(s.Writes, func(i, j int) bool { return writeLess(&s.Writes[i], &s.Writes[j]) })
	return true
}

// hidden reports whether some write of s hides entry e of write we; ords
// holds how we's clock compares with each write's.
func (s *State) hidden(ords []Order, we *Write, e *Entry) bool {
	for j := range s.Writes {
		if ords[j] == Before && writeHides(&s.Writes[j], we, e) {
			return true
		}
	}
	return false
}

// writeHides reports whether some entry of w hides entry e of we, which
// must be causally before w.
func writeHides(w *Write, we *Write, e *Entry) bool {
	for i := range w.Entries {
		if dominates(&w.Entries[i], w, e, we) {
			return true
		}
	}
	return false
}

func sameStamp(a, b *Write) bool {
	return a.TS == b.TS && a.Device == b.Device && a.Clock.Compare(b.Clock) == Equal
}

func hasEntry(w *Write, e *Entry) bool {
	for i := range w.Entries {
		if entryCmp(&w.Entries[i], e) == 0 {
			return true
		}
	}
	return false
}

func entryCmp(a, b *Entry) int {
	for i := 0; i < len(a.Path) && i < len(b.Path); i++ {
		if c := strings.Compare(a.Path[i], b.Path[i]); c != 0 {
			return c
		}
	}
	if len(a.Path) != len(b.Path) {
		return len(a.Path) - len(b.Path)
	}
	if c := strings.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	return bytes.Compare(a.Value, b.Value)
}

func sortEntries(es []Entry) {
	sort.Slice(es, func(i, j int) bool { return entryCmp(&es[i], &es[j]) < 0 })
}

// writeLess is the deterministic total order of writes: timestamp, then
// device id, then the device's own counter, then the clock. Last writer wins
// means the greatest under this order.
func writeLess(a, b *Write) bool {
	if a.TS != b.TS {
		return a.TS < b.TS
	}
	if a.Device != b.Device {
		return a.Device < b.Device
	}
	if ca, cb := a.Clock[a.Device], b.Clock[b.Device]; ca != cb {
		return ca < cb
	}
	ca, _ := json.Marshal(a.Clock)
	cb, _ := json.Marshal(b.Clock)
	return bytes.Compare(ca, cb) < 0
}

func cloneWrite(w Write) Write {
	w.Clock = w.Clock.Copy()
	w.Entries = append([]Entry(nil), w.Entries...)
	return w
}

// Siblings are the concurrent whole-document versions of a manual entity;
// more than one means it is in conflict.
func (s *State) Siblings() []Write { return s.Writes }

// cand is an entry considered at some path, with the write it came from.
type cand struct {
	w     *Write
	e     *Entry
	depth int
}

func candLess(a, b cand) bool {
	if a.w != b.w {
		return writeLess(a.w, b.w)
	}
	if a.depth != b.depth {
		return a.depth < b.depth // a write's own leaf beats its own reset above it
	}
	return entryCmp(a.e, b.e) < 0
}

type node struct {
	own      []cand
	children map[string]*node
}

// Document renders the state: nil for a deleted entity, else a JSON object.
// At every path the candidates are the entries there and the covering
// entries above it; of those no other candidate causally follows, the
// greatest (timestamp, device, counter) wins. Objects are rendered top
// down, so a child only appears under a parent that is an object.
func (s *State) Document() json.RawMessage {
	root := &node{}
	for i := range s.Writes {
		w := &s.Writes[i]
		for j := range w.Entries {
			e := &w.Entries[j]
			n := root
			for _, seg := range e.Path {
				if n.children == nil {
					n.children = map[string]*node{}
				}
				c := n.children[seg]
				if c == nil {
					c = &node{}
					n.children[seg] = c
				}
				n = c
			}
			n.own = append(n.own, cand{w: w, e: e, depth: len(e.Path)})
		}
	}
	v, ok := render(root, nil)
	if !ok {
		return nil
	}
	if _, isObj := v.(map[string]any); !isObj {
		return nil
	}
	b, _ := json.Marshal(v)
	return b
}

func render(n *node, inherited []cand) (any, bool) {
	all := append(append(make([]cand, 0, len(inherited)+len(n.own)), inherited...), n.own...)
	best := -1
	for i, c := range all {
		dominated := false
		for j := range all {
			// An object marker yields only to a later cover, never to a later marker.
			if (covers(all[j].e.Kind) || covers(c.e.Kind)) && c.w.Clock.Compare(all[j].w.Clock) == Before {
				dominated = true
				break
			}
		}
		if !dominated && (best < 0 || candLess(all[best], c)) {
			best = i
		}
	}
	// A winner inherited from above covers this path: nothing here shows.
	if best < len(inherited) {
		return nil, false
	}
	switch e := all[best].e; e.Kind {
	case kindValue:
		return e.Value, true
	case kindTomb:
		return nil, false
	}
	next := make([]cand, 0, len(all))
	for _, c := range all {
		if covers(c.e.Kind) {
			next = append(next, c)
		}
	}
	obj := map[string]any{}
	for k, child := range n.children {
		if v, ok := render(child, next); ok {
			obj[k] = v
		}
	}
	return obj, true
}
