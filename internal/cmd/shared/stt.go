package shared

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/voice/stt"
)

// STTProvider builds the named provider (deepgram or openai) from the
// settings (voice.*): the command's and a queue worker's.
func STTProvider(cfg *config.Config, client *http.Client, name string) (stt.Provider, error) {
	c := *client
	c.Timeout = 0 // each attempt has its own timeout: voice.timeout
	timeout, err := time.ParseDuration(cfg.String("voice.timeout"))
	if err != nil {
		return nil, cmdutil.InputError(fmt.Errorf("voice.timeout: %w", err))
	}
	h := stt.HTTP{Client: &c, Timeout: timeout, MaxRetries: cfg.Int("voice.retries")}
	switch name {
	case "openai":
		return &stt.OpenAI{HTTP: h, BaseURL: cfg.String("voice.openai.base-url"), APIKey: cfg.String("voice.openai.api-key"),
			ModelName: cfg.String("voice.openai.model"), MaxUpload: cfg.Int("voice.openai.max-upload-bytes")}, nil
	default:
		key := cfg.String("voice.deepgram.api-key")
		if key == "" {
			return nil, cmdutil.InputError(errors.New("no Deepgram API key: set DEEPGRAM_API_KEY (or voice.deepgram.api-key in the config file)"))
		}
		return &stt.Deepgram{HTTP: h, BaseURL: cfg.String("voice.deepgram.base-url"), APIKey: key, ModelName: cfg.String("voice.deepgram.model")}, nil
	}
}
