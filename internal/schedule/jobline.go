package schedule

import (
	"fmt"
	"slices"
	"strings"
)

// JobLine renders a job's command line for people and logs: sync reconcile,
// catalog verify --source "a b.json" (not Go's [sync reconcile]).
func JobLine(argv []string) string {
	q := slices.Clone(argv)
	for i, a := range q {
		if a == "" || strings.ContainsAny(a, " \t\"'\\$`") {
			q[i] = fmt.Sprintf("%q", a)
		}
	}
	return strings.Join(q, " ")
}
