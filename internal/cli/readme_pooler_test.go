package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// exercisedOnEveryPath are the commands (first word) and settings that the
// path suite runs through a direct connection and PgBouncer in session and
// transaction mode, and the test that runs them.
var exercisedOnEveryPath = map[string]string{
	"migrate":              "TestJobsThroughEveryPath, TestLockedJobsThroughEveryPath",
	"doctor":               "TestJobsThroughEveryPath",
	"import":               "TestJobsThroughEveryPath",
	"synthesize":           "TestJobsThroughEveryPath, TestLockedJobsThroughEveryPath",
	"decay":                "TestJobsThroughEveryPath, TestLockedJobsThroughEveryPath",
	"embed":                "TestJobsThroughEveryPath, TestLockedJobsThroughEveryPath",
	"memory":               "TestJobsThroughEveryPath",
	"worker":               "TestJobsThroughEveryPath",
	"db.statement-timeout": "internal/db TestOpenThroughEveryPath",
	"":                     "TestLockedJobsThroughEveryPath", // a second run of a locked job
}

// TestREADMEPoolerTruth (issue 49, item 5): README says one thing about the
// transaction pooler. The table under "Connecting to Supabase" lists, per
// job, what each path does; every row is a command the path suite runs
// through all three paths, none says a job does not work through the
// transaction pooler, and no other part of README tells you to keep jobs
// or migrations off it (before: "Installing on an existing platform
// database" said the transaction pooler keeps no session state, which
// migrations' and jobs' locks need).
func TestREADMEPoolerTruth(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i := strings.Index(readme, "\n## Connecting to Supabase\n")
	if i < 0 {
		t.Fatal("README has no section Connecting to Supabase")
	}
	section := readme[i:]
	if j := strings.Index(section[1:], "\n## "); j >= 0 {
		section = section[:j+1]
	}
	const header = "| job | direct | session pooler | transaction pooler |"
	k := strings.Index(section, header)
	if k < 0 {
		t.Fatalf("Connecting to Supabase has no table %q", header)
	}
	code := regexp.MustCompile("`([^`]*)`")
	rows := 0
	for _, line := range strings.Split(section[k:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 4 {
			t.Errorf("row %q: %d cells", line, len(cells))
			continue
		}
		rows++
		first := ""
		if m := code.FindStringSubmatch(cells[0]); m != nil {
			first = strings.Fields(m[1])[0]
		}
		if _, ok := exercisedOnEveryPath[first]; !ok {
			t.Errorf("README's pooler table lists %q, which the path suite does not run through every path", strings.TrimSpace(cells[0]))
		}
		if tp := strings.TrimSpace(cells[3]); tp == "" || strings.ContainsAny(tp, "✗✘") || strings.Contains(strings.ToLower(tp), "no") && !strings.Contains(tp, "LISTEN") {
			t.Errorf("README's pooler table: %s through the transaction pooler: %q", strings.TrimSpace(cells[0]), tp)
		}
	}
	if rows < 8 {
		t.Errorf("README's pooler table has %d rows", rows)
	}
	// Anywhere in README: no sentence about the transaction pooler (or
	// Supabase's port 6543) that keeps jobs or migrations off it.
	off := regexp.MustCompile(`(?i)(do not|don't|never) (run|use)[^.]*(transaction pooler|6543)|(transaction pooler|6543)[^.]*(which (migrations|jobs)|locks need|not for (jobs|migrations)|cannot run)`)
	for _, sentence := range regexp.MustCompile(`[.!?]\s`).Split(strings.ReplaceAll(readme, "\n", " "), -1) {
		if m := off.FindString(sentence); m != "" {
			t.Errorf("README keeps jobs off the transaction pooler: %q", strings.TrimSpace(sentence))
		}
	}
}
