package textcheck

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	cases := []struct {
		in        string
		line, col int
		msg       string // "" = no problem
	}{
		{`{"content":"plain é ✓ 😀"}`, 0, 0, ""},
		{`{"content":"pair \ud83d\ude00"}`, 0, 0, ""},
		{`{"content":"escaped backslash \\u0000 is text"}`, 0, 0, ""},
		{`{"content":"C:\\x00"}`, 0, 0, ""},
		{"{\"a\":1}\n{\"content\":\"nul \\u0000\"}", 2, 17, `\u0000 is a NUL`},
		{"{\"content\":\"lone \\ud800 x\"}", 1, 18, "lone UTF-16 high surrogate"},
		{"{\"content\":\"lone \\udc00\"}", 1, 18, "lone UTF-16 low surrogate"},
		{"{\"content\":\"high then high \\ud800\\ud800\"}", 1, 28, "high surrogate"},
		{"a: \"x\\0y\"", 1, 6, `\0 is a NUL`},
		{"a: \"x\\x00y\"", 1, 6, `\x00 is a NUL`},
		{"{\"content\":\"bad \xff\"}", 1, 17, "invalid UTF-8"},
		{"{\"content\":\"raw \x00\"}", 1, 17, "NUL byte"},
	}
	for _, c := range cases {
		p := Check([]byte(c.in))
		if c.msg == "" {
			if p != nil {
				t.Errorf("%q: unexpected %v", c.in, p)
			}
			continue
		}
		if p == nil || p.Line != c.line || p.Col != c.col || !strings.Contains(p.Msg, c.msg) {
			t.Errorf("%q: got %v, want line %d col %d %q", c.in, p, c.line, c.col, c.msg)
		}
	}
}

// FuzzCheck: whatever Check accepts, encoding/json decodes without
// rewriting any string to U+FFFD that was not U+FFFD in the input, and
// without a NUL.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":"\ud800\udc00"}`, `"\u0000"`, `"\\u0000"`, "\"\xff\"", `"\udc00"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if Check(b) != nil {
			return
		}
		var s string
		if json.Unmarshal(b, &s) != nil {
			return
		}
		if strings.ContainsRune(s, 0) {
			t.Fatalf("%q passed the check but decodes to a NUL", b)
		}
		if strings.Count(s, "\ufffd") > strings.Count(string(b), "\ufffd")+strings.Count(strings.ToLower(string(b)), `\ufffd`) {
			t.Fatalf("%q passed the check but decoding rewrote it to %q", b, s)
		}
	})
}
