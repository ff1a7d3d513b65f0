package httpretry

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/redact"
)

// APIError is an error answer from a provider (language model, speech to
// text, embeddings). Its text never holds a secret: Do masks the message
// with redact.String before the caller sees it.
type APIError struct {
	Provider   string // who answered: "anthropic", "openai", "deepgram", "embeddings"
	Status     int
	Type       string // the provider's class of error (invalid_request_error)
	Code       string // its finer code, when it sends one (context_length_exceeded); printed in place of Type
	Message    string // the provider's message, or an excerpt of the body
	RequestID  string
	RetryAfter time.Duration // the server's Retry-After, 0 without one
	// Hint says what to do, in place of the one the status implies
	// (401/403: check the API key setting).
	Hint string
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: HTTP %d", e.Provider, e.Status)
	if c := cmp(e.Code, e.Type); c != "" {
		fmt.Fprintf(&b, " %s", c)
	}
	if msg := cmp(e.Message, http.StatusText(e.Status)); msg != "" {
		fmt.Fprintf(&b, ": %s", msg)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " (request %s)", e.RequestID)
	}
	hint := e.Hint
	if hint == "" && e.Auth() {
		hint = "check the API key setting"
	}
	if hint != "" {
		b.WriteString(": " + hint)
	}
	return b.String()
}

// cmp is the first of a, b that is not empty.
func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Retryable reports whether trying again later may succeed (RetryableStatus).
func (e *APIError) Retryable() bool { return RetryableStatus(e.Status) }

// Auth reports a rejected key: trying again, or another item, cannot help.
func (e *APIError) Auth() bool {
	return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
}

// ErrUnavailable is a provider that could not be reached, or kept failing,
// for every retry: exit 4, try again later. Every provider client's
// give-up error wraps it (Unavailable), so the exit code needs no
// re-labelling in the commands.
var ErrUnavailable = exitcode.AsUnavailable(errors.New("provider unavailable"))

// Unavailable turns the *GaveUp of a call to provider into an error
// wrapping ErrUnavailable: "provider unavailable: openai: HTTP 503 … (after
// 3 attempts)". Any other error is returned as it is.
func Unavailable(provider string, err error) error {
	g, ok := errors.AsType[*GaveUp](err)
	if !ok {
		return err
	}
	what := g.Err.Error()
	if _, named := errors.AsType[*APIError](g.Err); !named {
		what = provider + ": " + what
	}
	return fmt.Errorf("%w: %s (after %d attempts)", ErrUnavailable, what, g.Attempts)
}

// maxExcerpt is how much of an unreadable body an error quotes.
const maxExcerpt = 300

// Excerpt is the start of a body to quote in an error: trimmed, cut at a
// character boundary, secrets masked.
func Excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > maxExcerpt {
		cut := maxExcerpt
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return redact.String(s)
}

// DecodeOpenAIError reads the error body of OpenAI and of the servers that
// copy its API: {"error": {"message", "type", "code"}}, {"error": "text"}
// (Ollama) and {"detail": …} (vLLM and other FastAPI servers). Anything
// else is quoted (Excerpt).
func DecodeOpenAIError(provider string, status int, hdr http.Header, body []byte) *APIError {
	e := &APIError{Provider: provider, Status: status, RequestID: hdr.Get("X-Request-Id")}
	var wire struct {
		Error  json.RawMessage `json:"error"`
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &wire) == nil {
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"` // a string, a number or null
		}
		var s string
		switch {
		case json.Unmarshal(wire.Error, &obj) == nil && obj.Message != "":
			e.Message, e.Type = obj.Message, obj.Type
			if c, ok := obj.Code.(string); ok {
				e.Code = c
			}
		case json.Unmarshal(wire.Error, &s) == nil:
			e.Message = s
		case json.Unmarshal(wire.Detail, &s) == nil:
			e.Message = s
		case len(wire.Detail) > 0:
			e.Message = string(wire.Detail)
		}
	}
	if e.Message == "" {
		e.Message = Excerpt(body)
	}
	return e
}
