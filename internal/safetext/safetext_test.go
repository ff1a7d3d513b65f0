package safetext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain é ✓ 😀":            "plain é ✓ 😀",
		"\x1b[2J\x1b[HAPPROVED":  `\x1b[2J\x1b[HAPPROVED`,
		"two\nlines\tand\rcr":    `two\nlines\tand\rcr`,
		"bell\a del\x7f nul\x00": `bell\x07 del\x7f nul\x00`,
		"c1 \u009b31m":           `c1 \u009b31m`,
		"bidi \u202eevil\u2066":  `bidi \u202eevil\u2066`,
		"bad utf8 \xff\xfe":      `bad utf8 \xff\xfe`,
		`a backslash \x1b stays`: `a backslash \x1b stays`,
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Text("a\n\tb\x1b[31m"); got != "a\n\tb\\x1b[31m" {
		t.Errorf("Text kept %q", got)
	}
}

// FuzzLine: whatever comes in, what goes out has no control character, no
// bidirectional control and is UTF-8.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]0;title\a", "\u202e", "\xff", "a\nb", "\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Line(s), Text(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%q: not UTF-8: %q", s, out)
			}
			for _, r := range out {
				if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || bad(r) {
					t.Fatalf("%q: %q holds %U", s, out, r)
				}
			}
		}
		if strings.ContainsAny(Line(s), "\n\t") {
			t.Fatalf("Line(%q) holds a newline or tab", s)
		}
	})
}
