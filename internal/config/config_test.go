package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// isolate points the default config paths at an empty directory and clears
// every helix variable the tests use, so the machine's own settings never leak in.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	for _, k := range Keys {
		t.Setenv(envName(k.Name), "")
		os.Unsetenv(envName(k.Name))
		for _, e := range k.Env {
			t.Setenv(e, "")
			os.Unsetenv(e)
		}
	}
	t.Setenv("HELIX_CONFIG", "")
	os.Unsetenv("HELIX_CONFIG")
	t.Setenv("PGPASSWORD", "")
	os.Unsetenv("PGPASSWORD")
	return dir
}

func writeFile(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPrecedenceEnvOverFileOverDefault(t *testing.T) {
	dir := isolate(t)
	file := writeFile(t, filepath.Join(dir, "helix", "config.yaml"), "db:\n  connect-timeout: 7s\n  max-conns: 3\n")
	t.Setenv("HELIX_DB_MAX_CONNS", "11")

	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if c.File() != file {
		t.Fatalf("File() = %q, want the XDG file %q", c.File(), file)
	}
	cases := []struct{ key, value, source string }{
		{"db.max-conns", "11", "env HELIX_DB_MAX_CONNS"},
		{"db.connect-timeout", "7s", "file " + file + ":2"},
		{"db.statement-timeout", "15m", "default"},
	}
	for _, tc := range cases {
		if got := c.String(tc.key); got != tc.value {
			t.Errorf("%s = %q, want %q", tc.key, got, tc.value)
		}
		if got := c.Source(tc.key); got != tc.source {
			t.Errorf("Source(%s) = %q, want %q", tc.key, got, tc.source)
		}
	}
}

func TestExtraEnvironmentNames(t *testing.T) {
	isolate(t)
	t.Setenv("DATABASE_URL", "postgres://u@db.example:5432/app")
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.String("database-url"); got != "postgres://u@db.example:5432/app" {
		t.Fatalf("database-url = %q from DATABASE_URL", got)
	}
	if got := c.Source("database-url"); got != "env DATABASE_URL" {
		t.Fatalf("Source = %q, want env DATABASE_URL", got)
	}
	// HELIX_ wins over the platform's name.
	t.Setenv("HELIX_DATABASE_URL", "postgres://u@other:5432/app")
	c, err = Load("")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.String("database-url"); got != "postgres://u@other:5432/app" {
		t.Fatalf("database-url = %q, want HELIX_DATABASE_URL's", got)
	}
}

func TestExplicitMissingConfigIsAnError(t *testing.T) {
	dir := isolate(t)
	missing := filepath.Join(dir, "nope.yaml")
	if _, err := Load(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("Load(%q) error = %v, want one naming the file", missing, err)
	}
	t.Setenv("HELIX_CONFIG", missing)
	if _, err := Load(""); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("HELIX_CONFIG=%q: error = %v, want one naming the file", missing, err)
	}
}

func TestWorkingDirectoryIsNeverRead(t *testing.T) {
	isolate(t)
	wd := t.TempDir()
	writeFile(t, filepath.Join(wd, "config.yaml"), "db:\n  max-conns: 99\n")
	writeFile(t, filepath.Join(wd, "helix", "config.yaml"), "db:\n  max-conns: 98\n")
	t.Chdir(wd)
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if c.File() != "" && !strings.HasPrefix(c.File(), "/etc/") {
		t.Fatalf("read %s from the working directory", c.File())
	}
	if c.File() == "" && c.Int("db.max-conns") != 8 {
		t.Fatalf("db.max-conns = %d, want the default 8", c.Int("db.max-conns"))
	}
}

func TestValidateNamesKeyValueAndSource(t *testing.T) {
	dir := isolate(t)
	file := writeFile(t, filepath.Join(dir, "c.yaml"), "skill:\n  timeout: 10s\ndb:\n  connect-timeout: soon\n")
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Validate()
	if err == nil {
		t.Fatal("Validate accepted connect-timeout: soon")
	}
	for _, want := range []string{"db.connect-timeout", `"soon"`, file + ":4", "not a duration"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate error %q does not name %s", err, want)
		}
	}

	isolate(t)
	t.Setenv("HELIX_DB_MAX_CONNS", "0")
	c, err = Load("")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "env HELIX_DB_MAX_CONNS") {
		t.Fatalf("Validate error = %v, want one naming HELIX_DB_MAX_CONNS", err)
	}

	isolate(t)
	t.Setenv("HELIX_VOICE_VAD", "sometimes")
	if c, err = Load(""); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "voice.vad") || !strings.Contains(err.Error(), "not true or false") {
		t.Fatalf("Validate error = %v, want one saying voice.vad is not true or false", err)
	}
}

func TestSecretsAreCollected(t *testing.T) {
	dir := isolate(t)
	file := writeFile(t, filepath.Join(dir, "c.yaml"), "llm:\n  anthropic:\n    api-key: sk-ant-file\nmyplugin:\n  token: tok-file\n")
	t.Setenv("HELIX_DATABASE_URL", "postgres://u:pw-in-url@db:5432/app?sslpassword=pw-in-query")
	t.Setenv("PGPASSWORD", "pw-env")
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(c.Secrets(), "\n")
	for _, want := range []string{"sk-ant-file", "tok-file", "pw-in-url", "pw-env"} {
		if !strings.Contains(got, want) {
			t.Errorf("Secrets() lacks %q", want)
		}
	}
	if strings.Contains(got, "db:5432") {
		t.Errorf("Secrets() holds the whole database URL; only its password is secret: %q", got)
	}
}

func TestIsSecret(t *testing.T) {
	for key, want := range map[string]bool{
		"llm.anthropic.api-key": true,
		"voice.deepgram.model":  false,
		"custom.token":          true,
		"embed.batch-tokens":    false,
		"x.password":            true,
		"db.max-conns":          false,
	} {
		if got := IsSecret(key); got != want {
			t.Errorf("IsSecret(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestRedactKeepsHostLosesPassword(t *testing.T) {
	got := Redact("database-url", "postgres://helix:hunter2@db.example:5432/app?sslmode=require")
	if strings.Contains(got, "hunter2") {
		t.Fatalf("Redact kept the password: %q", got)
	}
	for _, want := range []string{"helix", "db.example:5432", "/app", "sslmode=require"} {
		if !strings.Contains(got, want) {
			t.Errorf("Redact(%q) lost %q", got, want)
		}
	}
	if got := Redact("llm.anthropic.api-key", "sk-ant-123"); strings.Contains(got, "sk-ant-123") {
		t.Errorf("Redact kept an API key: %q", got)
	}
	if got := Redact("db.max-conns", 8); got != "8" {
		t.Errorf("Redact(db.max-conns, 8) = %q, want 8", got)
	}
}

func TestStringSliceFromEnvironmentAndFile(t *testing.T) {
	dir := isolate(t)
	file := writeFile(t, filepath.Join(dir, "c.yaml"), "list:\n  - a\n  - b\n")
	c, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.StringSlice("list"), "|"); got != "a|b" {
		t.Fatalf("file list = %q", got)
	}
	t.Setenv("HELIX_LIST", "x,y")
	c, err = Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.StringSlice("list"), "|"); got != "x|y" {
		t.Fatalf("env list = %q, want x|y", got)
	}
}

// TestWebhookPathIsSecret: the path and query of a notify.webhook-url entry
// (a Slack or Discord webhook's token) are registered secrets.
func TestWebhookPathIsSecret(t *testing.T) {
	isolate(t)
	t.Setenv("HELIX_NOTIFY_WEBHOOK_URL", "slack+https://hooks.slack.com/services/T0/B0/tok3nvalue,https://a.example/h?key=abcd1234efgh5678,https://b.example/hook")
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Join(c.Secrets(), " ")
	if !strings.Contains(s, "services/T0/B0/tok3nvalue") || !strings.Contains(s, "key=abcd1234efgh5678") {
		t.Errorf("secrets %q lack the webhooks' paths", s)
	}
	if strings.Contains(s, "hook") {
		t.Errorf("secrets %q hold a short path: it would mask the word everywhere", s)
	}
}
