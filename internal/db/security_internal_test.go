package db

import (
	"strings"
	"testing"
)

func TestScoped(t *testing.T) {
	for expr, want := range map[string]bool{
		"(user_id = auth.uid())":                         true,
		"(auth.uid() = user_id)":                         true,
		"(user_id = ( SELECT auth.uid() AS uid))":        true,
		"((auth.jwt() ->> 'sub'::text))::uuid = user_id": true,
		"false":                                 true,
		"true":                                  false,
		"(auth.uid() IS NOT NULL)":              false,
		"(auth.role() = 'authenticated'::text)": false,
		"(other_user_id = auth.uid())":          false,
		"(user_id IS NOT NULL)":                 false,
		"(user_id = (current_setting('request.jwt.claim.sub'::text, true))::uuid)": true,
	} {
		if got := scoped(expr, "user_id"); got != want {
			t.Errorf("scoped(%q) = %v, want %v", expr, got, want)
		}
	}
}

// FuzzScoped: any policy expression the server prints is judged without a
// panic; one that never mentions the user's id from the JWT is never
// counted as limited to the user's rows, whatever else it says.
func FuzzScoped(f *testing.F) {
	for _, s := range []string{"(user_id = auth.uid())", "true", "(auth.uid() IS NOT NULL)", "", "((auth.jwt() ->> 'sub'))::uuid = user_id"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		got := scoped(expr, "user_id")
		e := strings.ToLower(expr)
		if got && strings.Join(strings.Fields(e), " ") != "false" && !strings.Contains(e, "auth.uid()") && !strings.Contains(e, "auth.jwt()") && !strings.Contains(e, "request.jwt") {
			t.Errorf("%q counted as scoped without the user's id", expr)
		}
	})
}
