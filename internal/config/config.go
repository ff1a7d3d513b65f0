// Package config resolves helix's configuration once per run: flags beat
// HELIX_* environment variables, which beat the config file, which beats defaults.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"

	"github.com/helixhq/helix/internal/redact"
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
	// Kind, when set, is checked by Validate: "duration" (Go syntax: 30s, 15m)
	// or "count" (a whole number ≥ 1) or "bool" (true or false). "map" marks a key whose value is a map
	// in the file (its subkeys are the map's, not settings of their own).
	Kind string
	// Choices, when set, are the only values Validate accepts.
	Choices []string
}

// Keys are the settings without a flag. A package that needs one adds it here
// so that `helix config show` lists it and its environment name is documented.
var Keys = []Key{
	{Name: "database-url", Help: "PostgreSQL connection URL", Secret: true, Env: []string{"DATABASE_URL", "SUPABASE_DB_URL"}},
	{Name: "db.statement-timeout", Default: "15m", Help: "statement_timeout for helix sessions unless the URL sets it", Kind: "duration"},
	{Name: "db.idle-in-transaction-timeout", Default: "5m", Help: "idle_in_transaction_session_timeout unless the URL sets it", Kind: "duration"},
	{Name: "db.connect-timeout", Default: "5s", Help: "how long to wait for the database to answer", Kind: "duration"},
	{Name: "db.max-conns", Default: 8, Help: "largest number of pooled connections", Kind: "count"},
	{Name: "db.pool-mode", Default: "auto", Help: "what database-url points at: auto (probe), direct, session (session pooler) or transaction (transaction pooler, e.g. Supabase's port 6543)",
		Choices: []string{"auto", "direct", "session", "transaction"}},
	{Name: "db.lock-ttl", Default: "20s", Help: "how long a job's lock outlives its holder's last heartbeat (a killed holder's lock is free after at most this; 3s to 30s)", Kind: "duration"},
	{Name: "decay.layers", Help: "forgetting-curve model per psychology layer, a map in the config file: {\"1\": {model: exponential, param: 720}, ...} (see README, decay)", Kind: "map"},
	{Name: "decay.memory-weights", Help: "FSRS-6 weights w0..w20 for memories, 21 numbers (default: the published FSRS-6 weights): a list in the file, comma-separated in the environment; w20 must agree with decay.memory-decay if both are set"},
	{Name: "decay.memory-decay", Default: -0.1542, Help: "FSRS forgetting-curve DECAY for memories: -0.1542 (FSRS-6) or -0.5 (FSRS-4.5/5)"},
	{Name: "sync.strategies", Help: "sync merge strategy per entity type (field-lww, lww, manual; field-lww when unset): a map in the file, type=strategy,... in the environment", Kind: "map"},
	{Name: "catalog.source", Default: "https://models.dev/api.json", Help: "URL or file that helix catalog fetch reads the models.dev catalog from"},
	{Name: "catalog.overrides", Help: "YAML file of local model capability overrides applied by helix catalog show"},
	{Name: "skill.timeout", Help: "operator's cap on a skill execution's wall-clock time (e.g. 10s); the lowest of this, --timeout and the skill's own wins", Kind: "duration"},
	{Name: "skill.memory", Help: "operator's cap on a skill's memory (e.g. 64MiB); the lowest wins"},
	{Name: "skill.output-limit", Help: "operator's cap on a skill's output (e.g. 256KiB); the lowest wins"},
	{Name: "skill.max-code-size", Default: "16MiB", Help: "largest skill code (wasm module or script) skill add stores and skill exec/run runs; bigger is refused (exit 2)"},
	{Name: "skill.cpu-limit", Default: "10s", Help: "CPU time (user + system) a skill run may use, apart from its wall-clock timeout; past it the run ends with status cpu_limit", Kind: "duration"},
	{Name: "skill.net.max-requests", Default: 50, Help: "most HTTP requests one skill run may send (net: capabilities); later ones are refused", Kind: "count"},
	{Name: "skill.net.timeout", Default: "10s", Help: "timeout of one HTTP request of a skill, within what is left of the run's own timeout", Kind: "duration"},
	{Name: "skill.net.max-request", Default: "1MiB", Help: "largest body a skill may send in one HTTP request"},
	{Name: "skill.net.max-response", Default: "4MiB", Help: "largest response body a skill may receive from one HTTP request; a bigger one is an error the skill sees"},
	{Name: "skill.cache-dir", Help: "compiled WebAssembly cache (default $XDG_CACHE_HOME/helix/wasm)"},
	{Name: "skill.trusted-signers", Help: "allowed-signers file (ssh-keygen -Y verify format) of the keys trusted to sign skills (skill add --signature)"},
	{Name: "skill.require-signature", Default: "false", Help: "true: shared registry skills must be signed by a trusted signer to be added or run (exit 2 otherwise)", Choices: []string{"true", "false"}},
	{Name: "skill.require-signature-user", Default: "false", Help: "true: a user's own skills (skill add --user-id) must be signed by a trusted signer to be added or run", Choices: []string{"true", "false"}},
	{Name: "voice.deepgram.api-key", Help: "Deepgram API key for helix voice transcribe", Secret: true, Env: []string{"DEEPGRAM_API_KEY"}},
	{Name: "voice.deepgram.base-url", Default: "https://api.deepgram.com", Help: "Deepgram API base URL"},
	{Name: "voice.deepgram.model", Default: "nova-3", Help: "Deepgram model (always sent: Deepgram's own default is base)"},
	{Name: "voice.openai.api-key", Help: "API key for the OpenAI-compatible transcription server (empty for a self-hosted one)", Secret: true, Env: []string{"OPENAI_API_KEY"}},
	{Name: "voice.openai.base-url", Default: "https://api.openai.com/v1", Help: "OpenAI-compatible base URL up to /v1 (whisper.cpp server, faster-whisper server…)"},
	{Name: "voice.openai.model", Default: "whisper-1", Help: "model for /v1/audio/transcriptions (must support verbose_json)"},
	{Name: "voice.openai.max-upload-bytes", Default: 25 << 20, Help: "largest upload the server accepts; longer audio is split at silences", Kind: "count"},
	{Name: "voice.timeout", Default: "10m", Help: "timeout of one transcription request", Kind: "duration"},
	{Name: "voice.retries", Default: 4, Help: "retries of a transcription request after 429, 5xx or a network error"},
	{Name: "voice.memory", Default: true, Help: "voice transcribe writes a memories row of the user from each transcript (false: the recording only; --no-memory)", Kind: "bool"},
	{Name: "voice.memory-type", Default: "episodic", Help: "type of the memories voice transcribe writes", Choices: []string{"episodic", "semantic", "procedural"}},
	{Name: "voice.vad", Help: "drop the frames without speech before sending (voice transcribe: on unless false; voice convert: off unless true); --vad", Kind: "bool"},
	{Name: "voice.denoise", Default: false, Help: "spectral noise reduction, the noise profile taken from the frames without speech; --denoise", Kind: "bool"},
	{Name: "llm.anthropic.api-key", Help: "Anthropic API key for helix synthesize --llm", Secret: true, Env: []string{"ANTHROPIC_API_KEY"}},
	{Name: "llm.anthropic.base-url", Default: "https://api.anthropic.com", Help: "Anthropic API base URL (without /v1)"},
	{Name: "llm.openai.api-key", Help: "API key for OpenAI-compatible chat completions (synthesize --llm with any provider but anthropic; empty for a local server)", Secret: true, Env: []string{"OPENAI_API_KEY"}},
	{Name: "llm.openai.base-url", Default: "https://api.openai.com/v1", Help: "OpenAI-compatible base URL up to /v1, for providers without their own llm.PROVIDER.base-url"},
	{Name: "llm.ollama.base-url", Default: "http://localhost:11434/v1", Help: "Ollama's OpenAI-compatible base URL (--model ollama/MODEL)"},
	{Name: "llm.max-tokens", Default: 4096, Help: "max_tokens of a synthesize --llm answer; doubled once when an answer is cut"},
	{Name: "llm.timeout", Default: "5m", Help: "timeout of one model request"},
	{Name: "llm.retries", Default: 4, Help: "retries of a model request after 429, 529/5xx or a network error"},
	{Name: "llm.max-memories", Default: 120, Help: "most memories quoted in one user's brief"},
	{Name: "llm.max-memory-chars", Default: 600, Help: "longest memory text quoted in a brief (characters)"},
	{Name: "llm.max-brief-chars", Default: 120000, Help: "longest brief (characters); the model's context may make it shorter"},
	{Name: "embed.base-url", Help: "OpenAI-compatible embeddings server up to /v1 (OpenAI, Ollama http://localhost:11434/v1, vLLM, LM Studio…); empty with no embed.api-key: no provider, memory search is text only"},
	{Name: "embed.api-key", Help: "API key of the embeddings server (empty for a local one); with no embed.base-url it means https://api.openai.com/v1", Secret: true, Env: []string{"OPENAI_API_KEY"}},
	{Name: "embed.dimensions", Default: 0, Help: "ask the model for this many dimensions (text-embedding-3-*; 0: the model's own)"},
	{Name: "embed.timeout", Default: "2m", Help: "timeout of one embeddings request", Kind: "duration"},
	{Name: "embed.retries", Default: 5, Help: "retries of an embeddings request after 429, 5xx or a network error"},
	{Name: "manifest.max-memory", Default: "4GiB", Help: "largest memory limit a tool manifest may request (0: no maximum)"},
	{Name: "manifest.max-cpu", Default: "4", Help: "largest CPU limit a tool manifest may request, in cores or millicores (0: no maximum)"},
	{Name: "manifest.max-storage", Default: "10GiB", Help: "largest storage quota a tool manifest may request (0: no maximum)"},
	{Name: "mcp.token", Help: "bearer token every request to helix mcp serve --listen must carry (required on a non-loopback address)", Secret: true},
	{Name: "mcp.allowed-origins", Help: "origins (scheme://host[:port], comma-separated) besides localhost ones whose browser pages may call helix mcp serve --listen; any other Origin gets 403"},
	{Name: "mcp.upload-timeout", Default: "30s", Help: "how long helix mcp serve --listen waits for a request's body before dropping it (0: no limit)", Kind: "duration"},
	{Name: "mcp.session-timeout", Default: "30m", Help: "how long an idle Streamable HTTP session of helix mcp serve --listen lives (0: until the client ends it)", Kind: "duration"},
	{Name: "manifest.max-timeout", Default: "10m", Help: "longest timeout a tool manifest may request (0: no maximum)", Kind: "duration"},
	{Name: "notify.webhook-url", Help: "webhooks told of failures (a list; comma-separated in the environment): a http(s) URL, prefixed slack+ or discord+ for their formats (plain JSON otherwise); see README, Notifications"},
	{Name: "notify.allow-private", Default: "false", Help: "true: webhooks on private or loopback addresses are allowed (refused otherwise)", Kind: "bool"},
	{Name: "notify.retry-base", Default: "5s", Help: "first retry delay of a failed webhook delivery, doubled each attempt up to 30m", Kind: "duration"},
	{Name: "retention.job-runs", Default: "720h", Help: "how long job_runs rows of finished runs are kept (helix worker prunes them; 0: forever)", Kind: "duration"},
	{Name: "retention.schedule-fires", Default: "720h", Help: "how long finished schedule fires (schedule history) are kept (helix worker prunes them; 0: forever)", Kind: "duration"},
	{Name: "retention.completed-jobs", Default: "24h", Help: "how long River keeps completed jobs (River's job cleaner in helix worker; 0: forever)", Kind: "duration"},
	{Name: "retention.cancelled-jobs", Default: "24h", Help: "how long River keeps cancelled jobs (0: forever)", Kind: "duration"},
	{Name: "retention.discarded-jobs", Default: "168h", Help: "how long River keeps discarded jobs, failed after their retries (0: forever)", Kind: "duration"},
	{Name: "schedule.max-per-user", Default: 20, Help: "most schedules one user may own (schedule add --user-id); beyond it, exit 2", Kind: "count"},
	{Name: "schedule.min-interval", Default: "5m", Help: "shortest gap between two fires of a user's schedule (schedule add --user-id); under it, exit 2", Kind: "duration"},
}

// Validate checks every key with a Kind that the environment or the file
// sets: a bad setting is an error naming the key and where it came from,
// never a silent default.
func (c *Config) Validate() error {
	for _, k := range Keys {
		if k.Kind == "" && k.Choices == nil || !c.IsSet(k.Name) {
			continue
		}
		v := strings.TrimSpace(c.String(k.Name))
		var bad string
		if k.Choices != nil && !slices.Contains(k.Choices, v) {
			bad = "not one of " + strings.Join(k.Choices, ", ")
		}
		switch k.Kind {
		case "duration":
			if d, err := time.ParseDuration(v); err != nil || d < 0 {
				bad = "not a duration: use a number with a unit, e.g. 30s, 15m, 1h"
			}
		case "count":
			if n, err := strconv.Atoi(v); err != nil || n < 1 {
				bad = "not a whole number of at least 1"
			}
		case "bool":
			if _, err := strconv.ParseBool(v); err != nil {
				bad = "not true or false"
			}
		}
		if bad != "" {
			return fmt.Errorf("setting %s = %q (%s): %s", k.Name, v, c.Source(k.Name), bad)
		}
	}
	return nil
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
	redact.Add(c.Secrets()...)
	return c, nil
}

// Secrets are the values of every secret setting: the keys marked Secret,
// any file key named like one (IsSecret), and the database password (from
// the URL, or PGPASSWORD, which the driver reads). Load registers them with
// package redact, so that they never leave helix in a message.
func (c *Config) Secrets() []string {
	var out []string
	add := func(key string) {
		s := c.String(key)
		if s == "" {
			return
		}
		if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
			if pw, ok := u.User.Password(); ok {
				out = append(out, pw)
			}
			for name, vals := range u.Query() {
				if IsSecret(name) || name == "password" {
					out = append(out, vals...)
				}
			}
			if key != "database-url" && !strings.Contains(key, "url") {
				out = append(out, s)
			}
			return
		}
		out = append(out, s)
	}
	for _, k := range Keys {
		if k.Secret {
			add(k.Name)
		}
	}
	for _, k := range c.FileKeys() {
		if IsSecret(k) {
			add(k)
		}
	}
	// A webhook's URL (Slack's, Discord's) is its own token: its path and
	// query are secrets (package notify prints only the scheme and host).
	for _, e := range c.StringSlice("notify.webhook-url") {
		e = strings.TrimSpace(e)
		if i := strings.Index(e, "+"); i >= 0 && i < strings.Index(e, "://") {
			e = e[i+1:]
		}
		if u, err := url.Parse(e); err == nil && u.Host != "" {
			// only what is long enough to be a token: a short path
			// ("/hook") is a word that other text holds too
			if p := strings.Trim(u.Path, "/"); len(p) >= minWebhookToken {
				out = append(out, p)
			}
			if len(u.RawQuery) >= minWebhookToken {
				out = append(out, u.RawQuery)
			}
		}
	}
	if pw := os.Getenv("PGPASSWORD"); pw != "" {
		out = append(out, pw)
	}
	return out
}

// minWebhookToken is the shortest webhook path or query masked as a secret.
const minWebhookToken = 16

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

// SetDefault replaces key's default for this run: a command whose own need
// differs from the general default (helix worker's pool size) says so
// before the value is read; the environment and the file still win.
func (c *Config) SetDefault(key string, value any) { c.v.SetDefault(key, value) }

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
		if line := c.Line(key); line > 0 {
			return fmt.Sprintf("file %s:%d", c.file, line)
		}
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

// Line returns the line of the config file where key is set, or 0.
func (c *Config) Line(key string) int {
	if c.file == "" {
		return 0
	}
	b, err := os.ReadFile(c.file)
	if err != nil {
		return 0
	}
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 {
		return 0
	}
	n := doc.Content[0]
	line := 0
	for _, part := range strings.Split(key, ".") {
		if n.Kind != yaml.MappingNode {
			return line
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if strings.EqualFold(n.Content[i].Value, part) {
				line, n, found = n.Content[i].Line, n.Content[i+1], true
				break
			}
		}
		if !found {
			return line
		}
	}
	return line
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
		return redact.URL(s, IsSecret)
	}
	if IsSecret(key) {
		return redact.Mask
	}
	return s
}
