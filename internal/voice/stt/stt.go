// Package stt sends 16 kHz mono WAV audio to speech-to-text services
// (Deepgram's pre-recorded API and OpenAI-compatible transcription servers)
// and returns their transcripts in one shape.
package stt

import (
	"context"
	"net/http"

	"github.com/helixhq/helix/internal/httpretry"
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

// HTTP is what both providers share: a client, per-attempt timeout and retries.
type HTTP = httpretry.Caller

// maxBody caps a provider's answer: transcripts of hours of speech stay far below it.
const maxBody = 64 << 20

// do sends the request build makes through h, retrying 429 and 5xx answers
// and network errors; after the last retry the error wraps
// httpretry.ErrUnavailable. decodeErr turns an error body into an *APIError.
func do(ctx context.Context, h *HTTP, provider string, build func() (*http.Request, error), decodeErr func(status int, hdr http.Header, body []byte) *httpretry.APIError) ([]byte, http.Header, error) {
	body, hdr, err := h.Do(ctx, maxBody, build, func(status int, hdr http.Header, body []byte) error {
		return decodeErr(status, hdr, body)
	})
	return body, hdr, httpretry.Unavailable(provider, err)
}

// uploadHint says what a 413 means for a transcription: the file, not the
// request's settings, is too large.
func uploadHint(status int) string {
	if status == http.StatusRequestEntityTooLarge {
		return "the file is over the provider's upload limit"
	}
	return ""
}
