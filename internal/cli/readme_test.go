package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/factory"
	"github.com/helixhq/helix/internal/cmd/root"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
)

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The flags README says a scheduled job line refuses are refused, and one
// that no command has is called so (issue 49: --database-url was listed as
// if a command had it).
func TestREADMERefusedJobLineFlags(t *testing.T) {
	doc := readme(t)
	i := strings.Index(doc, "connection flags are refused anywhere in the job line")
	if i < 0 {
		t.Fatal("README no longer lists the flags a job line refuses")
	}
	para := doc[i:]
	para = para[:strings.Index(para, "(`job line")]
	flags := regexp.MustCompile("`(--[a-z-]+)`").FindAllStringSubmatch(para, -1)
	if len(flags) < 6 {
		t.Fatalf("found %d flags in %q", len(flags), para)
	}
	t.Setenv("HELIX_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, m := range flags {
		flag := m[1]
		f, cleanup := factory.New("test")
		ios, _, _, _ := iostreams.Test()
		f.IOStreams = ios
		rootCmd := root.NewCmdRoot(f)
		has := rootCmd.PersistentFlags().Lookup(flag[2:]) != nil
		var walk func(c *cobra.Command)
		walk = func(c *cobra.Command) {
			if c.Flags().Lookup(flag[2:]) != nil {
				has = true
			}
			for _, s := range c.Commands() {
				walk(s)
			}
		}
		walk(rootCmd)
		if flag != "--help" && flag != "--version" && !has && !strings.Contains(para, "`"+flag+"`, which no command has") {
			t.Errorf("README lists %s as if a command had it: no command has; say so", flag)
		}
		rootCmd.SetArgs([]string{"schedule", "add", "readme", "--cron", "@hourly", "--", "decay", "run", flag, "x"})
		err := rootCmd.Execute()
		cleanup()
		if cmdutil.Code(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), flag+" is not allowed in a scheduled job") {
			t.Errorf("job line with %s: %v, want exit 2 saying it is not allowed", flag, err)
		}
	}
}
