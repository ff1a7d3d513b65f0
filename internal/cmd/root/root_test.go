package root

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/helixhq/helix/internal/cmd/factory"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
)

// probe builds a root with one extra command whose flag value the test reads back.
func probe(t *testing.T, args []string) (string, string, error) {
	t.Helper()
	f, cleanup := factory.New("test")
	t.Cleanup(cleanup)
	ios, _, _, _ := iostreams.Test()
	f.IOStreams = ios
	root := NewCmdRoot(f)
	var level string
	p := &cobra.Command{Use: "probe", RunE: func(*cobra.Command, []string) error { return nil }}
	p.Flags().StringVar(&level, "level", "default", "")
	root.AddCommand(p)
	root.SetArgs(args)
	err := root.Execute()
	return level, f.Global.Output, err
}

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte("output: json\nprobe:\n  level: file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", dir) // nothing there: only --config / HELIX_CONFIG name a file
	t.Setenv("HELIX_CONFIG", "")

	cases := []struct {
		name      string
		env       string
		args      []string
		want      string
		wantOuput string
	}{
		{"defaults", "", []string{"probe"}, "default", "text"},
		{"file beats default", "", []string{"--config", file, "probe"}, "file", "json"},
		{"env beats file", "env", []string{"--config", file, "probe"}, "env", "json"},
		{"flag beats env", "env", []string{"--config", file, "probe", "--level", "flag"}, "flag", "json"},
		{"flag beats file for globals", "", []string{"--config", file, "-o", "text", "probe"}, "file", "text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("HELIX_PROBE_LEVEL", c.env)
			if c.env == "" {
				os.Unsetenv("HELIX_PROBE_LEVEL")
			}
			got, out, err := probe(t, c.args)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want || out != c.wantOuput {
				t.Errorf("level = %q, output = %q; want %q, %q", got, out, c.want, c.wantOuput)
			}
		})
	}
}

func TestConfigFromHelixConfigEnv(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(file, []byte("probe: {level: fromenvfile}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HELIX_CONFIG", file)
	got, _, err := probe(t, []string{"probe"})
	if err != nil || got != "fromenvfile" {
		t.Fatalf("level = %q, err = %v", got, err)
	}
}

func TestXDGConfigFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "helix"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "helix", "config.yaml"), []byte("probe: {level: xdg}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HELIX_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", dir)
	got, _, err := probe(t, []string{"probe"})
	if err != nil || got != "xdg" {
		t.Fatalf("level = %q, err = %v", got, err)
	}
}

func TestMissingExplicitConfigIsAnError(t *testing.T) {
	_, _, err := probe(t, []string{"--config", "/nonexistent/helix.yaml", "probe"})
	if err == nil || err.Error() != "config file /nonexistent/helix.yaml: no such file or directory" {
		t.Fatalf("err = %v", err)
	}
}

func TestBadValueFromEnvIsAUsageError(t *testing.T) {
	t.Setenv("HELIX_OUTPUT", "yaml")
	_, _, err := probe(t, []string{"probe"})
	var fe *cmdutil.FlagError
	if !errors.As(err, &fe) || err.Error() != `invalid --output "yaml": use text or json` {
		t.Fatalf("err = %v", err)
	}
	t.Setenv("HELIX_OUTPUT", "")
	os.Unsetenv("HELIX_OUTPUT")
	t.Setenv("HELIX_DB_MAX_CONNS", "3")
	t.Setenv("HELIX_PROBE_LEVEL", "")
	_, _, err = probe(t, []string{"probe", "--level"})
	if !errors.As(err, &fe) {
		t.Fatalf("missing flag value: err = %v, want a FlagError", err)
	}
}

func TestFlagKey(t *testing.T) {
	f, cleanup := factory.New("test")
	t.Cleanup(cleanup)
	root := NewCmdRoot(f)
	cmd, _, err := root.Find([]string{"migrate", "status"})
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.ParseFlags(nil) // merges the root's persistent flags into cmd.Flags()
	for name, want := range map[string]string{"check": "migrate.status.check", "output": "output", "log-level": "log-level"} {
		if got := cmdutil.FlagKey(cmd, cmd.Flags().Lookup(name)); got != want {
			t.Errorf("FlagKey(%s) = %q, want %q", name, got, want)
		}
	}
}

// TestEveryFlagIsClassified: every flag of every command is either a setting
// (env and file may set it) or a per-invocation argument (command line only).
// A new flag fails here until it is put in one of internal/cmdutil/settings.go's tables.
func TestEveryFlagIsClassified(t *testing.T) {
	f, cleanup := factory.New("test")
	t.Cleanup(cleanup)
	root := NewCmdRoot(f)
	n := 0
	cmdutil.Walk(root, func(key string, _ *cobra.Command, fl *pflag.Flag) {
		n++
		if !cmdutil.IsClassified(key) {
			t.Errorf("flag %s (--%s) is neither a setting nor an argument: classify it in internal/cmdutil/settings.go", key, fl.Name)
		}
	})
	if n < 80 {
		t.Fatalf("walked only %d flags", n)
	}
	for key, want := range map[string]bool{"decay.run.at": true, "migrate.down.all-migrations": true, "migrate.down.yes": true,
		"synthesize.user-id": true, "decay.run.batch-size": false, "catalog.show.model": true, "db.statement-timeout": false} {
		if got := cmdutil.IsArgument(key); got != want {
			t.Errorf("IsArgument(%s) = %v, want %v", key, got, want)
		}
	}
}

// -o json on a command group gives one JSON document, its listing, not the
// help text (issue 49).
func TestGroupListingAsJSON(t *testing.T) {
	f, cleanup := factory.New("test")
	t.Cleanup(cleanup)
	ios, _, out, _ := iostreams.Test()
	f.IOStreams = ios
	root := NewCmdRoot(f)
	root.SetArgs([]string{"catalog", "-o", "json"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Command     string `json:"command"`
		Subcommands []struct {
			Name    string `json:"name"`
			Summary string `json:"summary"`
		} `json:"subcommands"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out.String())
	}
	if got.Command != "helix catalog" || len(got.Subcommands) != 3 || got.Subcommands[0].Name != "fetch" || got.Subcommands[0].Summary == "" {
		t.Errorf("listing = %+v", got)
	}
}
