package manifest

import (
	"errors"
	"strings"
	"testing"
)

func TestECMATranslate(t *testing.T) {
	for _, c := range []struct {
		pattern string
		match   []string
		miss    []string
	}{
		{`^\p{ASCII}+$`, []string{"abc~\x7f"}, []string{"é", "a\u0080"}},
		{`^[\p{ASCII}é]+$`, []string{"abé"}, []string{"ü"}},
		{`^[^\P{ASCII}]+$`, []string{"ab"}, []string{"é"}},
		{`^\P{ASCII}$`, []string{"é", "😀"}, []string{"a"}},
		{`^\p{Any}$`, []string{"😀", "\x00"}, []string{""}},
		{`^\p{gc=Lu}\p{General_Category=Lowercase_Letter}$`, []string{"Ab"}, []string{"aB"}},
		{`^\p{sc=Greek}+$`, []string{"αβ"}, []string{"ab"}},
		{`^\p{Lowercase}\p{Uppercase}\p{Alpha}$`, []string{"aBª"}, []string{"aB1"}},
		{`^\p{L}\d$`, []string{"a1"}, []string{"11"}},
		{`^[\]\[]$`, []string{"]"}, []string{"a"}},
		{`^[]$`, nil, []string{"", "a"}},
		{`^[^]$`, []string{"a"}, []string{""}},
	} {
		re, err := ECMARegexp(c.pattern)
		if err != nil {
			t.Errorf("%s: %v", c.pattern, err)
			continue
		}
		if re.String() != c.pattern {
			t.Errorf("%s: String() = %s", c.pattern, re)
		}
		for _, s := range c.match {
			if !re.MatchString(s) {
				t.Errorf("%s does not match %q", c.pattern, s)
			}
		}
		for _, s := range c.miss {
			if re.MatchString(s) {
				t.Errorf("%s matches %q", c.pattern, s)
			}
		}
	}
	for _, p := range []string{`\Aabc\z`, `abc\Z`, `\Qa.b\E`, `\p{Alnum}`, `\p{Print}`, `\p{javaLowerCase}`, `[a&&[^b]]`, `[[:alpha:]]`, `\h+`, `a\`, `\p{scx=Grek}`} {
		_, err := ECMARegexp(p)
		var ne *NotECMAError
		if err == nil || !strings.Contains(err.Error(), "is not an ECMA-262 regular expression") || !errors.As(err, &ne) {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// FuzzECMATranslate: no pattern panics the translation; a pattern without
// property escapes is left as written; translating twice changes nothing.
func FuzzECMATranslate(f *testing.F) {
	for _, s := range []string{`^\p{ASCII}+$`, `[\P{ASCII}a-z]`, `\p{gc=Lu}`, `\p{Script=Greek}`, `[^\p{Any}]`, `\Aabc\z`, `[a&&[^b]]`, `^(?=.*\d)(?!x).{8,}$`, `\u{1F600}`, `[\]]`, `\p{`, `\p{}`, `\P{Any}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := ecmaTranslate(s)
		if err != nil {
			return
		}
		if !strings.Contains(s, `\p`) && !strings.Contains(s, `\P`) && out != s {
			t.Fatalf("%q rewritten to %q", s, out)
		}
		again, err := ecmaTranslate(out)
		if err != nil || again != out {
			t.Fatalf("%q → %q → %q, %v", s, out, again, err)
		}
		_, _ = ECMARegexp(s)
	})
}
