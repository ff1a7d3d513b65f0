package llmsynth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/redact"
)

// Message is one turn of the conversation after the system prompt.
type Message struct {
	Role string // user or assistant
	Text string
	// ToolUseID and ToolInput carry an Anthropic tool_use turn (assistant) or
	// the tool_result that answers it (user, IsError) on a repair round-trip.
	ToolUseID string
	ToolInput json.RawMessage
	IsError   bool
}

// Request is one call: a system prompt shared by every user (cached where
// the provider can), the conversation, and the schema the answer must match.
type Request struct {
	Model      string
	System     string
	Messages   []Message
	SchemaName string
	Schema     map[string]any // sent to the provider; validated again locally
	MaxTokens  int
}

// Usage is what a call consumed, in tokens. Input excludes cached tokens.
type Usage struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheRead  int64 `json:"cache_read_tokens"`
	CacheWrite int64 `json:"cache_write_tokens"`
}

// Add sums two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.Input + o.Input, u.Output + o.Output, u.CacheRead + o.CacheRead, u.CacheWrite + o.CacheWrite}
}

// Stop reasons, normalised across providers.
const (
	StopEnd       = "end"
	StopMaxTokens = "max_tokens"
	StopOther     = "other"
)

// Response is a provider's answer.
type Response struct {
	JSON       json.RawMessage // the structured answer: tool input or message content
	ToolUseID  string          // Anthropic: the tool_use block's id, for a repair turn
	StopReason string          // StopEnd, StopMaxTokens or StopOther
	RawStop    string          // the provider's own word for it
	Usage      Usage
	RequestID  string
}

// Provider sends one request.
type Provider interface {
	Name() string
	Complete(ctx context.Context, req Request) (*Response, error)
	// Body is the exact JSON Complete would send, for --dry-run.
	Body(req Request) ([]byte, error)
}

// HTTP is what both providers share: a client, per-attempt timeout and retries.
type HTTP = httpretry.Caller

const maxBody = 16 << 20

// do sends the request build makes through h, retrying 429, 529/5xx and
// network errors after the server's retry-after or with exponential backoff
// (from 1 s up to a minute unless h says otherwise). redact scrubs the key
// out of anything that becomes an error.
func do(ctx context.Context, h *HTTP, provider string, build func() (*http.Request, error),
	decodeErr func(status int, hdr http.Header, body []byte) *httpretry.APIError, redact func(string) string) ([]byte, http.Header, error) {
	c := *h
	if c.Backoff <= 0 {
		c.Backoff, c.MaxBackoff = time.Second, max(c.MaxBackoff, time.Minute)
	}
	body, hdr, err := c.Do(ctx, maxBody, build, func(status int, hdr http.Header, body []byte) error {
		return decodeErr(status, hdr, body)
	})
	if err == nil || ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return body, hdr, err
	}
	if api, ok := errors.AsType[*httpretry.APIError](err); ok {
		api.Message = redact(api.Message) // the key's prefix too, which redact.String does not know
	} else if g, ok := errors.AsType[*httpretry.GaveUp](err); ok {
		g.Err = errors.New(redact(g.Err.Error()))
	} else {
		err = errors.New(redact(err.Error()))
	}
	return nil, nil, httpretry.Unavailable(provider, err)
}

// redactor returns a func that masks key, and the 12-character prefix of it
// a server might echo, as every secret is masked (redact.String).
func redactor(key string) func(string) string {
	values := []string{key}
	if len(key) > 12 {
		values = append(values, key[:12])
	}
	return func(s string) string { return redact.String(s, values...) }
}
