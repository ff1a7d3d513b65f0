package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// FuzzActsFor: a job line from outside (schedule add, or a row written
// through the API) never panics the owner check, and a line it accepts names
// the owner once and never --all-users.
func FuzzActsFor(f *testing.F) {
	u := uuid.MustParse("a0000000-0000-4000-8000-0000000000a1")
	for _, s := range []string{
		"sync reconcile --user-id " + u.String(),
		"synthesize --all-users",
		"skill exec x --user-id=" + u.String() + " --user-id " + u.String(),
		"skill exec x --user-id",
		"decay run --all-users=true --user-id " + u.String(),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		argv := strings.Fields(line)
		if ActsFor(argv, u) != nil {
			return
		}
		n := 0
		for i, a := range argv {
			if strings.HasPrefix(a, "--all-users") {
				t.Fatalf("accepted %q with --all-users", line)
			}
			if a == "--user-id" || strings.HasPrefix(a, "--user-id=") {
				n++
				if a == "--user-id" && (i+1 >= len(argv) || uuid.MustParse(argv[i+1]) != u) {
					t.Fatalf("accepted %q naming another user", line)
				}
			}
		}
		if n == 0 {
			t.Fatalf("accepted %q without --user-id", line)
		}
	})
}

// FuzzOnceSpec: a one-shot spec parses back to its instant, and any other
// text after @at is an error, never a panic.
func FuzzOnceSpec(f *testing.F) {
	f.Add("@at 2026-12-24T09:00:00+01:00")
	f.Add("@at tomorrow")
	f.Add("@at ")
	f.Fuzz(func(t *testing.T, spec string) {
		s, isOnce, err := parseOnce(spec)
		if !isOnce || err != nil {
			return
		}
		at := time.Time(s.(once))
		if !s.Next(at.Add(-time.Second)).Equal(at) || !s.Next(at).IsZero() {
			t.Fatalf("%q: next instants wrong", spec)
		}
	})
}
