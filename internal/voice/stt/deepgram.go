package stt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/helixhq/helix/internal/httpretry"
)

// Deepgram is the pre-recorded transcription API (POST /v1/listen).
type Deepgram struct {
	HTTP
	BaseURL   string // https://api.deepgram.com
	APIKey    string
	ModelName string // always sent: Deepgram's own default is "base"
}

// DeepgramDefaultModel is helix's default; Deepgram's server-side default is the older "base".
const DeepgramDefaultModel = "nova-3"

func (d *Deepgram) Name() string { return "deepgram" }
func (d *Deepgram) Model() string {
	if d.ModelName == "" {
		return DeepgramDefaultModel
	}
	return d.ModelName
}

type dgWord struct {
	Word           string   `json:"word"`
	Start          float64  `json:"start"`
	End            float64  `json:"end"`
	Confidence     *float64 `json:"confidence"`
	Speaker        *int     `json:"speaker"`
	PunctuatedWord string   `json:"punctuated_word"`
}

type dgResponse struct {
	Metadata struct {
		RequestID string   `json:"request_id"`
		Duration  float64  `json:"duration"`
		Models    []string `json:"models"`
	} `json:"metadata"`
	Results struct {
		Channels []struct {
			DetectedLanguage string `json:"detected_language"`
			Alternatives     []struct {
				Transcript string   `json:"transcript"`
				Confidence *float64 `json:"confidence"`
				Words      []dgWord `json:"words"`
			} `json:"alternatives"`
		} `json:"channels"`
		Utterances []struct {
			Start      float64  `json:"start"`
			End        float64  `json:"end"`
			Confidence *float64 `json:"confidence"`
			Speaker    *int     `json:"speaker"`
			Transcript string   `json:"transcript"`
		} `json:"utterances"`
	} `json:"results"`
}

// Transcribe posts the WAV bytes as the raw request body.
func (d *Deepgram) Transcribe(ctx context.Context, wav []byte, opts Options) (*Transcript, error) {
	base := strings.TrimRight(d.BaseURL, "/")
	if base == "" {
		base = "https://api.deepgram.com"
	}
	q := url.Values{}
	q.Set("model", d.Model())
	if opts.SmartFormat {
		q.Set("smart_format", "true")
	}
	if opts.Punctuate {
		q.Set("punctuate", "true")
	}
	if opts.Language != "" {
		q.Set("language", opts.Language)
	} else if opts.DetectLanguage {
		q.Set("detect_language", "true")
	}
	if opts.Diarize {
		q.Set("diarize", "true")
	}
	if opts.Utterances {
		q.Set("utterances", "true")
	}
	endpoint := base + "/v1/listen?" + q.Encode()
	build := func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(wav))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Token "+d.APIKey)
		req.Header.Set("Content-Type", "audio/wav")
		req.Header.Set("Accept", "application/json")
		return req, nil
	}
	body, _, err := do(ctx, &d.HTTP, "deepgram", build, deepgramError)
	if err != nil {
		return nil, err
	}
	var r dgResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("deepgram: unreadable answer: %v: %s", err, httpretry.Excerpt(body))
	}
	if len(r.Results.Channels) == 0 || len(r.Results.Channels[0].Alternatives) == 0 {
		return nil, fmt.Errorf("deepgram: answer has no channels or alternatives (request %s)", r.Metadata.RequestID)
	}
	ch := r.Results.Channels[0]
	alt := ch.Alternatives[0]
	t := &Transcript{
		Text: alt.Transcript, Confidence: alt.Confidence, Language: ch.DetectedLanguage,
		RequestID: r.Metadata.RequestID, Duration: r.Metadata.Duration, Models: r.Metadata.Models,
		Words: make([]Word, len(alt.Words)),
	}
	if t.Language == "" {
		t.Language = opts.Language
	}
	for i, w := range alt.Words {
		t.Words[i] = Word(w)
	}
	for _, u := range r.Results.Utterances {
		t.Utterances = append(t.Utterances, Utterance(u))
	}
	return t, nil
}

// deepgramError reads both shapes of Deepgram's error body:
// {err_code, err_msg, request_id} and {category, message, details, request_id}.
func deepgramError(status int, _ http.Header, body []byte) *httpretry.APIError {
	var e struct {
		ErrCode   string `json:"err_code"`
		ErrMsg    string `json:"err_msg"`
		Category  string `json:"category"`
		Message   string `json:"message"`
		Details   string `json:"details"`
		RequestID string `json:"request_id"`
	}
	a := &httpretry.APIError{Provider: "deepgram", Status: status, Hint: uploadHint(status)}
	if json.Unmarshal(body, &e) != nil {
		a.Message = httpretry.Excerpt(body)
		return a
	}
	a.RequestID = e.RequestID
	switch {
	case e.ErrCode != "" || e.ErrMsg != "":
		a.Code, a.Message = e.ErrCode, e.ErrMsg
	default:
		a.Code, a.Message = e.Category, e.Message
		if e.Details != "" && e.Details != e.Message {
			a.Message += ": " + e.Details
		}
	}
	return a
}
