package cli

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/root"
	"github.com/helixhq/helix/internal/cmdtest"
)

// exitStatuses are the statuses a command's --help lists under EXIT STATUS.
func exitStatuses(t *testing.T, c *cobra.Command) []int {
	t.Helper()
	i := strings.LastIndex(c.Long, "EXIT STATUS\n")
	if i < 0 {
		return nil
	}
	var codes []int
	for _, m := range regexp.MustCompile(`(?m)^  (\d+) `).FindAllStringSubmatch(c.Long[i:], -1) {
		n, _ := strconv.Atoi(m[1])
		codes = append(codes, n)
	}
	return codes
}

// Each command's --help lists the exit statuses it can return, not one
// generic table (issue 49): services exit 0 on SIGTERM, a command without a
// lock never exits 5, one without items that can partly fail never 3. The
// statuses the job contract tests observe (matrix_test.go) are all listed.
func TestHelpExitStatusIsPerCommand(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	rootCmd := root.NewCmdRoot(f)
	const (
		db      = "0 1 2 4 130"
		locked  = "0 1 2 4 5 130"
		partial = "0 1 2 3 4 5 130"
	)
	want := map[string]string{
		"catalog fetch": locked, "catalog show": db, "catalog verify": db,
		"config show": "0 1 2",
		"decay run":   locked, "decay schedule": "0 1 2",
		"doctor": db, "embed": partial, "import memories": db,
		"jobs list": db, "jobs show": db, "jobs cancel": db, "jobs retry": db, "jobs stats": db,
		"manifest import": db, "mcp serve": "0 1 2 4",
		"memory reindex": locked, "memory search": db,
		"migrate up": locked, "migrate down": locked, "migrate secure-platform": locked, "migrate status": db,
		"schedule add": db, "schedule list": db, "schedule show": db, "schedule pause": db, "schedule resume": db,
		"schedule remove": db, "schedule run-now": db, "schedule history": db,
		"skill list": db, "skill show": db, "skill add": db, "skill exec": db, "skill run": db,
		"skill validate": "0 1 2", "skill add-composite": db,
		"sync status": db, "sync reconcile": "0 1 2 3 4 130",
		"sync conflicts list": db, "sync conflicts show": db, "sync conflicts resolve": db,
		"synthesize": partial,
		"tool list":  db, "tool show": db, "tool approve": db, "tool revoke": db, "tool exec": db,
		"voice transcribe": partial, "voice convert": "0 1 2 130",
		"worker":       "0 1 2 4 130",
		"audit verify": db, "audit anchor": db,
		"jobs pause": db, "jobs resume": db, "jobs prune": db, "jobs wait": "0 1 2 3 4 5 6 130",
		"patterns list": db, "patterns show": db,
		"profile show": db, "profile update": partial,
		"skill disable": db, "skill enable": db, "skill remove": db,
		"notify test": "0 1 2 3",
	}
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		codes := exitStatuses(t, c)
		if c == rootCmd || codes == nil {
			return
		}
		path := strings.TrimPrefix(c.CommandPath(), "helix ")
		seen[path] = true
		var got []string
		for _, n := range codes {
			got = append(got, strconv.Itoa(n))
		}
		w, ok := want[path]
		if !ok {
			t.Errorf("%s: EXIT STATUS %v, and this test does not know the command: add what it can return", path, got)
		} else if strings.Join(got, " ") != w {
			t.Errorf("%s --help: EXIT STATUS %s, want %s", path, strings.Join(got, " "), w)
		}
	}
	walk(rootCmd)
	for path := range want {
		if !seen[path] {
			t.Errorf("%s has no EXIT STATUS section in its --help", path)
		}
	}
	// The services say that SIGINT/SIGTERM stops them with 0.
	for _, args := range [][]string{{"worker"}, {"decay", "schedule"}, {"mcp", "serve"}} {
		c, _, err := rootCmd.Find(args)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(c.Long, "0    success; also when stopped by SIGINT/SIGTERM") {
			t.Errorf("%v --help does not say SIGTERM exits 0", args)
		}
	}
	// What the contract tests observe is listed.
	for _, j := range jobs(t) {
		c, _, err := rootCmd.Find(j.args)
		if err != nil {
			t.Fatal(err)
		}
		codes := exitStatuses(t, c)
		must := []int{2, 4, j.sigint}
		if j.jobLock != "" {
			must = append(must, 5)
		}
		if j.sigintOr != 0 {
			must = append(must, j.sigintOr)
		}
		for _, n := range must {
			if !slices.Contains(codes, n) {
				t.Errorf("%s: the contract tests see exit %d, its --help lists %v", j.name, n, codes)
			}
		}
	}
}
