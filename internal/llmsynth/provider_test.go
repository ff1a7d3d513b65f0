package llmsynth

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/llmsynth/llmtest"
)

const testKey = "sk-ant-api03-TESTKEY0123456789abcdefghijklmnopqrstuvwxyz"

func request() Request {
	return Request{Model: "claude-haiku-4-5", System: SystemPrompt, SchemaName: toolName, Schema: Schema(Types, true), MaxTokens: 1024,
		Messages: []Message{{Role: "user", Text: "brief [m1] [m2]"}}}
}

// recordSleep replaces waiting with a record of the waits.
func recordSleep(waits *[]time.Duration) func(context.Context, time.Duration) error {
	return func(_ context.Context, d time.Duration) error { *waits = append(*waits, d); return nil }
}

func anthropicClient(s *llmtest.Server, key string, waits *[]time.Duration) *Anthropic {
	return &Anthropic{HTTP: HTTP{Client: s.Client(), MaxRetries: 2, Sleep: recordSleep(waits)}, BaseURL: s.URL, APIKey: key}
}

func openAIClient(s *llmtest.Server, key string, waits *[]time.Duration) *OpenAI {
	return &OpenAI{HTTP: HTTP{Client: s.Client(), MaxRetries: 2, Sleep: recordSleep(waits)}, BaseURL: s.URL + "/v1", APIKey: key}
}

var usage = llmtest.Usage{Input: 1000, Output: 200, CacheRead: 300, CacheWrite: 50}

func TestAnthropicWireFormat(t *testing.T) {
	answer := llmtest.Answer(Types, "m1")
	answerJSON, _ := json.Marshal(answer)
	cases := []struct {
		name     string
		replies  []llmtest.Reply
		wantStop string
		wantErr  string
		waits    []time.Duration
	}{
		{name: "tool use", replies: []llmtest.Reply{{Body: llmtest.AnthropicToolUse(toolName, answer, usage)}}, wantStop: StopEnd},
		{name: "normal text answer", replies: []llmtest.Reply{{Body: llmtest.AnthropicText("```json\n"+string(answerJSON)+"\n```", "end_turn", usage)}}, wantStop: StopEnd},
		{name: "max_tokens", replies: []llmtest.Reply{{Body: llmtest.AnthropicText(`{"emotional_patterns": [{"tit`, "max_tokens", usage)}}, wantStop: StopMaxTokens},
		{name: "429 with retry-after then success", replies: []llmtest.Reply{
			{Status: 429, Header: map[string]string{"retry-after": "7"}, Body: llmtest.AnthropicError("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")},
			{Body: llmtest.AnthropicToolUse(toolName, answer, usage)}}, wantStop: StopEnd, waits: []time.Duration{7 * time.Second}},
		{name: "529 overloaded every time", replies: []llmtest.Reply{
			{Status: 529, Body: llmtest.AnthropicError("overloaded_error", "Overloaded")}},
			wantErr: "provider unavailable: anthropic: HTTP 529 overloaded_error: Overloaded (after 3 attempts)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := llmtest.NewAnthropic(t, testKey, func(call llmtest.Call) llmtest.Reply { return c.replies[min(call.N, len(c.replies)-1)] })
			var waits []time.Duration
			resp, err := anthropicClient(s, testKey, &waits).Complete(context.Background(), request())
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr || !errors.Is(err, httpretry.ErrUnavailable) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				if len(waits) != 2 {
					t.Fatalf("waits %v: want 2 backoffs", waits)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != c.wantStop {
				t.Fatalf("stop %q, want %q", resp.StopReason, c.wantStop)
			}
			if c.waits != nil && (len(waits) != 1 || waits[0] != c.waits[0]) {
				t.Fatalf("waits %v, want %v", waits, c.waits)
			}
			want := Usage{Input: 1000, Output: 200, CacheRead: 300, CacheWrite: 50}
			if resp.Usage != want {
				t.Fatalf("usage %+v, want %+v", resp.Usage, want)
			}
			if c.wantStop == StopEnd {
				var got map[string]any
				if err := json.Unmarshal(resp.JSON, &got); err != nil || len(got) != 4 {
					t.Fatalf("answer %s: %v", resp.JSON, err)
				}
			}
			// The request as the API sees it: system prompt with a cache breakpoint, forced tool.
			body := s.Calls()[0].Parsed
			sys := body["system"].([]any)[0].(map[string]any)
			if sys["cache_control"].(map[string]any)["type"] != "ephemeral" || sys["text"] != SystemPrompt {
				t.Fatalf("system block %v", sys)
			}
			if tc := body["tool_choice"].(map[string]any); tc["type"] != "tool" || tc["name"] != toolName {
				t.Fatalf("tool_choice %v", tc)
			}
		})
	}
}

func TestAnthropic401NeverEchoesKey(t *testing.T) {
	s := llmtest.NewAnthropic(t, testKey, func(llmtest.Call) llmtest.Reply { t.Fatal("unreachable"); return llmtest.Reply{} })
	var waits []time.Duration
	wrong := "sk-ant-api03-WRONGKEY0123456789abcdefghijklmnopqrstuv"
	_, err := anthropicClient(s, wrong, &waits).Complete(context.Background(), request())
	var api *httpretry.APIError
	if !errors.As(err, &api) || !api.Auth() || len(waits) != 0 {
		t.Fatalf("err %v, waits %v: want a 401 APIError without retries", err, waits)
	}
	want := "anthropic: HTTP 401 authentication_error: invalid x-api-key (request req_401): check the API key setting"
	if err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}

func TestOpenAIWireFormat(t *testing.T) {
	key := "sk-proj-OPENAITESTKEY0123456789abcdefghij"
	answer, _ := json.Marshal(llmtest.Answer(Types, "m2"))
	cases := []struct {
		name     string
		replies  []llmtest.Reply
		wantStop string
		wantErr  string
	}{
		{name: "content", replies: []llmtest.Reply{{Body: llmtest.OpenAIContent(string(answer), "stop", usage)}}, wantStop: StopEnd},
		{name: "tool call", replies: []llmtest.Reply{{Body: llmtest.OpenAIToolCall(toolName, string(answer), usage)}}, wantStop: StopEnd},
		{name: "length", replies: []llmtest.Reply{{Body: llmtest.OpenAIContent(`{"emotional_pat`, "length", usage)}}, wantStop: StopMaxTokens},
		{name: "429 then success", replies: []llmtest.Reply{
			{Status: 429, Header: map[string]string{"Retry-After": "2"}, Body: llmtest.OpenAIError("requests", "Rate limit reached", "rate_limit_exceeded")},
			{Body: llmtest.OpenAIContent(string(answer), "stop", usage)}}, wantStop: StopEnd},
		{name: "503 every time", replies: []llmtest.Reply{{Status: 503, Body: llmtest.OpenAIError("server_error", "The engine is currently overloaded", "")}},
			wantErr: "provider unavailable: openai: HTTP 503 server_error: The engine is currently overloaded (after 3 attempts)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := llmtest.NewOpenAI(t, key, func(call llmtest.Call) llmtest.Reply { return c.replies[min(call.N, len(c.replies)-1)] })
			var waits []time.Duration
			resp, err := openAIClient(s, key, &waits).Complete(context.Background(), request())
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != c.wantStop {
				t.Fatalf("stop %q, want %q", resp.StopReason, c.wantStop)
			}
			// prompt_tokens include the cached ones; Usage.Input does not.
			if want := (Usage{Input: 1000, Output: 200, CacheRead: 300}); resp.Usage != want {
				t.Fatalf("usage %+v, want %+v", resp.Usage, want)
			}
			if strings.HasPrefix(c.name, "429") && (len(waits) != 1 || waits[0] != 2*time.Second) {
				t.Fatalf("waits %v", waits)
			}
			body := s.Calls()[0].Parsed
			rf := body["response_format"].(map[string]any)
			if rf["type"] != "json_schema" || rf["json_schema"].(map[string]any)["strict"] != true {
				t.Fatalf("response_format %v", rf)
			}
			if body["max_completion_tokens"] != 1024.0 || body["messages"].([]any)[0].(map[string]any)["role"] != "system" {
				t.Fatalf("body %v", body)
			}
		})
	}
}

func TestOpenAI401RedactsEchoedKey(t *testing.T) {
	s := llmtest.NewOpenAI(t, "sk-proj-RIGHTKEY0123456789abcdefghijklmnop", nil)
	wrong := "sk-proj-WRONGKEY0123456789abcdefghijklmnop"
	var waits []time.Duration
	_, err := openAIClient(s, wrong, &waits).Complete(context.Background(), request())
	var api *httpretry.APIError
	if !errors.As(err, &api) || !api.Auth() {
		t.Fatalf("err %v", err)
	}
	// The fake server echoes the key as a careless proxy would; helix must not.
	if strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), wrong[:12]) {
		t.Fatalf("error echoes the key: %v", err)
	}
	if !strings.Contains(err.Error(), "HTTP 401 invalid_api_key: Incorrect API key provided: [REDACTED]") {
		t.Fatalf("error %q", err)
	}
}

func TestOllamaSendsMaxTokensWithoutKey(t *testing.T) {
	answer, _ := json.Marshal(llmtest.Answer([]string{NarrativeThemes}, "m1"))
	s := llmtest.NewOpenAI(t, "", func(llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Body: llmtest.OpenAIContent(string(answer), "stop", llmtest.Usage{Input: 10, Output: 5})}
	})
	o := &OpenAI{HTTP: HTTP{Client: s.Client()}, BaseURL: s.URL + "/v1", Provider: "ollama"}
	if _, err := o.Complete(context.Background(), request()); err != nil {
		t.Fatal(err)
	}
	c := s.Calls()[0]
	if c.Parsed["max_tokens"] != 1024.0 || c.Parsed["max_completion_tokens"] != nil {
		t.Fatalf("body %s", c.Body)
	}
}

// TestAnthropicEchoedKeyIsMaskedAsEverywhere: Anthropic's errors get the
// one mask spelling of package redact, as OpenAI's, Deepgram's, URLs' and
// tools' do.
func TestAnthropicEchoedKeyIsMaskedAsEverywhere(t *testing.T) {
	const key = "sk-ant-api03-ECHOED0123456789abcdefghijklmnop"
	s := llmtest.NewAnthropic(t, key, func(llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Status: 400, Body: llmtest.AnthropicError("invalid_request_error", "header x-api-key "+key+" (prefix "+key[:12]+") is malformed")}
	})
	var waits []time.Duration
	_, err := anthropicClient(s, key, &waits).Complete(context.Background(), request())
	if err == nil || strings.Contains(err.Error(), key) || strings.Contains(err.Error(), key[:12]) {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(err.Error(), "header x-api-key [REDACTED] (prefix [REDACTED]) is malformed") {
		t.Errorf("error %q: the key is not masked as [REDACTED]", err)
	}
}
