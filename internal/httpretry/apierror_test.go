package httpretry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/helixhq/helix/internal/redact"
)

// TestAPIErrorFromTheWire: an OpenAI-format error answer becomes one
// APIError with the server's Retry-After, its request id, and every
// registered secret the server echoed masked; a 400 is not retried.
func TestAPIErrorFromTheWire(t *testing.T) {
	const key = "sk-apierror-test-0123456789"
	redact.Add(key)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_7")
		w.Header().Set("Retry-After", "9")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect key ` + key + `","type":"invalid_request_error","code":"invalid_api_key","param":null}}`))
	}))
	t.Cleanup(s.Close)
	var waits []time.Duration
	_, _, err := caller(s, 3, &waits).Do(context.Background(), 1<<10, get(s.URL), func(status int, hdr http.Header, body []byte) error {
		return DecodeOpenAIError("openai", status, hdr, body)
	})
	api, ok := errors.AsType[*APIError](err)
	if !ok || len(waits) != 0 {
		t.Fatalf("err %v after %d waits: want an APIError at once", err, len(waits))
	}
	if api.RetryAfter != 9*time.Second || api.RequestID != "req_7" || api.Type != "invalid_request_error" || api.Code != "invalid_api_key" {
		t.Errorf("%+v", api)
	}
	if want := "openai: HTTP 400 invalid_api_key: Incorrect key [REDACTED] (request req_7)"; err.Error() != want {
		t.Errorf("text %q\nwant %q", err, want)
	}
	if Unavailable("openai", err) != err {
		t.Error("an answer that was not retried became unavailable")
	}
}

func TestAPIErrorText(t *testing.T) {
	for _, c := range []struct {
		e    APIError
		want string
	}{
		{APIError{Provider: "anthropic", Status: 401, Type: "authentication_error", Message: "invalid x-api-key", RequestID: "r1"},
			"anthropic: HTTP 401 authentication_error: invalid x-api-key (request r1): check the API key setting"},
		{APIError{Provider: "embeddings", Status: 503}, "embeddings: HTTP 503: Service Unavailable"},
		{APIError{Provider: "deepgram", Status: 413, Code: "PAYLOAD_TOO_LARGE", Message: "too big", Hint: "the file is over the provider's upload limit"},
			"deepgram: HTTP 413 PAYLOAD_TOO_LARGE: too big: the file is over the provider's upload limit"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%q\nwant %q", got, c.want)
		}
	}
}

// TestUnavailableNamesTheProviderOnce: a give-up after an APIError (which
// names its provider) and after a network error both read as one line that
// names the provider once, and both carry the unavailable class.
func TestUnavailableNamesTheProviderOnce(t *testing.T) {
	api := &GaveUp{Err: &APIError{Provider: "deepgram", Status: 502}, Attempts: 4}
	net := &GaveUp{Err: errors.New("dial tcp: connection refused"), Attempts: 2}
	for _, c := range []struct {
		err  error
		want string
	}{
		{Unavailable("deepgram", api), "provider unavailable: deepgram: HTTP 502: Bad Gateway (after 4 attempts)"},
		{Unavailable("deepgram", net), "provider unavailable: deepgram: dial tcp: connection refused (after 2 attempts)"},
	} {
		if c.err.Error() != c.want || !errors.Is(c.err, ErrUnavailable) {
			t.Errorf("%q\nwant %q, wrapping ErrUnavailable", c.err, c.want)
		}
	}
}

func TestDecodeOpenAIErrorShapes(t *testing.T) {
	for _, c := range []struct{ body, msg, typ, code string }{
		{`{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`,
			"This model's maximum context length is 8192 tokens", "invalid_request_error", "context_length_exceeded"},
		{`{"error":{"message":"rate limited","type":"requests","code":429}}`, "rate limited", "requests", ""},
		{`{"error":"model \"x\" not found, try pulling it first"}`, `model "x" not found, try pulling it first`, "", ""},
		{`{"detail":"Not Found"}`, "Not Found", "", ""},
		{`{"detail":[{"loc":["body","input"],"msg":"field required"}]}`, `[{"loc":["body","input"],"msg":"field required"}]`, "", ""},
		{"<html>bad gateway</html>", "<html>bad gateway</html>", "", ""},
	} {
		e := DecodeOpenAIError("embeddings", 400, nil, []byte(c.body))
		if e.Message != c.msg || e.Type != c.typ || e.Code != c.code {
			t.Errorf("%s: %+v", c.body, e)
		}
	}
}

func TestExcerptCutsAtACharacter(t *testing.T) {
	s := Excerpt([]byte(strings.Repeat("é", 400)))
	if !utf8.ValidString(s) || !strings.HasSuffix(s, "…") || len(s) > maxExcerpt+len("…") {
		t.Errorf("%d bytes, valid %v", len(s), utf8.ValidString(s))
	}
}

func FuzzDecodeOpenAIError(f *testing.F) {
	f.Add([]byte(`{"error":{"message":"m","type":"t","code":"c"}}`))
	f.Add([]byte(`{"error":"text"}`))
	f.Add([]byte(`{"detail":{"a":1}}`))
	f.Add([]byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, body []byte) {
		e := DecodeOpenAIError("p", 500, nil, body)
		if e.Status != 500 || !e.Retryable() || !strings.HasPrefix(e.Error(), "p: HTTP 500") {
			t.Fatalf("%+v", e)
		}
		if e.Message == "" && len(strings.TrimSpace(string(body))) > 0 {
			t.Fatalf("no message from %q", body)
		}
	})
}
