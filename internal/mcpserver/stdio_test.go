package mcpserver

import (
	"bufio"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzStdioLine: any line from stdin is passed on only when the SDK can
// decode it as one message, else answered with one JSON-RPC error line;
// never a panic.
func FuzzStdioLine(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"id":1}`, `[1]`, `{`, `"x"`,
		`{"jsonrpc":"2.0","id":"a\"b","method":"x","params":{"a":[[[]]]}}`, strings.Repeat("[", 300) + strings.Repeat("]", 300)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		code, why := check(line)
		if code == 0 {
			if depth(line) > MaxDepth || !json.Valid(line) {
				t.Fatalf("%q passed", line)
			}
			return
		}
		var out strings.Builder
		(&Stdio{}).refuse(&out, line, code, why)
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct{ Code int64 }
		}
		if !strings.HasSuffix(out.String(), "\n") || strings.Count(out.String(), "\n") != 1 || json.Unmarshal([]byte(out.String()), &m) != nil ||
			m.JSONRPC != "2.0" || m.Error.Code != code {
			t.Fatalf("%q answered %q", line, out.String())
		}
	})
}

// FuzzSearchInput: memory_search's arguments are outside bytes; they decode
// or are refused, never a panic, and what decodes has a string query.
func FuzzSearchInput(f *testing.F) {
	for _, s := range []string{`{"query":"x"}`, `{"query":"x","limit":3,"mode":"text"}`, `{"limit":1e300}`, `{"query":5}`, `null`, `[]`, `{"limit":-0.5,"query":""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		in, err := searchInput(raw)
		if err != nil {
			return
		}
		if _, err := searchParams(user, in, ""); err == nil && (in.Query == "" || len(in.Query) > MaxQuery) {
			t.Fatalf("%q: accepted %+v", raw, in)
		}
	})
}

// A line over the cap is read to its end and dropped; the next lines and a
// last line without a newline are read as they are.
func TestReadLine(t *testing.T) {
	r := bufio.NewReaderSize(strings.NewReader("short\n"+strings.Repeat("x", 100)+"\nlast"), 16)
	var got []string
	for {
		line, err := readLine(r, nil, 50)
		var long *lineTooLong
		if errors.As(err, &long) {
			got = append(got, "TOO LONG")
			continue
		}
		if len(line) > 0 {
			got = append(got, string(line))
		}
		if err != nil {
			break
		}
	}
	if want := "short\n|TOO LONG|last"; strings.Join(got, "|") != want {
		t.Errorf("lines %q, want %q", strings.Join(got, "|"), want)
	}
}
