package config_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/cmd/factory"
	"github.com/helixhq/helix/internal/cmd/root"
	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/iostreams"
)

// TestMain takes every helix setting out of the environment: each test
// sets the ones it means.
func TestMain(m *testing.M) {
	cmdtest.UnsetHelixEnv()
	os.Exit(m.Run())
}

type setting struct{ Key, Value, Source, Env string }

// show runs `helix config show` in-process as the binary does, with a
// config file of the given lines.
func show(t *testing.T, lines string, args ...string) (string, string, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	f, cleanup := factory.New("test")
	t.Cleanup(cleanup)
	ios, _, out, errOut := iostreams.Test()
	f.IOStreams = ios
	cmd := root.NewCmdRoot(f)
	cmd.SetArgs(append([]string{"config", "show", "--config", file}, args...))
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// TestShowSourcesAndSecrets: every value says where it came from (flag, env,
// file with its line, default), secrets and a URL's password are masked, and
// per-invocation arguments are not settings.
func TestShowSourcesAndSecrets(t *testing.T) {
	t.Setenv("HELIX_DECAY_RUN_BATCH_SIZE", "777")
	t.Setenv("HELIX_EMBED_API_KEY", "sk-config-show-secret")
	out, _, err := show(t, "database-url: postgres://helix:hunter22@db.example:5432/app\ndecay:\n  batch-size: 10\nsynthesize:\n  min-confidence: 0.8\n",
		"--output", "json", "--log-level", "debug")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		File     string    `json:"config_file"`
		Settings []setting `json:"settings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(out, "hunter22") || strings.Contains(out, "sk-config-show-secret") {
		t.Errorf("a secret is printed:\n%s", out)
	}
	by := map[string]setting{}
	for _, s := range rep.Settings {
		by[s.Key] = s
	}
	for key, want := range map[string]setting{
		"decay.run.batch-size":           {Value: "777", Source: "env HELIX_DECAY_RUN_BATCH_SIZE"},
		"synthesize.min-confidence":      {Value: "0.8", Source: "file " + rep.File + ":5"},
		"log-level":                      {Value: "debug", Source: "flag"},
		"embed.api-key":                  {Value: "[REDACTED]", Source: "env HELIX_EMBED_API_KEY"},
		"database-url":                   {Value: "postgres://helix:[REDACTED]@db.example:5432/app", Source: "file " + rep.File + ":1"},
		"db.idle-in-transaction-timeout": {Source: "default"},
	} {
		got, ok := by[key]
		if !ok || got.Source != want.Source || want.Value != "" && got.Value != want.Value {
			t.Errorf("%s: %+v, want %+v", key, got, want)
		}
	}
	if _, ok := by["synthesize.user-id"]; ok {
		t.Error("a per-invocation argument is listed as a setting")
	}
}

// TestShowPrefix: a prefix keeps only its keys, tab-separated off a
// terminal (no header), with the file on stderr; a prefix that matches
// nothing is a usage error.
func TestShowPrefix(t *testing.T) {
	out, errOut, err := show(t, "", "db.")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 5 || !strings.HasPrefix(errOut, "config file: ") {
		t.Fatalf("out:\n%s\nerr: %s", out, errOut)
	}
	for _, l := range lines {
		if f := strings.Split(l, "\t"); len(f) != 4 || !strings.HasPrefix(f[0], "db.") || f[3] != config.EnvName(f[0]) {
			t.Errorf("line %q outside the prefix", l)
		}
	}
	_, _, err = show(t, "", "nosuchprefix")
	if cmdutil.Code(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), `no setting starts with "nosuchprefix"`) {
		t.Errorf("exit %d: %v", cmdutil.Code(err), err)
	}
}
