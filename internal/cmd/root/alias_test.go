package root

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/factory"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
)

// aliasProbe runs `helix probe` whose setting --fetch-timeout was --timeout
// and whose argument --all-versions was --all.
func aliasProbe(t *testing.T, args ...string) (time.Duration, bool, string, error) {
	t.Helper()
	f, cleanup := factory.New("test")
	t.Cleanup(cleanup)
	ios, _, _, errOut := iostreams.Test()
	f.IOStreams = ios
	root := NewCmdRoot(f)
	var timeout time.Duration
	var all, other bool
	p := &cobra.Command{Use: "probe", RunE: func(*cobra.Command, []string) error { return nil }}
	p.Flags().DurationVar(&timeout, "fetch-timeout", time.Second, "")
	p.Flags().BoolVar(&all, "all-versions", false, "")
	p.Flags().BoolVar(&other, "latest", false, "")
	cmdutil.Alias(p.Flags(), "fetch-timeout", "timeout")
	cmdutil.Alias(p.Flags(), "all-versions", "all")
	p.MarkFlagsMutuallyExclusive("all-versions", "latest")
	root.AddCommand(p)
	root.SetArgs(append([]string{"probe"}, args...))
	err := root.Execute()
	return timeout, all, errOut.String(), err
}

func TestDeprecatedFlagNames(t *testing.T) {
	t.Setenv("HELIX_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, k := range []string{"HELIX_PROBE_TIMEOUT", "HELIX_PROBE_FETCH_TIMEOUT", "HELIX_PROBE_ALL", "HELIX_OUTPUT"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}

	d, all, stderr, err := aliasProbe(t, "--timeout", "5s", "--all")
	if err != nil || d != 5*time.Second || !all {
		t.Fatalf("old names: timeout %v all %v err %v", d, all, err)
	}
	for _, want := range []string{"flag --timeout is deprecated: use --fetch-timeout", "flag --all is deprecated: use --all-versions"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}

	// under -o json the notice is one JSON object per line
	_, _, stderr, err = aliasProbe(t, "--timeout", "5s", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || !strings.Contains(m["msg"].(string), "deprecated") {
			t.Errorf("stderr line %q is not a JSON deprecation notice", line)
		}
	}

	// both names at once, and an old name in an exclusive group, are usage errors
	var fe *cmdutil.FlagError
	if _, _, _, err := aliasProbe(t, "--timeout", "5s", "--fetch-timeout", "6s"); !errors.As(err, &fe) {
		t.Errorf("both names: err = %v, want a FlagError", err)
	}
	if _, _, _, err := aliasProbe(t, "--all", "--latest"); err == nil || !strings.Contains(err.Error(), "all-versions") {
		t.Errorf("old name in an exclusive group: err = %v", err)
	}

	// the old environment variable of a setting still works, with a notice;
	// the new one wins; an argument's old variable is never read
	t.Setenv("HELIX_PROBE_TIMEOUT", "7s")
	t.Setenv("HELIX_PROBE_ALL", "true")
	d, all, stderr, err = aliasProbe(t)
	if err != nil || d != 7*time.Second || all {
		t.Fatalf("old env: timeout %v all %v err %v", d, all, err)
	}
	if !strings.Contains(stderr, "setting probe.timeout (env HELIX_PROBE_TIMEOUT) is deprecated: use probe.fetch-timeout (HELIX_PROBE_FETCH_TIMEOUT)") {
		t.Errorf("stderr %q", stderr)
	}
	t.Setenv("HELIX_PROBE_FETCH_TIMEOUT", "8s")
	if d, _, stderr, _ = aliasProbe(t); d != 8*time.Second || stderr != "" {
		t.Errorf("new env beside old: timeout %v, stderr %q", d, stderr)
	}
}

// TestAliasesOfTheTree: every old name of every command points at a flag of
// the same command, and is hidden from help and completion.
func TestAliasesOfTheTree(t *testing.T) {
	f, cleanup := factory.New("test")
	t.Cleanup(cleanup)
	root := NewCmdRoot(f)
	want := map[string]string{
		"catalog.fetch.timeout":    "catalog.fetch.fetch-timeout",
		"catalog.fetch.provider":   "catalog.fetch.only-provider",
		"catalog.show.provider":    "catalog.show.only-provider",
		"manifest.import.max-size": "manifest.import.max-bytes",
		"tool.exec.max-response":   "tool.exec.max-bytes",
		"decay.run.chunk-size":     "decay.run.batch-size",
		"sync.reconcile.batch":     "sync.reconcile.batch-size",
		"sync.conflicts.list.all":  "sync.conflicts.list.include-resolved",
		"skill.list.all":           "skill.list.all-versions",
		"migrate.down.all":         "migrate.down.all-migrations",
	}
	got := map[string]string{}
	cmdutil.WalkAliases(root, func(old, canonical string) { got[old] = canonical })
	for old, canonical := range want {
		if got[old] != canonical {
			t.Errorf("alias %s → %q, want %q", old, got[old], canonical)
		}
	}
}
