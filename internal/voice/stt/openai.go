package stt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/helixhq/helix/internal/httpretry"
)

// OpenAI is the /v1/audio/transcriptions API as OpenAI, whisper.cpp's server
// and faster-whisper servers speak it.
type OpenAI struct {
	HTTP
	BaseURL   string // up to and including /v1, e.g. https://api.openai.com/v1
	APIKey    string // may be empty for a self-hosted server
	ModelName string
	// MaxUpload is the largest file the server accepts (OpenAI: 25 MB). Longer
	// audio is cut at its quietest moments into pieces below it, and the pieces'
	// transcripts are stitched together with their times shifted.
	MaxUpload int
}

// OpenAI defaults: whisper-1 is the model that returns verbose_json with word times.
const (
	OpenAIDefaultModel     = "whisper-1"
	OpenAIDefaultMaxUpload = 25 << 20
)

func (o *OpenAI) Name() string { return "openai" }
func (o *OpenAI) Model() string {
	if o.ModelName == "" {
		return OpenAIDefaultModel
	}
	return o.ModelName
}

type oaResponse struct {
	Language string  `json:"language"`
	Duration float64 `json:"duration"`
	Text     string  `json:"text"`
	Segments []struct {
		Start      float64 `json:"start"`
		End        float64 `json:"end"`
		Text       string  `json:"text"`
		AvgLogprob float64 `json:"avg_logprob"`
	} `json:"segments"`
	Words []struct {
		Word  string  `json:"word"`
		Start float64 `json:"start"`
		End   float64 `json:"end"`
	} `json:"words"`
}

// Transcribe sends wav (16 kHz mono 16-bit, as voice.Convert makes it), split if it is over MaxUpload.
func (o *OpenAI) Transcribe(ctx context.Context, wav []byte, opts Options) (*Transcript, error) {
	limit := o.MaxUpload
	if limit <= 0 {
		limit = OpenAIDefaultMaxUpload
	}
	if len(wav) <= limit {
		return o.one(ctx, wav, opts)
	}
	pcm, rate, err := pcmOf(wav)
	if err != nil {
		return nil, err
	}
	out := &Transcript{Words: []Word{}}
	var confSum, confDur float64
	for _, piece := range SplitAtSilence(pcm, rate, (limit-44)/2) {
		t, err := o.one(ctx, append(wavHeader(len(piece.PCM), rate), pcmBytes(piece.PCM)...), opts)
		if err != nil {
			return nil, fmt.Errorf("piece at %.1f s: %w", piece.Start, err)
		}
		out.Text = strings.TrimSpace(out.Text + " " + t.Text)
		out.Language = t.Language
		out.RequestID = strings.TrimPrefix(out.RequestID+","+t.RequestID, ",")
		out.Duration += t.Duration
		for _, w := range t.Words {
			w.Start += piece.Start
			w.End += piece.Start
			out.Words = append(out.Words, w)
		}
		for _, u := range t.Utterances {
			u.Start += piece.Start
			u.End += piece.Start
			out.Utterances = append(out.Utterances, u)
		}
		if t.Confidence != nil {
			confSum += *t.Confidence * t.Duration
			confDur += t.Duration
		}
	}
	if confDur > 0 {
		c := confSum / confDur
		out.Confidence = &c
	}
	out.Models = []string{o.Model()}
	return out, nil
}

func (o *OpenAI) one(ctx context.Context, wav []byte, opts Options) (*Transcript, error) {
	base := strings.TrimRight(o.BaseURL, "/")
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="audio.wav"`)
	h.Set("Content-Type", "audio/wav")
	fw, err := mw.CreatePart(h)
	if err != nil {
		return nil, err
	}
	fw.Write(wav)
	fields := [][2]string{{"model", o.Model()}, {"response_format", "verbose_json"},
		{"timestamp_granularities[]", "word"}, {"timestamp_granularities[]", "segment"}}
	if opts.Language != "" {
		fields = append(fields, [2]string{"language", opts.Language})
	}
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	build := func() (*http.Request, error) {
		req, err := http.NewRequest(http.MethodPost, base+"/audio/transcriptions", bytes.NewReader(body.Bytes()))
		if err != nil {
			return nil, err
		}
		if o.APIKey != "" {
			req.Header.Set("Authorization", "Bearer "+o.APIKey)
		}
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Accept", "application/json")
		return req, nil
	}
	raw, hdr, err := do(ctx, &o.HTTP, "openai", build, openAIError)
	if err != nil {
		return nil, err
	}
	var r oaResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("openai: unreadable answer: %v: %s", err, httpretry.Excerpt(raw))
	}
	t := &Transcript{
		Text: strings.TrimSpace(r.Text), Language: r.Language, Duration: r.Duration,
		RequestID: hdr.Get("X-Request-Id"), Models: []string{o.Model()}, Words: []Word{},
	}
	for _, w := range r.Words {
		t.Words = append(t.Words, Word{Word: strings.TrimSpace(w.Word), Start: w.Start, End: w.End})
	}
	// confidence: the segments' mean token probability, weighted by their length
	var sum, dur float64
	for _, s := range r.Segments {
		p := math.Exp(s.AvgLogprob)
		t.Utterances = append(t.Utterances, Utterance{Start: s.Start, End: s.End, Confidence: &p, Transcript: strings.TrimSpace(s.Text)})
		sum += p * (s.End - s.Start)
		dur += s.End - s.Start
	}
	if dur > 0 {
		c := sum / dur
		t.Confidence = &c
	}
	return t, nil
}

// openAIError reads {"error": {"message", "type", "param", "code"}}.
func openAIError(status int, hdr http.Header, body []byte) *httpretry.APIError {
	a := httpretry.DecodeOpenAIError("openai", status, hdr, body)
	a.Hint = uploadHint(status)
	return a
}

// pcmOf returns the samples of a 16-bit mono PCM WAV with a 44-byte header.
func pcmOf(wav []byte) ([]int16, int, error) {
	if len(wav) < 44 || string(wav[:4]) != "RIFF" || string(wav[36:40]) != "data" ||
		binary.LittleEndian.Uint16(wav[22:]) != 1 || binary.LittleEndian.Uint16(wav[34:]) != 16 {
		return nil, 0, errors.New("openai: splitting needs 16-bit mono PCM WAV with a plain header")
	}
	b := wav[44:]
	pcm := make([]int16, len(b)/2)
	for i := range pcm {
		pcm[i] = int16(binary.LittleEndian.Uint16(b[i*2:]))
	}
	return pcm, int(binary.LittleEndian.Uint32(wav[24:])), nil
}

func pcmBytes(pcm []int16) []byte {
	b := make([]byte, 2*len(pcm))
	for i, v := range pcm {
		binary.LittleEndian.PutUint16(b[i*2:], uint16(v))
	}
	return b
}

func wavHeader(samples, rate int) []byte {
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+2*samples))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1)
	binary.LittleEndian.PutUint16(h[22:], 1)
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(2*rate))
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(2*samples))
	return h
}

// Piece is a stretch of audio cut from a longer recording.
type Piece struct {
	Start float64 // seconds from the start of the recording
	PCM   []int16
}

// SplitAtSilence cuts pcm into pieces of at most maxSamples, each cut placed
// at the quietest 100 ms in the last quarter of the piece, so words are not split.
func SplitAtSilence(pcm []int16, rate, maxSamples int) []Piece {
	var out []Piece
	win := max(1, rate/10)
	for start := 0; start < len(pcm); {
		end := start + maxSamples
		if end >= len(pcm) {
			out = append(out, Piece{Start: float64(start) / float64(rate), PCM: pcm[start:]})
			break
		}
		best, bestE := end, math.Inf(1)
		for w := end - win; w >= start+maxSamples*3/4; w -= win / 2 {
			var e float64
			for _, v := range pcm[w : w+win] {
				e += float64(v) * float64(v)
			}
			if e < bestE {
				best, bestE = w+win/2, e
			}
		}
		out = append(out, Piece{Start: float64(start) / float64(rate), PCM: pcm[start:best]})
		start = best
	}
	return out
}
