// Package safetext escapes text that came from outside (a server's
// description, a tool's output, a document's title) before it reaches a
// terminal, so that its control characters are shown, never interpreted.
package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Line is s for one line of human output: every control character (C0, DEL,
// C1, newlines and tabs too), every bidirectional override or isolate and
// every byte that is not UTF-8 is written as an escape (\x1b, \n, \u202e,
// \xff); a backslash stays a backslash. Text with none of them is returned
// as it is.
func Line(s string) string { return escape(s, false) }

// Text is Line for multi-line output: newlines and tabs are kept.
func Text(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	if clean(s, keepLines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case bad(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// bad reports the runes past ASCII that a terminal interprets or that
// reorder what is shown: C1 controls and the bidirectional controls.
func bad(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

func clean(s string, keepLines bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(keepLines && (c == '\n' || c == '\t')) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || bad(r) {
			return false
		}
		i += n
	}
	return true
}
