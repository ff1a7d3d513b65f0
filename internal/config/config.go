// Package config resolves helix's configuration once per run: flags beat
// HELIX_* environment variables, which beat the config file, which beats defaults.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/viper"
)

// EnvPrefix is the prefix of every helix environment variable.
const EnvPrefix = "HELIX"

// Key is a configuration value that is not a flag: secrets and settings that
// have no place on a command line.
type Key struct {
	Name    string
	Default any
	Help    string
	Secret  bool
	// Env lists extra environment variables read for this key, after HELIX_<NAME>.
	Env []string
}

// Keys are the settings without a flag. A package that needs one adds it here
// so that `helix config show` lists it and its environment name is documented.
var Keys = []Key{
	{Name: "database-url", Help: "PostgreSQL connection URL", Secret: true, Env: []string{"DATABASE_URL", "SUPABASE_DB_URL"}},
	{Name: "db.statement-timeout", Default: "15m", Help: "statement_timeout for helix sessions unless the URL sets it"},
	{Name: "db.idle-in-transaction-timeout", Default: "5m", Help: "idle_in_transaction_session_timeout unless the URL sets it"},
	{Name: "db.connect-timeout", Default: "5s", Help: "how long to wait for the database to answer"},
	{Name: "db.max-conns", Default: 8, Help: "largest number of pooled connections"},
	{Name: "decay.layers", Help: "forgetting-curve model per psychology layer, a map in the config file: {\"1\": {model: exponential, param: 720}, ...} (see README, decay)"},
	{Name: "decay.memory-decay", Default: -0.1542, Help: "FSRS forgetting-curve DECAY for memories: -0.1542 (FSRS-6) or -0.5 (FSRS-4.5/5)"},
	{Name: "sync.strategies", Help: "sync merge strategy per entity type (field-lww, lww, manual; field-lww when unset): a map in the file, type=strategy,... in the environment"},
	{Name: "catalog.source", Default: "https://models.dev/api.json", Help: "URL or file that helix catalog fetch reads the models.dev catalog from"},
	{Name: "catalog.overrides", Help: "YAML file of local model capability overrides applied by helix catalog show"},
	{Name: "skill.timeout", Help: "operator's cap on a skill execution's wall-clock time (e.g. 10s); the lowest of this, --timeout and the skill's own wins"},
	{Name: "skill.memory", Help: "operator's cap on a skill's memory (e.g. 64MiB); the lowest wins"},
	{Name: "skill.output-limit", Help: "operator's cap on a skill's output (e.g. 256KiB); the lowest wins"},
	{Name: "skill.cache-dir", Help: "compiled WebAssembly cache (default $XDG_CACHE_HOME/helix/wasm)"},
	{Name: "voice.deepgram.api-key", Help: "Deepgram API key for helix voice transcribe", Secret: true, Env: []string{"DEEPGRAM_API_KEY"}},
	{Name: "voice.deepgram.base-url", Default: "https://api.deepgram.com", Help: "Deepgram API base URL"},
	{Name: "voice.deepgram.model", Default: "nova-3", Help: "Deepgram model (always sent: Deepgram's own default is base)"},
	{Name: "voice.openai.api-key", Help: "API key for the OpenAI-compatible transcription server (empty for a self-hosted one)", Secret: true, Env: []string{"OPENAI_API_KEY"}},
	{Name: "voice.openai.base-url", Default: "https://api.openai.com/v1", Help: "OpenAI-compatible base URL up to /v1 (whisper.cpp server, faster-whisper server…)"},
	{Name: "voice.openai.model", Default: "whisper-1", Help: "model for /v1/audio/transcriptions (must support verbose_json)"},
	{Name: "voice.openai.max-upload-bytes", Default: 25 << 20, Help: "largest upload the server accepts; longer audio is split at silences"},
	{Name: "voice.timeout", Default: "10m", Help: "timeout of one transcription request"},
	{Name: "voice.retries", Default: 4, Help: "retries of a transcription request after 429, 5xx or a network error"},
	{Name: "embed.base-url", Help: "OpenAI-compatible embeddings server up to /v1 (OpenAI, Ollama http://localhost:11434/v1, vLLM, LM Studio…); empty with no embed.api-key: no provider, memory search is text only"},
	{Name: "embed.api-key", Help: "API key of the embeddings server (empty for a local one); with no embed.base-url it means https://api.openai.com/v1", Secret: true, Env: []string{"OPENAI_API_KEY"}},
	{Name: "embed.dimensions", Default: 0, Help: "ask the model for this many dimensions (text-embedding-3-*; 0: the model's own)"},
	{Name: "embed.timeout", Default: "2m", Help: "timeout of one embeddings request"},
	{Name: "embed.retries", Default: 5, Help: "retries of an embeddings request after 429, 5xx or a network error"},
	{Name: "manifest.max-memory", Default: "4GiB", Help: "largest memory limit a tool manifest may request (0: no maximum)"},
	{Name: "manifest.max-cpu", Default: "4", Help: "largest CPU limit a tool manifest may request, in cores or millicores (0: no maximum)"},
	{Name: "manifest.max-storage", Default: "10GiB", Help: "largest storage quota a tool manifest may request (0: no maximum)"},
	{Name: "manifest.max-timeout", Default: "10m", Help: "longest timeout a tool manifest may request (0: no maximum)"},
}

// Config is the resolved configuration of one run.
type Config struct {
	v    *viper.Viper
	file string // the config file that was read, "" if none
}

// Load reads the config file. path is --config or HELIX_CONFIG; when it is
// empty the file is looked up in $XDG_CONFIG_HOME/helix/config.yaml, then
// /etc/helix/config.yaml, and a missing one is fine. An explicit path that is
// missing is an error. The working directory is never searched: under cron it is arbitrary.
func Load(path string) (*Config, error) {
	v := viper.New()
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", ".", "_"))
	v.AutomaticEnv()
	for _, k := range Keys {
		if k.Default != nil {
			v.SetDefault(k.Name, k.Default)
		}
		envs := append([]string{envName(k.Name)}, k.Env...)
		if err := v.BindEnv(append([]string{k.Name}, envs...)...); err != nil {
			return nil, err
		}
	}
	c := &Config{v: v}
	if path == "" {
		path = os.Getenv(EnvPrefix + "_CONFIG")
	}
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("config file %s: %w", path, errors.Unwrap(err))
		}
		c.file = path
	} else {
		for _, p := range defaultPaths() {
			if _, err := os.Stat(p); err == nil {
				c.file = p
				break
			}
		}
	}
	if c.file != "" {
		v.SetConfigFile(c.file)
		if err := v.ReadInConfig(); err != nil {
			return nil, fmt.Errorf("read config file %s: %w", c.file, err)
		}
	}
	return c, nil
}

func defaultPaths() []string {
	var ps []string
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		if home, err := os.UserHomeDir(); err == nil {
			xdg = filepath.Join(home, ".config")
		}
	}
	if xdg != "" {
		ps = append(ps, filepath.Join(xdg, "helix", "config.yaml"))
	}
	return append(ps, "/etc/helix/config.yaml")
}

// envName is the HELIX_* variable for a key: "decay.run.at" → HELIX_DECAY_RUN_AT.
func envName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(key))
}

// EnvName is exported for documentation and `config show`.
func EnvName(key string) string { return envName(key) }

// File is the config file that was read, or "".
func (c *Config) File() string { return c.file }

// IsSet reports whether the environment or the file sets key.
func (c *Config) IsSet(key string) bool { return c.v.IsSet(key) }

// Get returns the raw value of key (nil when unset).
func (c *Config) Get(key string) any { return c.v.Get(key) }

// String returns key as a string.
func (c *Config) String(key string) string { return c.v.GetString(key) }

// Int returns key as an int.
func (c *Config) Int(key string) int { return c.v.GetInt(key) }

// StringSlice returns key as a list; "a,b" in the environment is split on commas.
func (c *Config) StringSlice(key string) []string {
	raw := c.v.Get(key)
	if s, ok := raw.(string); ok {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	return c.v.GetStringSlice(key)
}

// Unmarshal decodes the subtree at key (e.g. "decay.layers") into out.
func (c *Config) Unmarshal(key string, out any) error {
	if !c.v.IsSet(key) {
		return nil
	}
	return c.v.UnmarshalKey(key, out)
}

// Source tells where the value of key comes from: "env HELIX_X", "file PATH" or "default".
// Flags are the caller's to report: only it knows whether a flag was given.
func (c *Config) Source(key string) string {
	names := []string{envName(key)}
	for _, k := range Keys {
		if k.Name == key {
			names = append(names, k.Env...)
		}
	}
	for _, n := range names {
		if _, ok := os.LookupEnv(n); ok {
			return "env " + n
		}
	}
	if c.file != "" && c.v.InConfig(key) {
		return "file " + c.file
	}
	return "default"
}

// FileKeys lists every leaf key the config file sets, sorted.
func (c *Config) FileKeys() []string {
	if c.file == "" {
		return nil
	}
	var keys []string
	for _, k := range c.v.AllKeys() {
		if c.v.InConfig(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// IsSecret reports whether a key's value must never be printed.
func IsSecret(key string) bool {
	for _, k := range Keys {
		if k.Name == key {
			return k.Secret
		}
	}
	k := strings.ToLower(key)
	for _, w := range []string{"key", "token", "secret", "password"} {
		if w == "token" && strings.HasSuffix(k, "tokens") {
			continue // a count of tokens (embed.batch-tokens), not a token
		}
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// Redact renders a value for display: secrets are hidden, and a URL keeps its
// host and database but loses its password.
func Redact(key string, value any) string {
	s := fmt.Sprint(value)
	if value == nil || s == "" {
		return ""
	}
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "REDACTED")
		}
		q := u.Query()
		for name := range q {
			if IsSecret(name) {
				q.Set(name, "REDACTED")
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	if IsSecret(key) {
		return "REDACTED"
	}
	return s
}
