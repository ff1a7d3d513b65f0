package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// Shared remembers the schema expansions the tools of one OpenAPI document
// share, with their JSON encoding once computed: a 10,000-operation document's tools repeat the same component
// schemas, and encoding or hashing each tool's copy again was most of an
// import's work. Keys are the maps' identities; the maps are never modified
// once shared, and the builder keeps them alive as long as the tools.
type Shared struct {
	mu   sync.RWMutex
	is   map[unsafe.Pointer]bool
	json map[unsafe.Pointer][]byte
}

// NewShared is an empty Shared.
func NewShared() *Shared {
	return &Shared{is: map[unsafe.Pointer]bool{}, json: map[unsafe.Pointer][]byte{}}
}

// ShareSchemas tells m that its schemas' parts may be among s's: its
// encoding then reuses theirs.
func (m *Manifest) ShareSchemas(s *Shared) { m.sh = s }

func mapKey(m map[string]any) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}

// Add marks every map reachable from v as shared: none of them may be
// modified afterwards. It is not safe for use beside the other methods.
func (s *Shared) Add(v any) {
	switch x := v.(type) {
	case map[string]any:
		k := mapKey(x)
		if s.is[k] {
			return
		}
		s.is[k] = true
		for _, e := range x {
			s.Add(e)
		}
	case []any:
		for _, e := range x {
			s.Add(e)
		}
	}
}

// Has says whether m was added (and s is not nil).
func (s *Shared) Has(m map[string]any) bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.is[mapKey(m)]
}

// appendJSON appends v exactly as encoding/json.Marshal would (sorted keys,
// HTML-safe strings), reusing the encodings of shared maps.
func (s *Shared) appendJSON(b []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case map[string]any:
		var k unsafe.Pointer
		if s != nil {
			k = mapKey(x)
			s.mu.RLock()
			js, ok := s.json[k]
			is := s.is[k]
			s.mu.RUnlock()
			if ok {
				return append(b, js...), nil
			}
			if !is {
				k = nil
			}
		}
		start := len(b)
		keys := make([]string, 0, len(x))
		for key := range x {
			keys = append(keys, key)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, key := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendMarshalString(b, key), ':')
			if b, err = s.appendJSON(b, x[key]); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
		if k != nil {
			s.mu.Lock()
			s.json[k] = bytes.Clone(b[start:])
			s.mu.Unlock()
		}
		return b, nil
	case []any:
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = s.appendJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case string:
		return appendMarshalString(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case nil:
		return append(b, "null"...), nil
	}
	js, err := json.Marshal(v)
	return append(b, js...), err
}

// appendMarshalString appends s as encoding/json.Marshal quotes it.
func appendMarshalString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			js, _ := json.Marshal(s)
			return append(b, js...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// encode is json.Marshal(m), with the schemas encoded through s.
func encode(m *Manifest, s *Shared) ([]byte, error) {
	if s == nil {
		return json.Marshal(m)
	}
	// The struct's own fields through encoding/json, the schemas spliced in
	// at sentinels that no string can contain unescaped.
	c := *m
	c.Parameters = json.RawMessage(`0`)
	if m.Returns != nil {
		c.Returns = json.RawMessage(`1`)
	}
	head, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(head)+4096)
	for _, f := range []struct {
		key string
		v   any
	}{{`"parameters":0`, m.Parameters}, {`"returns":1`, m.Returns}} {
		if f.key == `"returns":1` && m.Returns == nil {
			continue
		}
		i := bytes.Index(head, []byte(f.key))
		if i < 0 {
			return nil, fmt.Errorf("encode %s: no %s", m.Name, f.key)
		}
		out = append(out, head[:i+len(f.key)-1]...)
		if out, err = s.appendJSON(out, f.v); err != nil {
			return nil, err
		}
		head = head[i+len(f.key):]
	}
	return append(out, head...), nil
}
