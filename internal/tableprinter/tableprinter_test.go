package tableprinter

import (
	"strings"
	"testing"
)

// A cell's control characters are escaped on a terminal and off it: a
// memory's, a server's or a file's text cannot drive the terminal.
func TestCellsEscaped(t *testing.T) {
	for _, tty := range []bool{true, false} {
		var b strings.Builder
		p := New(&b, tty)
		p.Header("NAME", "TEXT")
		p.Row("a\x1b[2J", "line\none\ttab \u202eevil")
		if err := p.Render(); err != nil {
			t.Fatal(err)
		}
		want := "a\\x1b[2J\tline one tab \\u202eevil\n"
		if tty {
			want = "NAME      TEXT\na\\x1b[2J  line\\none\\ttab \\u202eevil\n"
		}
		if b.String() != want {
			t.Errorf("tty=%v: %q, want %q", tty, b.String(), want)
		}
	}
}
