package manifest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// NotECMAError is a pattern written for another regular-expression dialect
// (Java, POSIX, PCRE) that ECMA-262 with the u flag, as JSON Schema validators
// use it, refuses.
type NotECMAError struct {
	Pattern string
	Reason  string
}

func (e *NotECMAError) Error() string {
	return fmt.Sprintf("%q is not an ECMA-262 regular expression: %s", e.Pattern, e.Reason)
}

// ecmaTranslate rewrites an ECMA-262 pattern (u flag) for regexp2's
// ECMAScript mode: the Unicode property escapes regexp2 does not know
// (\p{ASCII}, \p{Any}, \p{Alphabetic}, \p{gc=Lu}, \p{Script=Greek}, …)
// become the ranges of Go's unicode tables. It refuses what ECMA-262 refuses
// but regexp2 would read with another dialect's meaning: an escaped letter
// with no meaning in ECMA-262 (Java's \A, \z, \Q…\E, \h), a stray ']' (left
// by POSIX [[:alpha:]] and Java's [a&&[^b]]) and Java's \p{Alnum}.
func ecmaTranslate(s string) (string, error) {
	var out strings.Builder
	inClass := false
	changed := false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '[' && !inClass:
			inClass = true
			out.WriteByte(c)
			i++
			if i < len(s) && s[i] == '^' {
				out.WriteByte('^')
				i++
			}
			if i < len(s) && s[i] == ']' { // [] and [^]: ECMA's empty and full classes
				inClass = false
				out.WriteByte(']')
				i++
			}
			continue
		case c == ']' && inClass:
			inClass = false
		case c == ']':
			return "", &NotECMAError{s, "an unmatched ']' (a POSIX [[:class:]] or a Java class intersection [a&&[^b]]?)"}
		case c == '\\':
			if i+1 >= len(s) {
				return "", &NotECMAError{s, "it ends with a lone backslash"}
			}
			e := s[i+1]
			if e == 'p' || e == 'P' {
				end := strings.IndexByte(s[i:], '}')
				if i+2 >= len(s) || s[i+2] != '{' || end < 0 {
					return "", &NotECMAError{s, `\` + string(e) + " without {name}"}
				}
				name := s[i+3 : i+end]
				rep, err := propertyEscape(name, e == 'P', inClass)
				if err != nil {
					return "", &NotECMAError{s, err.Error()}
				}
				if rep != s[i:i+end+1] {
					changed = true
				}
				out.WriteString(rep)
				i += end + 1
				continue
			}
			if isLetter(e) && !strings.ContainsRune("dDwWsSbBfnrtvcxukp", rune(e)) {
				return "", &NotECMAError{s, `\` + string(e) + " is not an escape of ECMA-262 (another dialect's?)"}
			}
			out.WriteString(s[i : i+2])
			i += 2
			continue
		}
		out.WriteByte(c)
		i++
	}
	if !changed {
		return s, nil
	}
	return out.String(), nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// propertyEscape is \p{name} (\P{name} when neg) as regexp2 will read it,
// inside a class or not.
func propertyEscape(name string, neg, inClass bool) (string, error) {
	esc := `\p{`
	if neg {
		esc = `\P{`
	}
	if _, err := regexp2.Compile(esc+name+`}`, regexp2.ECMAScript|regexp2.Unicode); err == nil {
		return esc + name + `}`, nil
	}
	tables, err := propertyTables(name)
	if err != nil {
		return "", err
	}
	ranges := mergeRanges(tables)
	if neg {
		ranges = complement(ranges)
	}
	var b strings.Builder
	if !inClass {
		b.WriteByte('[')
	}
	for _, r := range ranges {
		writeRune(&b, r[0])
		if r[1] != r[0] {
			b.WriteByte('-')
			writeRune(&b, r[1])
		}
	}
	if !inClass {
		b.WriteByte(']')
	}
	if len(ranges) == 0 {
		if inClass {
			return "", nil
		}
		return `[^\s\S]`, nil // matches nothing, as \P{Any} does
	}
	return b.String(), nil
}

func writeRune(b *strings.Builder, r rune) {
	fmt.Fprintf(b, `\u{%X}`, r)
}

// propertyTables resolves an ECMA-262 property name (or name=value) that
// regexp2 does not know.
func propertyTables(name string) ([]*unicode.RangeTable, error) {
	prop, value, hasValue := strings.Cut(name, "=")
	if hasValue {
		switch prop {
		case "General_Category", "gc":
			if t, ok := unicode.Categories[value]; ok {
				return []*unicode.RangeTable{t}, nil
			}
			if short, ok := longCategory[value]; ok {
				return []*unicode.RangeTable{unicode.Categories[short]}, nil
			}
		case "Script", "sc":
			if t, ok := unicode.Scripts[value]; ok {
				return []*unicode.RangeTable{t}, nil
			}
		}
		return nil, fmt.Errorf(`\p{%s} is not a property this engine knows`, name)
	}
	switch name {
	case "ASCII":
		return []*unicode.RangeTable{{R16: []unicode.Range16{{Lo: 0, Hi: 0x7f, Stride: 1}}}}, nil
	case "Any":
		return []*unicode.RangeTable{{R16: []unicode.Range16{{Lo: 0, Hi: 0xffff, Stride: 1}}, R32: []unicode.Range32{{Lo: 0x10000, Hi: unicode.MaxRune, Stride: 1}}}}, nil
	case "Assigned":
		var ts []*unicode.RangeTable
		for _, t := range unicode.Categories {
			ts = append(ts, t)
		}
		return ts, nil
	case "Alphabetic", "Alpha":
		return []*unicode.RangeTable{unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo, unicode.Nl, unicode.Other_Alphabetic}, nil
	case "Lowercase", "Lower":
		return []*unicode.RangeTable{unicode.Ll, unicode.Other_Lowercase}, nil
	case "Uppercase", "Upper":
		return []*unicode.RangeTable{unicode.Lu, unicode.Other_Uppercase}, nil
	}
	if t, ok := unicode.Properties[name]; ok {
		return []*unicode.RangeTable{t}, nil
	}
	if t, ok := unicode.Categories[name]; ok {
		return []*unicode.RangeTable{t}, nil
	}
	return nil, fmt.Errorf(`\p{%s} is not a Unicode property of ECMA-262 (a Java or POSIX class?)`, name)
}

var longCategory = map[string]string{
	"Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll", "Titlecase_Letter": "Lt",
	"Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc",
	"Enclosing_Mark": "Me", "Number": "N", "Decimal_Number": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
	"Punctuation": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd", "Open_Punctuation": "Ps",
	"Close_Punctuation": "Pe", "Initial_Punctuation": "Pi", "Final_Punctuation": "Pf", "Other_Punctuation": "Po",
	"Symbol": "S", "Math_Symbol": "Sm", "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So",
	"Separator": "Z", "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp",
	"Other": "C", "Control": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co",
}

// mergeRanges is the sorted, merged union of the tables' code points.
func mergeRanges(ts []*unicode.RangeTable) [][2]rune {
	var rs [][2]rune
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			rs = append(rs, [2]rune{lo, hi})
			return
		}
		for r := lo; r <= hi; r += stride {
			rs = append(rs, [2]rune{r, r})
		}
	}
	for _, t := range ts {
		if t == nil {
			continue
		}
		for _, r := range t.R16 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range t.R32 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	sortRanges(rs)
	var out [][2]rune
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

func sortRanges(rs [][2]rune) {
	slices.SortFunc(rs, func(a, b [2]rune) int { return cmp.Compare(a[0], b[0]) })
}

// complement is every code point (surrogates excluded) not in rs.
func complement(rs [][2]rune) [][2]rune {
	var out [][2]rune
	next := rune(0)
	for _, r := range rs {
		if r[0] > next {
			out = append(out, [2]rune{next, r[0] - 1})
		}
		next = r[1] + 1
	}
	if next <= utf8.MaxRune {
		out = append(out, [2]rune{next, utf8.MaxRune})
	}
	return out
}
