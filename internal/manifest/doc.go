// Package manifest turns tool manifests and OpenAPI documents into reviewed,
// versioned tools, and keeps their approval lifecycle in PostgreSQL.
package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/helixhq/helix/internal/textcheck"
)

// Error is a problem in an input document, located by JSON pointer and, when
// known, line and column.
type Error struct {
	Source  string
	Pointer string // RFC 6901, "" for the whole document
	Line    int
	Column  int
	Msg     string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	if e.Pointer != "" {
		fmt.Fprintf(&b, " (%s)", e.Pointer)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Warning is a finding that does not stop a tool from being built.
type Warning struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// Document is one decoded input: a JSON or YAML tree of map[string]any,
// []any, string, float64/int64, bool and nil.
type Document struct {
	Source string
	Data   []byte
	Tree   any

	pos map[string][2]int // pointer → line, column; built on first use
}

// Decode parses JSON or YAML. JSON takes the fast path of encoding/json;
// positions are only computed when an error needs them.
func Decode(source string, data []byte) (*Document, error) {
	d := &Document{Source: source, Data: data}
	// Text is refused here rather than rewritten by the decoder (U+FFFD) or
	// failing at the database (a NUL in a text column). In JSON every
	// backslash escape is checked; YAML reads a backslash literally outside
	// double quotes and refuses lone surrogates itself, so there the raw
	// bytes are checked and decoded scalars for NUL (nodeValue).
	isJSON := false
	if trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(trimmed) > 0 && trimmed[0] == '{' {
		isJSON = true
	}
	check := textcheck.CheckBytes
	if isJSON {
		check = textcheck.Check
	}
	if p := check(data); p != nil {
		return nil, &Error{Source: source, Line: p.Line, Column: p.Col, Msg: p.Msg}
	}
	if isJSON {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		err := dec.Decode(&v)
		if err == nil && dec.More() {
			err = errors.New("unexpected data after the top-level value")
		}
		if err != nil {
			return nil, d.jsonError(err)
		}
		d.Tree = normalizeJSON(v)
		return d, nil
	}
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, yamlError(source, err)
	}
	if n.Kind == 0 {
		return nil, &Error{Source: source, Msg: "empty document"}
	}
	d.pos = map[string][2]int{}
	v, err := nodeValue(&n, "", d.pos, budget(len(data)))
	if err != nil {
		return nil, &Error{Source: source, Msg: err.Error()}
	}
	d.Tree = v
	return d, nil
}

func (d *Document) jsonError(err error) error {
	e := &Error{Source: d.Source, Msg: "invalid JSON: " + err.Error()}
	off := int64(-1)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		e.Msg = "invalid JSON: the document ends early (truncated?)"
		off = int64(len(d.Data))
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off >= 0 {
		e.Line, e.Column = lineCol(d.Data, off)
	}
	return e
}

func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// yamlError turns yaml.v3's "yaml: line N: msg" into a located Error.
func yamlError(source string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{Source: source, Msg: "invalid YAML: " + msg}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.Index(rest, ":"); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				e.Line = n // yaml.v3 reports no column for syntax errors
				e.Msg = "invalid YAML: " + strings.TrimSpace(rest[i+1:])
			}
		}
	}
	return e
}

// Locate fills in the line and column of pointer, or of its nearest located parent.
func (d *Document) Locate(pointer string) (int, int) {
	if d.pos == nil {
		d.pos = map[string][2]int{}
		var n yaml.Node
		// JSON is YAML; this slow path runs only when reporting an error.
		if yaml.Unmarshal(d.Data, &n) == nil {
			_, _ = nodeValue(&n, "", d.pos, budget(len(d.Data)))
		}
	}
	for p := pointer; ; {
		if lc, ok := d.pos[p]; ok {
			return lc[0], lc[1]
		}
		if p == "" {
			return 0, 0
		}
		p = p[:strings.LastIndex(p, "/")]
	}
}

// Errorf builds an Error located at pointer.
func (d *Document) Errorf(pointer, format string, args ...any) *Error {
	l, c := d.Locate(pointer)
	return &Error{Source: d.Source, Pointer: pointer, Line: l, Column: c, Msg: fmt.Sprintf(format, args...)}
}

// Escape is one RFC 6901 reference token.
func Escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// Unescape is the text of one RFC 6901 reference token.
func Unescape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// budget bounds the values a document of size bytes may expand to: aliases
// can make a small YAML file expand exponentially ("billion laughs").
func budget(size int) *int {
	n := 1_000_000 + size
	return &n
}

// nodeValue converts a YAML node to plain values, recording positions.
// left is how many more values the document may produce.
func nodeValue(n *yaml.Node, ptr string, pos map[string][2]int, left *int) (any, error) {
	if *left--; *left < 0 {
		return nil, fmt.Errorf("line %d:%d: the document expands to too many values (YAML aliases?)", n.Line, n.Column)
	}
	if pos != nil {
		pos[ptr] = [2]int{n.Line, n.Column}
	}
	if strings.ContainsRune(n.Value, 0) {
		return nil, fmt.Errorf("line %d:%d: a NUL character (\\0, \\x00 or \\u0000): PostgreSQL text cannot store it", n.Line, n.Column)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return nodeValue(n.Content[0], ptr, pos, left)
	case yaml.AliasNode:
		return nodeValue(n.Alias, ptr, pos, left)
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := nodeValue(c, ptr+"/"+strconv.Itoa(i), pos, left)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			p := ptr + "/" + Escape(k.Value)
			if strings.ContainsRune(k.Value, 0) {
				return nil, fmt.Errorf("line %d:%d: a NUL character (\\0, \\x00 or \\u0000) in a key: PostgreSQL text cannot store it", k.Line, k.Column)
			}
			if _, dup := out[k.Value]; dup {
				return nil, fmt.Errorf("line %d:%d: duplicate key %q", k.Line, k.Column, k.Value)
			}
			v, err := nodeValue(n.Content[i+1], p, pos, left)
			if err != nil {
				return nil, err
			}
			if pos != nil {
				pos[p] = [2]int{k.Line, k.Column}
			}
			out[k.Value] = v
		}
		return out, nil
	}
	var v any
	switch n.Tag {
	case "!!str", "!!binary", "!!timestamp":
		return n.Value, nil
	case "!!null":
		return nil, nil
	}
	if err := n.Decode(&v); err != nil {
		return nil, fmt.Errorf("line %d:%d: %v", n.Line, n.Column, err)
	}
	switch x := v.(type) {
	case int:
		return int64(x), nil
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), nil
		}
		return float64(x), nil
	}
	return v, nil
}

// normalizeJSON turns json.Number into int64 or float64.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeJSON(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// RefTokens splits a local reference ("#/a/b~1c") into the reference
// tokens of its JSON pointer (a, b/c). RFC 6901 §6: a pointer in a URI
// fragment is percent-encoded ("#/components/schemas/%7Bid%7D"), and is
// decoded before it is split.
func RefTokens(ref string) ([]string, bool) {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	if strings.Contains(p, "%") {
		dec, err := url.PathUnescape(p)
		if err != nil {
			return nil, false
		}
		p = dec
	}
	if p == "" {
		return nil, true
	}
	if !strings.HasPrefix(p, "/") {
		return nil, false
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = Unescape(t)
	}
	return toks, true
}

// Resolve follows a local JSON pointer ("#/a/b") inside tree.
func Resolve(tree any, ref string) (any, bool) {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	cur := tree
	if p == "" {
		return cur, true
	}
	toks, ok := RefTokens(ref)
	if !ok {
		return nil, false
	}
	for _, tok := range toks {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
