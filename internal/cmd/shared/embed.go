package shared

import (
	"errors"
	"net/http"
	"time"

	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/embed"
)

// ErrNoEmbedProvider: nothing to send the text to.
var ErrNoEmbedProvider = errors.New("no embeddings provider configured: set embed.base-url (HELIX_EMBED_BASE_URL, e.g. http://localhost:11434/v1 for Ollama) or embed.api-key (OPENAI_API_KEY) for OpenAI")

// DefaultEmbedModel is embed.model's default: OpenAI's 1,536-dimension model, the
// width of the platform's vector(1536) column.
const DefaultEmbedModel = "text-embedding-3-small"

// EmbedModel is the configured embedding model (embed.model, the key of
// `helix embed --model`), for commands without that flag.
func EmbedModel(cfg *config.Config) string {
	if m := cfg.String("embed.model"); m != "" {
		return m
	}
	return DefaultEmbedModel
}

// EmbedClient builds the configured provider's client, or returns nil when
// neither embed.base-url nor embed.api-key is set. model "" means embed.model.
func EmbedClient(cfg *config.Config, hc *http.Client, model string) *embed.Client {
	base, key := cfg.String("embed.base-url"), cfg.String("embed.api-key")
	if base == "" && key == "" {
		return nil
	}
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	if model == "" {
		model = EmbedModel(cfg)
	}
	timeout, _ := time.ParseDuration(cfg.String("embed.timeout"))
	return &embed.Client{BaseURL: base, APIKey: key, Model: model, Dimensions: cfg.Int("embed.dimensions"),
		HTTP: hc, Timeout: timeout, MaxRetries: cfg.Int("embed.retries")}
}
