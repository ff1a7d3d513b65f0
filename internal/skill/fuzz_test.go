package skill_test

import (
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/skill"
)

func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"rank", "rank@1.2.0", "a@b@c", "@1", "Rank", "x@", "openapi-ops@2.0.0-js"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := skill.ParseRef(s)
		if err != nil {
			return
		}
		if r.String() != s {
			t.Fatalf("ParseRef(%q).String() = %q", s, r.String())
		}
		if skill.ValidateName(r.Name) != nil || strings.ContainsAny(r.Version, "@ \t\n") {
			t.Fatalf("ParseRef(%q) accepted %+v", s, r)
		}
	})
}
