// Package llmtest runs local servers that speak the Anthropic Messages API
// and OpenAI's chat completions as the real services do: they check the
// request (path, headers, key, body shape) and answer with the real
// response and error shapes, from a script the test gives.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
)

// Reply is one scripted answer.
type Reply struct {
	Status int
	Header map[string]string
	Body   any // marshalled to JSON
}

// Call is one request the server received.
type Call struct {
	N      int // 0-based
	Body   []byte
	Parsed map[string]any
}

// Server is a fake provider.
type Server struct {
	*httptest.Server
	Key string

	mu     sync.Mutex
	calls  []Call
	script func(c Call) Reply
	t      testing.TB
	check  func(r *http.Request, body map[string]any) *Reply
}

// Calls returns the requests received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// SetScript replaces the script.
func (s *Server) SetScript(f func(c Call) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = f
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("llmtest: read body: %v", err)
		return
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		write(w, Reply{Status: 400, Body: map[string]any{"error": "bad json"}})
		return
	}
	if rep := s.check(r, body); rep != nil {
		write(w, *rep)
		return
	}
	s.mu.Lock()
	c := Call{N: len(s.calls), Body: raw, Parsed: body}
	s.calls = append(s.calls, c)
	script := s.script
	s.mu.Unlock()
	write(w, script(c))
}

func write(w http.ResponseWriter, r Reply) {
	for k, v := range r.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	if r.Status == 0 {
		r.Status = 200
	}
	w.WriteHeader(r.Status)
	_ = json.NewEncoder(w).Encode(r.Body)
}

// NewAnthropic starts a Messages API server with key.
func NewAnthropic(t testing.TB, key string, script func(c Call) Reply) *Server {
	s := &Server{Key: key, script: script, t: t}
	s.check = func(r *http.Request, body map[string]any) *Reply {
		switch {
		case r.Method != http.MethodPost || r.URL.Path != "/v1/messages":
			return &Reply{Status: 404, Body: AnthropicError("not_found_error", "Not found")}
		case r.Header.Get("x-api-key") != key:
			return &Reply{Status: 401, Header: map[string]string{"request-id": "req_401"}, Body: AnthropicError("authentication_error", "invalid x-api-key")}
		case r.Header.Get("anthropic-version") == "":
			return &Reply{Status: 400, Body: AnthropicError("invalid_request_error", "anthropic-version: header is required")}
		}
		if msg := checkAnthropicBody(body); msg != "" {
			return &Reply{Status: 400, Body: AnthropicError("invalid_request_error", msg)}
		}
		return nil
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// checkAnthropicBody checks what the real API rejects with 400.
func checkAnthropicBody(b map[string]any) string {
	if m, _ := b["model"].(string); m == "" {
		return "model: Field required"
	}
	if n, _ := b["max_tokens"].(float64); n < 1 {
		return "max_tokens: Field required"
	}
	msgs, _ := b["messages"].([]any)
	if len(msgs) == 0 {
		return "messages: at least one message is required"
	}
	lastToolUse := ""
	for i, m := range msgs {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if role != want {
			return fmt.Sprintf("messages.%d: roles must alternate between user and assistant", i)
		}
		content, _ := mm["content"].([]any)
		if len(content) == 0 {
			return fmt.Sprintf("messages.%d: content must be non-empty", i)
		}
		for _, c := range content {
			cc, _ := c.(map[string]any)
			switch cc["type"] {
			case "tool_use":
				lastToolUse, _ = cc["id"].(string)
			case "tool_result":
				if id, _ := cc["tool_use_id"].(string); id == "" || id != lastToolUse {
					return fmt.Sprintf("messages.%d: tool_result block(s) provided when previous message does not have tool_use block with id %v", i, cc["tool_use_id"])
				}
			}
		}
	}
	if tc, ok := b["tool_choice"].(map[string]any); ok && tc["type"] == "tool" {
		found := false
		tools, _ := b["tools"].([]any)
		for _, t := range tools {
			if tm, _ := t.(map[string]any); tm["name"] == tc["name"] {
				if _, ok := tm["input_schema"].(map[string]any); !ok {
					return "tools.0.input_schema: Field required"
				}
				found = true
			}
		}
		if !found {
			return "tool_choice: tool not found"
		}
	}
	return ""
}

// AnthropicError is the Messages API's error body.
func AnthropicError(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

// Usage is a response's token counts.
type Usage struct{ Input, Output, CacheRead, CacheWrite int64 }

func anthropicMessage(content []any, stop string, u Usage) map[string]any {
	return map[string]any{"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.Input, "output_tokens": u.Output,
			"cache_creation_input_tokens": u.CacheWrite, "cache_read_input_tokens": u.CacheRead}}
}

// AnthropicToolUse answers with a tool_use block carrying input.
func AnthropicToolUse(tool string, input any, u Usage) map[string]any {
	return anthropicMessage([]any{map[string]any{"type": "tool_use", "id": "toolu_01", "name": tool, "input": input}}, "tool_use", u)
}

// AnthropicText answers with a text block.
func AnthropicText(text, stop string, u Usage) map[string]any {
	return anthropicMessage([]any{map[string]any{"type": "text", "text": text}}, stop, u)
}

// NewOpenAI starts a chat completions server at /v1 with key ("" accepts any).
func NewOpenAI(t testing.TB, key string, script func(c Call) Reply) *Server {
	s := &Server{Key: key, script: script, t: t}
	s.check = func(r *http.Request, body map[string]any) *Reply {
		switch {
		case r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions":
			return &Reply{Status: 404, Body: OpenAIError("invalid_request_error", "Unknown request URL", "unknown_url")}
		case key != "" && r.Header.Get("Authorization") != "Bearer "+key:
			return &Reply{Status: 401, Header: map[string]string{"x-request-id": "req_401"},
				Body: OpenAIError("invalid_request_error", "Incorrect API key provided: "+r.Header.Get("Authorization")[min(7, len(r.Header.Get("Authorization"))):]+".", "invalid_api_key")}
		}
		if m, _ := body["model"].(string); m == "" {
			return &Reply{Status: 400, Body: OpenAIError("invalid_request_error", "you must provide a model parameter", "")}
		}
		if msgs, _ := body["messages"].([]any); len(msgs) == 0 {
			return &Reply{Status: 400, Body: OpenAIError("invalid_request_error", "messages: empty array", "")}
		}
		rf, _ := body["response_format"].(map[string]any)
		if rf != nil && rf["type"] == "json_schema" {
			js, _ := rf["json_schema"].(map[string]any)
			if n, _ := js["name"].(string); n == "" {
				return &Reply{Status: 400, Body: OpenAIError("invalid_request_error", "Missing required parameter: 'response_format.json_schema.name'.", "missing_required_parameter")}
			}
			if _, ok := js["schema"].(map[string]any); !ok {
				return &Reply{Status: 400, Body: OpenAIError("invalid_request_error", "Invalid schema", "")}
			}
		}
		return nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.handle)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// OpenAIError is the chat completions error body.
func OpenAIError(typ, msg, code string) map[string]any {
	var c any
	if code != "" {
		c = code
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": c}}
}

func openAICompletion(msg map[string]any, finish string, u Usage) map[string]any {
	return map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1735689600, "model": "gpt-4o-mini",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": u.Input + u.CacheRead, "completion_tokens": u.Output,
			"total_tokens": u.Input + u.CacheRead + u.Output, "prompt_tokens_details": map[string]any{"cached_tokens": u.CacheRead}}}
}

// OpenAIContent answers with message content.
func OpenAIContent(content, finish string, u Usage) map[string]any {
	return openAICompletion(map[string]any{"role": "assistant", "content": content, "refusal": nil}, finish, u)
}

// OpenAIToolCall answers with a function call whose arguments are args.
func OpenAIToolCall(name, args string, u Usage) map[string]any {
	return openAICompletion(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
		map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": args}}}}, "tool_calls", u)
}

// RequestedTypes are the pattern types a request asks for: the required
// members of the answer schema (Anthropic's tool input_schema or OpenAI's
// response_format schema).
func RequestedTypes(c Call) []string {
	var schema map[string]any
	if tools, ok := c.Parsed["tools"].([]any); ok && len(tools) > 0 {
		schema, _ = tools[0].(map[string]any)["input_schema"].(map[string]any)
	} else if rf, ok := c.Parsed["response_format"].(map[string]any); ok {
		js, _ := rf["json_schema"].(map[string]any)
		schema, _ = js["schema"].(map[string]any)
	}
	req, _ := schema["required"].([]any)
	out := make([]string, 0, len(req))
	for _, r := range req {
		if s, ok := r.(string); ok && s != "summary" { // full_synthesis's summary is not a type
			out = append(out, s)
		}
	}
	return out
}

var shortID = regexp.MustCompile(`\[(m\d+)\]`)

// ShortIDs lists the memory ids quoted in a request body, in order.
func ShortIDs(body []byte) []string {
	var ids []string
	seen := map[string]bool{}
	for _, m := range shortID.FindAllSubmatch(body, -1) {
		if s := string(m[1]); !seen[s] {
			seen[s] = true
			ids = append(ids, s)
		}
	}
	return ids
}

// Answer builds a valid answer for types citing evidence.
func Answer(types []string, evidence ...string) map[string]any {
	out := map[string]any{}
	for _, t := range types {
		item := map[string]any{"title": "a " + t + " pattern", "description": "seen across several memories",
			"confidence": 0.8, "evidence": evidence, "recommendations": []string{"notice it"}}
		switch t {
		case "emotional_patterns":
			item["trigger"], item["response"], item["valence"] = "deadlines", "withdrawal", "negative"
		case "prospective_self":
			item["self"], item["vision"] = "ideal", "a calmer self"
		case "relational_dynamics":
			item["relationship"], item["dynamic"] = "a sibling", "seeks approval"
		case "narrative_themes":
			item["theme"], item["arc"] = "growth", "redemption"
		case "full_synthesis":
			item["layer"], item["lineages"] = "emotional_memory", []string{"L1"}
			out["summary"] = "A person whose work deadlines weigh on their mood, steadied by family."
		}
		out[t] = []any{item}
	}
	return out
}
