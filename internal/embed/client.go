// Package embed turns memories' text into embeddings through any server that
// speaks OpenAI's POST /v1/embeddings, and writes them back with the model and
// dimension that made them.
package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/helixhq/helix/internal/httpretry"
)

// tooLong matches what OpenAI, vLLM, Ollama, LM Studio and LiteLLM say when an
// input exceeds the model's context. Compiled on first use: its bounded
// repeats make a large program, and package init is paid by every command.
var tooLong = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)context length|context_length|too long|too many tokens|maximum.{0,40}tokens|exceeds? .{0,30}(length|limit|tokens)|input length`)
})

// TooLong reports whether the server rejected the request because an input is
// longer than the model takes.
func TooLong(e *httpretry.APIError) bool {
	return (e.Status == http.StatusBadRequest || e.Status == http.StatusRequestEntityTooLarge) &&
		(e.Status == http.StatusRequestEntityTooLarge || tooLong().MatchString(e.Message) || e.Code == "context_length_exceeded")
}

// Client calls one embeddings server.
type Client struct {
	BaseURL    string // up to and including /v1
	APIKey     string // sent as a bearer token when set
	Model      string
	Dimensions int // sent as "dimensions" when > 0 (text-embedding-3-*)
	HTTP       *http.Client
	Timeout    time.Duration // of one request
	MaxRetries int
	Backoff    time.Duration // first backoff; doubles up to MaxBackoff
	MaxBackoff time.Duration
	// Sleep waits between attempts; tests replace it to record the waits.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Usage is what the server reports it counted.
type Usage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

// Response is the body of a successful answer.
type Response struct {
	Object string `json:"object"`
	Data   []struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
	Usage Usage  `json:"usage"`
}

// maxBody caps an answer: 2,048 inputs × 3,072 floats as JSON stay below it.
const maxBody = 256 << 20

// ParseResponse decodes an answer to a request of n inputs and returns the
// vectors in input order. Every input must have exactly one vector, all of one
// dimension, with finite values.
func ParseResponse(body []byte, n int) ([][]float32, Usage, error) {
	var r Response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, Usage{}, fmt.Errorf("embeddings: decode answer: %v", err)
	}
	if len(r.Data) != n {
		return nil, Usage{}, fmt.Errorf("embeddings: %d vectors for %d inputs", len(r.Data), n)
	}
	out := make([][]float32, n)
	dim := -1
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, Usage{}, fmt.Errorf("embeddings: bad or repeated index %d in the answer", d.Index)
		}
		if len(d.Embedding) == 0 {
			return nil, Usage{}, fmt.Errorf("embeddings: empty vector at index %d", d.Index)
		}
		if dim >= 0 && len(d.Embedding) != dim {
			return nil, Usage{}, &DimensionError{Got: len(d.Embedding), Want: dim, Against: "the other vectors of the same answer"}
		}
		dim = len(d.Embedding)
		out[d.Index] = d.Embedding
	}
	return out, r.Usage, nil
}

// Embed sends inputs in one request, retrying 429, 5xx and network errors
// with exponential backoff or after the Retry-After the server asks for.
func (c *Client) Embed(ctx context.Context, inputs []string) ([][]float32, Usage, error) {
	body, err := json.Marshal(request{Model: c.Model, Input: inputs, EncodingFormat: "float", Dimensions: c.Dimensions})
	if err != nil {
		return nil, Usage{}, err
	}
	h := httpretry.Caller{Client: c.HTTP, Timeout: c.Timeout, MaxRetries: c.MaxRetries,
		Backoff: c.Backoff, MaxBackoff: c.MaxBackoff, Sleep: c.Sleep}
	url := strings.TrimRight(c.BaseURL, "/") + "/embeddings"
	raw, _, err := h.Do(ctx, maxBody, func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		if c.APIKey != "" {
			req.Header.Set("Authorization", "Bearer "+c.APIKey)
		}
		return req, nil
	}, func(status int, hdr http.Header, body []byte) error {
		return httpretry.DecodeOpenAIError(provider, status, hdr, body)
	})
	if err != nil {
		return nil, Usage{}, httpretry.Unavailable(provider, err)
	}
	return ParseResponse(raw, len(inputs))
}

// provider names the server in errors: any server speaking OpenAI's API.
const provider = "embeddings"

// DimensionError is a vector whose length disagrees with the column, with
// the user's other embeddings or with the rest of the answer.
type DimensionError struct {
	Got, Want int
	Against   string
}

func (e *DimensionError) Error() string {
	return fmt.Sprintf("the embedding model returned %d dimensions but %s has %d: nothing was written; "+
		"choose a model (or embed.dimensions) that gives %d, or re-embed all of the user's memories with --reembed",
		e.Got, e.Against, e.Want, e.Want)
}
