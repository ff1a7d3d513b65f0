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

// AnthropicVersion is the anthropic-version header helix speaks.
const AnthropicVersion = "2023-06-01"

// Anthropic speaks the Messages API (POST /v1/messages). The answer comes back
// as the input of a forced tool call, so its shape is the tool's input_schema;
// the system prompt (with the tool definition before it) carries a
// cache_control breakpoint so that every user after the first reads it from
// the prompt cache.
type Anthropic struct {
	HTTP
	BaseURL string // up to, not including, /v1
	APIKey  string
}

// Name is the provider id as the catalog writes it.
func (a *Anthropic) Name() string { return "anthropic" }

type anthContent struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Cache     *cacheControl   `json:"cache_control,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"`
}

type anthMessage struct {
	Role    string        `json:"role"`
	Content []anthContent `json:"content"`
}

type anthTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"input_schema"`
}

type anthRequest struct {
	Model      string            `json:"model"`
	MaxTokens  int               `json:"max_tokens"`
	System     []anthContent     `json:"system"`
	Messages   []anthMessage     `json:"messages"`
	Tools      []anthTool        `json:"tools"`
	ToolChoice map[string]string `json:"tool_choice"`
}

type anthResponse struct {
	ID         string        `json:"id"`
	Type       string        `json:"type"`
	Content    []anthContent `json:"content"`
	StopReason string        `json:"stop_reason"`
	Usage      struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// Body returns the JSON body Complete sends, for --dry-run.
func (a *Anthropic) Body(req Request) ([]byte, error) {
	r := anthRequest{
		Model: req.Model, MaxTokens: req.MaxTokens,
		System:     []anthContent{{Type: "text", Text: req.System, Cache: &cacheControl{Type: "ephemeral"}}},
		Tools:      []anthTool{{Name: req.SchemaName, Description: "Record the patterns found in the brief.", InputSchema: req.Schema}},
		ToolChoice: map[string]string{"type": "tool", "name": req.SchemaName},
	}
	for _, m := range req.Messages {
		var c []anthContent
		switch {
		case m.Role == "assistant" && m.ToolUseID != "":
			c = []anthContent{{Type: "tool_use", ID: m.ToolUseID, Name: req.SchemaName, Input: m.ToolInput}}
		case m.Role == "user" && m.ToolUseID != "":
			c = []anthContent{{Type: "tool_result", ToolUseID: m.ToolUseID, Content: m.Text, IsError: m.IsError}}
		default:
			c = []anthContent{{Type: "text", Text: m.Text}}
		}
		r.Messages = append(r.Messages, anthMessage{Role: m.Role, Content: c})
	}
	return json.Marshal(r)
}

// Complete sends one Messages request.
func (a *Anthropic) Complete(ctx context.Context, req Request) (*Response, error) {
	body, err := a.Body(req)
	if err != nil {
		return nil, err
	}
	url := strings.TrimRight(a.BaseURL, "/") + "/v1/messages"
	redact := redactor(a.APIKey)
	raw, hdr, err := do(ctx, &a.HTTP, a.Name(), func() (*http.Request, error) {
		r, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		r.Header.Set("content-type", "application/json")
		r.Header.Set("anthropic-version", AnthropicVersion)
		r.Header.Set("x-api-key", a.APIKey)
		return r, nil
	}, decodeAnthropicError, redact)
	if err != nil {
		return nil, err
	}
	out, err := decodeAnthropic(raw, req.SchemaName)
	if err != nil {
		return nil, errors.New(redact(err.Error()))
	}
	out.RequestID = hdr.Get("request-id")
	return out, nil
}

// decodeAnthropic reads a Messages response: the named tool's input is the
// answer; without a tool call, the text is.
func decodeAnthropic(raw []byte, tool string) (*Response, error) {
	var ar anthResponse
	if err := json.Unmarshal(raw, &ar); err != nil {
		return nil, fmt.Errorf("anthropic: decode response: %w: %s", err, httpretry.Excerpt(raw))
	}
	if ar.Type != "message" {
		return nil, fmt.Errorf("anthropic: response of type %q, want message: %s", ar.Type, httpretry.Excerpt(raw))
	}
	out := &Response{RawStop: ar.StopReason, Usage: Usage{
		Input: ar.Usage.InputTokens, Output: ar.Usage.OutputTokens,
		CacheRead: ar.Usage.CacheReadInputTokens, CacheWrite: ar.Usage.CacheCreationInputTokens,
	}}
	switch ar.StopReason {
	case "max_tokens":
		out.StopReason = StopMaxTokens
	case "end_turn", "tool_use", "stop_sequence":
		out.StopReason = StopEnd
	default:
		out.StopReason = StopOther
	}
	var text strings.Builder
	for _, c := range ar.Content {
		switch c.Type {
		case "tool_use":
			if out.JSON == nil && c.Name == tool {
				out.JSON, out.ToolUseID = c.Input, c.ID
			}
		case "text":
			text.WriteString(c.Text)
		}
	}
	if out.JSON == nil { // no tool call: the model answered in text
		out.JSON = json.RawMessage(stripFence(text.String()))
	}
	return out, nil
}

// decodeAnthropicError reads {"type":"error","error":{"type":…,"message":…}}.
func decodeAnthropicError(status int, hdr http.Header, body []byte) *httpretry.APIError {
	e := &httpretry.APIError{Provider: "anthropic", Status: status, RequestID: hdr.Get("request-id")}
	var eb struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &eb) == nil && eb.Type == "error" {
		e.Type, e.Message = eb.Error.Type, eb.Error.Message
	} else {
		e.Message = httpretry.Excerpt(body)
	}
	return e
}

// stripFence removes a ```json … ``` fence some models put around JSON.
func stripFence(s string) string {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		rest = strings.TrimPrefix(rest, "json")
		if body, ok := strings.CutSuffix(strings.TrimSpace(rest), "```"); ok {
			return strings.TrimSpace(body)
		}
	}
	return s
}
