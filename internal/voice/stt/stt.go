// Package stt sends 16 kHz mono WAV audio to speech-to-text services
// (Deepgram's pre-recorded API and OpenAI-compatible transcription servers)
// and returns their transcripts in one shape.
package stt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/helixhq/helix/internal/netguard"
)

// Word is one recognised word with its timing in seconds from the start of the audio.
type Word struct {
	Word           string   `json:"word"`
	Start          float64  `json:"start"`
	End            float64  `json:"end"`
	Confidence     *float64 `json:"confidence,omitempty"`
	Speaker        *int     `json:"speaker,omitempty"`
	PunctuatedWord string   `json:"punctuated_word,omitempty"`
}

// Utterance is a stretch of speech by one speaker (Deepgram) or a segment (OpenAI).
type Utterance struct {
	Start      float64  `json:"start"`
	End        float64  `json:"end"`
	Confidence *float64 `json:"confidence,omitempty"`
	Speaker    *int     `json:"speaker,omitempty"`
	Transcript string   `json:"transcript"`
}

// Transcript is a provider's answer.
type Transcript struct {
	Text       string      `json:"transcript"`
	Confidence *float64    `json:"confidence,omitempty"`
	Language   string      `json:"language,omitempty"`
	Words      []Word      `json:"words"`
	Utterances []Utterance `json:"utterances,omitempty"`
	RequestID  string      `json:"request_id,omitempty"`
	Duration   float64     `json:"duration,omitempty"`
	Models     []string    `json:"models,omitempty"`
}

// Options are the per-request settings both providers understand (each ignores what it cannot do).
type Options struct {
	Language       string // BCP-47 code such as "en"; empty: the provider's default
	DetectLanguage bool
	Diarize        bool
	Utterances     bool
	SmartFormat    bool
	Punctuate      bool
}

// Provider transcribes one 16 kHz mono 16-bit WAV file.
type Provider interface {
	Name() string
	Model() string
	Transcribe(ctx context.Context, wav []byte, opts Options) (*Transcript, error)
}

// APIError is an error answer from a provider.
type APIError struct {
	Provider  string
	Status    int
	Code      string
	Message   string
	RequestID string
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: HTTP %d", e.Provider, e.Status)
	if e.Code != "" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " (request %s)", e.RequestID)
	}
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		b.WriteString(": check the API key")
	case http.StatusRequestEntityTooLarge:
		b.WriteString(": the file is over the provider's upload limit")
	}
	return b.String()
}

// Retryable reports whether trying again later may succeed.
func (e *APIError) Retryable() bool {
	return e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// ErrUnavailable wraps failures after every retry: the provider could not be reached or kept failing.
var ErrUnavailable = errors.New("provider unavailable")

// HTTP is what both providers share: a client, per-attempt timeout and retries.
type HTTP struct {
	Client     *http.Client
	Timeout    time.Duration // per attempt; 0: none beyond ctx
	MaxRetries int           // after the first attempt
	Backoff    time.Duration // first wait; doubles, with jitter, up to MaxBackoff
	MaxBackoff time.Duration
	// Sleep waits between attempts; tests replace it to see the waits without taking them.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (h *HTTP) sleep(ctx context.Context, d time.Duration) error {
	if h.Sleep != nil {
		return h.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// maxBody caps a provider's answer: transcripts of hours of speech stay far below it.
const maxBody = 64 << 20

// do sends the request build makes, retrying 429 and 5xx answers and network
// errors with exponential backoff, or after the Retry-After the server asks for.
// decodeErr turns an error body into an *APIError.
func (h *HTTP) do(ctx context.Context, provider string, build func() (*http.Request, error), decodeErr func(status int, hdr http.Header, body []byte) *APIError) ([]byte, http.Header, error) {
	backoff := h.Backoff
	if backoff <= 0 {
		backoff = 500 * time.Millisecond
	}
	maxBackoff := h.MaxBackoff
	if maxBackoff <= 0 {
		maxBackoff = 30 * time.Second
	}
	var last error
	for attempt := 0; ; attempt++ {
		body, hdr, wait, err := h.once(ctx, build, decodeErr)
		if err == nil {
			return body, hdr, nil
		}
		last = err
		var api *APIError
		if errors.As(err, &api) && !api.Retryable() {
			return nil, nil, err
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if attempt >= h.MaxRetries {
			return nil, nil, fmt.Errorf("%w: %s: %v (after %d attempts)", ErrUnavailable, provider, last, attempt+1)
		}
		if wait <= 0 {
			wait = backoff/2 + rand.N(backoff/2+1)
			backoff = min(2*backoff, maxBackoff)
		}
		if err := h.sleep(ctx, min(wait, 5*time.Minute)); err != nil {
			return nil, nil, err
		}
	}
}

func (h *HTTP) once(ctx context.Context, build func() (*http.Request, error), decodeErr func(int, http.Header, []byte) *APIError) ([]byte, http.Header, time.Duration, error) {
	if h.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.Timeout)
		defer cancel()
	}
	req, err := build()
	if err != nil {
		return nil, nil, 0, err
	}
	client := h.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		return nil, nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, nil, 0, err
	}
	if resp.StatusCode/100 == 2 {
		return body, resp.Header, 0, nil
	}
	return nil, nil, netguard.RetryAfter(resp.Header.Get("Retry-After")), decodeErr(resp.StatusCode, resp.Header, body)
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
