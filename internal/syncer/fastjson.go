package syncer

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Reading a change cost the reconciler more than merging it: decoding each
// document into map[string]any (through a json.Decoder of its own) and each
// clock by reflection made most of the client's allocations, and the
// garbage collector's share of its CPU is what two reconcilers on a
// saturated host lose to each other. The common shapes are read here
// straight from the bytes; anything else (escapes, non-ASCII keys,
// duplicate keys, objects inside arrays) goes the encoding/json way as
// before, and FuzzFastWalk and FuzzParseClock hold both ways to the same
// result. Merge states are written here too (appendState).

// parseClock reads a clock: a JSON object of device ids to counters.
func parseClock(b []byte) (Clock, error) {
	if c, ok := fastClock(b); ok {
		return c, nil
	}
	var c Clock
	err := json.Unmarshal(b, &c)
	return c, err
}

// fastClock reads {"dev": n, ...} with plain keys and counters that are
// plain non-negative integers; ok is false for anything else.
func fastClock(b []byte) (Clock, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	c := make(Clock, 4)
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return c, skipSpace(b, i+1) == len(b)
	}
	for {
		ks, ke, ok := plainString(b, i)
		if !ok {
			return nil, false
		}
		i = skipSpace(b, ke+1)
		if i >= len(b) || b[i] != ':' {
			return nil, false
		}
		i = skipSpace(b, i+1)
		start := i
		var n uint64
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			d := uint64(b[i] - '0')
			if n > (1<<64-1-d)/10 {
				return nil, false // past uint64: encoding/json's error
			}
			n = n*10 + d
			i++
		}
		if i == start || b[start] == '0' && i-start > 1 {
			return nil, false
		}
		if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
			return nil, false
		}
		k := string(b[ks:ke])
		if _, dup := c[k]; dup {
			return nil, false
		}
		c[k] = n
		i = skipSpace(b, i)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return c, skipSpace(b, i+1) == len(b)
		default:
			return nil, false
		}
	}
}

// plainString finds the string starting at b[i] when it has no escapes and
// only printable ASCII (what encoding/json reads and writes unchanged but
// for <, > and &, which it escapes): its content is b[s:e] and b[e] the
// closing quote.
func plainString(b []byte, i int) (s, e int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return i + 1, j, true
		case c < 0x20 || c >= 0x7f || c == '\\' || c == '<' || c == '>' || c == '&':
			return 0, 0, false
		}
	}
	return 0, 0, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// member is one key of an object and where its value lies.
type member struct {
	key        string
	start, end int
}

// fastWalk appends the entries of the JSON object doc, as walk does for
// its decoded form; ok is false when doc is not valid JSON or has a shape
// left to encoding/json.
func fastWalk(out []Entry, doc []byte) ([]Entry, bool) {
	if !json.Valid(doc) {
		return nil, false
	}
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return nil, false
	}
	return walkObject(out, nil, doc, i)
}

// walkObject walks the object at doc[i] (valid JSON) under path.
func walkObject(out []Entry, path []string, doc []byte, i int) ([]Entry, bool) {
	var ms []member
	i = skipSpace(doc, i+1)
	for i < len(doc) && doc[i] != '}' {
		ks, ke, ok := plainString(doc, i)
		if !ok {
			return nil, false
		}
		i = skipSpace(doc, ke+1) + 1 // past ':'
		start := skipSpace(doc, i)
		end := skipValue(doc, start)
		ms = append(ms, member{key: string(doc[ks:ke]), start: start, end: end})
		i = skipSpace(doc, end)
		if i < len(doc) && doc[i] == ',' {
			i = skipSpace(doc, i+1)
		}
	}
	slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
	for j := 1; j < len(ms); j++ {
		if ms[j].key == ms[j-1].key {
			return nil, false // the last one wins: left to encoding/json
		}
	}
	for _, m := range ms {
		p := append(append(make([]string, 0, len(path)+1), path...), m.key)
		v := doc[m.start:m.end:m.end] // shares the document's bytes, never written to
		switch v[0] {
		case 'n':
			out = append(out, Entry{Path: p, Kind: kindTomb})
		case '{':
			out = append(out, Entry{Path: p, Kind: kindObject})
			var ok bool
			if out, ok = walkObject(out, p, doc, m.start); !ok {
				return nil, false
			}
		case '"':
			if _, _, ok := plainString(v, 0); !ok {
				return nil, false
			}
			out = append(out, Entry{Path: p, Kind: kindValue, Value: v})
		case '[':
			a, ok := compactArray(v)
			if !ok {
				return nil, false
			}
			out = append(out, Entry{Path: p, Kind: kindValue, Value: a})
		default: // numbers as written (the decoder's json.Number), true, false
			out = append(out, Entry{Path: p, Kind: kindValue, Value: v})
		}
	}
	return out, true
}

// compactArray is the valid JSON array v as json.Marshal writes its decoded
// form, when it holds no objects (whose keys Marshal sorts) and only plain
// strings: v without the spaces between its elements.
func compactArray(v []byte) ([]byte, bool) {
	var out []byte // nil while v needs no change
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '{':
			return nil, false
		case '"':
			_, e, ok := plainString(v, i)
			if !ok {
				return nil, false
			}
			if out != nil {
				out = append(out, v[i:e+1]...)
			}
			i = e
		case ' ', '\t', '\n', '\r':
			if out == nil {
				out = append(make([]byte, 0, len(v)), v[:i]...)
			}
		default:
			if out != nil {
				out = append(out, c)
			}
		}
	}
	if out == nil {
		return v, true
	}
	return out, true
}

// skipValue returns the end of the valid JSON value starting at doc[i].
func skipValue(doc []byte, i int) int {
	switch doc[i] {
	case '"':
		for j := i + 1; j < len(doc); j++ {
			switch doc[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(doc)
	case '{', '[':
		depth := 0
		for j := i; j < len(doc); j++ {
			switch doc[j] {
			case '"':
				j = skipValue(doc, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(doc)
	}
	j := i
	for j < len(doc) && !strings.ContainsRune(" \t\n\r,}]", rune(doc[j])) {
		j++
	}
	return j
}

// appendState appends s as encoding/json's reflection wrote it before, byte
// for byte (FuzzAppendState), without that reflection: marshalling each
// batch's states took a fifth of a reconciler's CPU. Entry values are
// written as they are: NewWrite and a stored state only ever hold compact
// JSON there, which is what json.Marshal would make of them.
func appendState(b []byte, s *State) []byte {
	b = append(b, `{"clock":`...)
	b = appendClock(b, s.Clock)
	b = append(b, `,"writes":`...)
	if s.Writes == nil {
		return append(b, "null}"...)
	}
	b = append(b, '[')
	for i := range s.Writes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendWrite(b, &s.Writes[i])
	}
	return append(b, "]}"...)
}

// appendWrite writes w in the front-coded form of wireWrite: each entry's
// path keeps only the segments after those it shares with the entry before
// ("s", omitted when 0).
func appendWrite(b []byte, w *Write) []byte {
	b = append(b, `{"c":`...)
	b = appendClock(b, w.Clock)
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, w.TS, 10)
	b = append(b, `,"d":`...)
	b = appendString(b, w.Device)
	b = append(b, `,"e":[`...)
	var prev []string
	for i := range w.Entries {
		e := &w.Entries[i]
		if i > 0 {
			b = append(b, ',')
		}
		n := 0
		for n < len(prev) && n < len(e.Path) && prev[n] == e.Path[n] {
			n++
		}
		b = append(b, '{')
		if n > 0 {
			b = append(b, `"s":`...)
			b = strconv.AppendInt(b, int64(n), 10)
			b = append(b, ',')
		}
		b = append(b, `"p":[`...)
		for j, seg := range e.Path[n:] {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendString(b, seg)
		}
		b = append(b, `],"k":`...)
		b = appendString(b, e.Kind)
		if len(e.Value) > 0 {
			b = append(b, `,"v":`...)
			b = append(b, e.Value...)
		}
		b = append(b, '}')
		prev = e.Path
	}
	return append(b, "]}"...)
}

// appendClock appends c as json.Marshal writes a map: keys sorted.
func appendClock(b []byte, c Clock) []byte {
	if c == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(c)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = strconv.AppendUint(b, c[k], 10)
	}
	return append(b, '}')
}

// appendString appends s as a JSON string, escaped as encoding/json escapes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
