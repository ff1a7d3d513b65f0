package root

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/factory"
)

// TestReadmeShowsEveryCommand: every command a user can run appears in
// README.md in a shell example (a ```sh, ```console or plain block) as
// `helix [global flags] <group> <verb>`, so that a command added without
// documentation fails the suite.
func TestReadmeShowsEveryCommand(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	inBlock, inSh := false, false
	for _, l := range strings.Split(string(b), "\n") {
		if lang, ok := strings.CutPrefix(strings.TrimSpace(l), "```"); ok {
			inBlock = !inBlock
			inSh = inBlock && (lang == "" || lang == "sh" || lang == "bash" || lang == "console")
			continue
		}
		if inSh {
			lines = append(lines, strings.TrimPrefix(strings.TrimSpace(l), "$ "))
		}
	}
	examples := strings.Join(lines, "\n")
	f, cleanup := factory.New("test")
	t.Cleanup(cleanup)
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" && len(path) == 1 {
			return
		}
		path = append(path, c.Name())
		if c.Runnable() && !c.HasSubCommands() && len(path) > 1 {
			// the command, anywhere a helix invocation starts in a shell example
			re := regexp.MustCompile(`(?m)(^|[|;&(]\s*|\s)(\S*/)?helix(\s+--?[a-z-]+(=\S+|\s+\S+)?)*\s+` + regexp.QuoteMeta(strings.Join(path[1:], " ")) + `(\s|$)`)
			if !re.MatchString(examples) {
				t.Errorf("README.md has no shell example of %q", strings.Join(path, " "))
			}
		}
		for _, s := range c.Commands() {
			walk(s, path)
		}
	}
	walk(NewCmdRoot(f), nil)
}
