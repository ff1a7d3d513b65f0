package llmsynth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/helixhq/helix/internal/httpretry"
)

// OpenAI speaks POST /v1/chat/completions as OpenAI, Ollama, vLLM and LM
// Studio serve it, asking for a JSON-schema response format.
type OpenAI struct {
	HTTP
	BaseURL  string // up to and including /v1
	APIKey   string // empty for a local server
	Provider string // the catalog's provider id (openai, ollama, …)
}

// Name is the provider id.
func (o *OpenAI) Name() string {
	if o.Provider == "" {
		return "openai"
	}
	return o.Provider
}

type oaMessage struct {
	Role      string       `json:"role"`
	Content   string       `json:"content"`
	ToolCalls []oaToolCall `json:"tool_calls,omitempty"`
}

type oaToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaRequest struct {
	Model          string      `json:"model"`
	Messages       []oaMessage `json:"messages"`
	MaxCompletion  int         `json:"max_completion_tokens,omitempty"` // OpenAI's name since the o1 models
	MaxTokens      int         `json:"max_tokens,omitempty"`            // what Ollama, vLLM and LM Studio read
	ResponseFormat any         `json:"response_format"`
}

type oaResponse struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Choices []struct {
		Message struct {
			Content   *string      `json:"content"`
			Refusal   *string      `json:"refusal"`
			ToolCalls []oaToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

// Body returns the JSON body Complete sends, for --dry-run.
func (o *OpenAI) Body(req Request) ([]byte, error) {
	r := oaRequest{Model: req.Model,
		Messages: []oaMessage{{Role: "system", Content: req.System}},
		ResponseFormat: map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": req.SchemaName, "strict": true, "schema": req.Schema}},
	}
	if o.Name() == "openai" {
		r.MaxCompletion = req.MaxTokens
	} else {
		r.MaxTokens = req.MaxTokens
	}
	for _, m := range req.Messages {
		text := m.Text
		if m.Role == "assistant" && m.ToolInput != nil {
			text = string(m.ToolInput)
		}
		r.Messages = append(r.Messages, oaMessage{Role: m.Role, Content: text})
	}
	return json.Marshal(r)
}

// Complete sends one chat completion.
func (o *OpenAI) Complete(ctx context.Context, req Request) (*Response, error) {
	body, err := o.Body(req)
	if err != nil {
		return nil, err
	}
	url := strings.TrimRight(o.BaseURL, "/") + "/chat/completions"
	redact := redactor(o.APIKey)
	name := o.Name()
	raw, hdr, err := do(ctx, &o.HTTP, name, func() (*http.Request, error) {
		r, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Content-Type", "application/json")
		if o.APIKey != "" {
			r.Header.Set("Authorization", "Bearer "+o.APIKey)
		}
		return r, nil
	}, func(status int, hdr http.Header, body []byte) *httpretry.APIError {
		return httpretry.DecodeOpenAIError(name, status, hdr, body)
	}, redact)
	if err != nil {
		return nil, err
	}
	out, err := decodeOpenAI(raw, name)
	if err != nil {
		return nil, errors.New(redact(err.Error()))
	}
	out.RequestID = hdr.Get("x-request-id")
	return out, nil
}

// decodeOpenAI reads a chat completion: the first choice's content, or its
// first tool call's arguments.
func decodeOpenAI(raw []byte, name string) (*Response, error) {
	var or oaResponse
	if err := json.Unmarshal(raw, &or); err != nil {
		return nil, fmt.Errorf("%s: decode response: %w: %s", name, err, httpretry.Excerpt(raw))
	}
	if len(or.Choices) == 0 {
		return nil, fmt.Errorf("%s: response without choices: %s", name, httpretry.Excerpt(raw))
	}
	ch := or.Choices[0]
	cached := or.Usage.PromptTokensDetails.CachedTokens
	out := &Response{RawStop: ch.FinishReason, Usage: Usage{
		Input: or.Usage.PromptTokens - cached, Output: or.Usage.CompletionTokens, CacheRead: cached,
	}}
	switch ch.FinishReason {
	case "length":
		out.StopReason = StopMaxTokens
	case "stop", "tool_calls":
		out.StopReason = StopEnd
	default:
		out.StopReason = StopOther
	}
	switch {
	case ch.Message.Refusal != nil && *ch.Message.Refusal != "":
		return nil, fmt.Errorf("%s: the model refused: %s", name, *ch.Message.Refusal)
	case len(ch.Message.ToolCalls) > 0:
		out.JSON = json.RawMessage(ch.Message.ToolCalls[0].Function.Arguments)
	case ch.Message.Content != nil:
		out.JSON = json.RawMessage(stripFence(*ch.Message.Content))
	}
	return out, nil
}
