// Package textcheck finds text that PostgreSQL cannot store or that a JSON
// or YAML decoder would silently rewrite, so that input is refused naming the
// place instead of failing at the database or being altered.
package textcheck

import (
	"fmt"
	"unicode/utf8"
)

// Problem is the first bad spot of a document. Line and Col count from 1
// (Col in bytes); Offset is the byte offset from 0.
type Problem struct {
	Offset, Line, Col int
	Msg               string
}

func (p *Problem) Error() string { return fmt.Sprintf("line %d, column %d: %s", p.Line, p.Col, p.Msg) }

// Check returns the first of: a NUL byte, a byte sequence that is not UTF-8,
// or an escape (JSON \u, YAML \u, \0, \x00) that decodes to NUL or to a lone
// UTF-16 surrogate. Decoders turn the last two into U+FFFD, and PostgreSQL
// text holds no NUL: both would change or lose the user's text.
//
// Escapes are recognised wherever a backslash appears (an escaped backslash
// is skipped), which is exact for JSON and for YAML's double-quoted scalars.
func Check(b []byte) *Problem { return check(b, true) }

// CheckBytes is Check without escapes: NUL bytes and invalid UTF-8 only, for
// formats where a backslash may be literal text (YAML outside double quotes).
func CheckBytes(b []byte) *Problem { return check(b, false) }

func check(b []byte, escapes bool) *Problem {
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0:
			return at(b, i, "NUL byte: PostgreSQL text cannot store it")
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				return at(b, i, fmt.Sprintf("invalid UTF-8 (byte %#02x): save the file as UTF-8", c))
			}
			i += n
			continue
		case escapes && c == '\\' && i+1 < len(b):
			switch b[i+1] {
			case '\\':
				i += 2
				continue
			case '0':
				return at(b, i, `escape \0 is a NUL character: PostgreSQL text cannot store it`)
			case 'x':
				if i+3 < len(b) && b[i+2] == '0' && b[i+3] == '0' {
					return at(b, i, `escape \x00 is a NUL character: PostgreSQL text cannot store it`)
				}
			case 'u':
				v, ok := hex4(b, i+2)
				if !ok {
					break
				}
				switch {
				case v == 0:
					return at(b, i, `escape \u0000 is a NUL character: PostgreSQL text cannot store it`)
				case v >= 0xDC00 && v <= 0xDFFF:
					return at(b, i, fmt.Sprintf(`escape \u%04x is a lone UTF-16 low surrogate: it encodes no character`, v))
				case v >= 0xD800 && v <= 0xDBFF:
					lo, ok := -1, false
					if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
						lo, ok = hex4(b, i+8)
					}
					if !ok || lo < 0xDC00 || lo > 0xDFFF {
						return at(b, i, fmt.Sprintf(`escape \u%04x is a lone UTF-16 high surrogate: it encodes no character`, v))
					}
					i += 12
					continue
				}
				i += 6
				continue
			}
		}
		i++
	}
	return nil
}

func hex4(b []byte, i int) (int, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	v := 0
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

func at(b []byte, off int, msg string) *Problem {
	line, col := 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &Problem{Offset: off, Line: line, Col: col, Msg: msg}
}
