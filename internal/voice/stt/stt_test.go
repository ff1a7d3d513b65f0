package stt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/httpretry"
)

// testWAV is a 16 kHz mono 16-bit WAV of n samples: a tone, with silence in the middle third.
func testWAV(n int) []byte {
	pcm := make([]int16, n)
	for i := range pcm {
		if i < n/3 || i >= 2*n/3 {
			pcm[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/16000))
		}
	}
	return append(wavHeader(n, 16000), pcmBytes(pcm)...)
}

// recorder keeps what the retry loop asked to wait, without waiting.
type recorder struct {
	mu     sync.Mutex
	sleeps []time.Duration
}

func (r *recorder) sleep(_ context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sleeps = append(r.sleeps, d)
	return nil
}

// deepgramOK is the shape of a real /v1/listen answer with utterances and diarisation.
const deepgramOK = `{
  "metadata": {
    "transaction_key": "deprecated",
    "request_id": "5f0c2f7e-2b8e-4b7a-9d59-0c3f3c1a9e11",
    "sha256": "1f2d0c3f7e0a1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aab",
    "created": "2026-11-01T12:00:00.000Z",
    "duration": 3.2543,
    "channels": 1,
    "models": ["2187e11a-3532-4498-b076-81fa530bdd49"],
    "model_info": {"2187e11a-3532-4498-b076-81fa530bdd49": {"name": "general-nova-3", "version": "2025-01-01.0", "arch": "nova-3"}}
  },
  "results": {
    "channels": [{
      "alternatives": [{
        "transcript": "Call the dentist at nine, then buy oat milk.",
        "confidence": 0.9951172,
        "words": [
          {"word": "call", "start": 0.08, "end": 0.32, "confidence": 0.99, "speaker": 0, "speaker_confidence": 0.8, "punctuated_word": "Call"},
          {"word": "the", "start": 0.32, "end": 0.44, "confidence": 0.98, "speaker": 0, "speaker_confidence": 0.8, "punctuated_word": "the"},
          {"word": "dentist", "start": 0.44, "end": 0.96, "confidence": 0.97, "speaker": 0, "speaker_confidence": 0.8, "punctuated_word": "dentist"}
        ],
        "paragraphs": {"transcript": "\nCall the dentist at nine, then buy oat milk.", "paragraphs": []}
      }]
    }],
    "utterances": [{
      "start": 0.08, "end": 3.1, "confidence": 0.98, "channel": 0,
      "transcript": "Call the dentist at nine, then buy oat milk.",
      "words": [], "speaker": 0, "id": "0b7a8d3e-0000-4000-8000-000000000001"
    }]
  }
}`

func deepgramServer(t *testing.T, handler func(w http.ResponseWriter, r *http.Request, n int)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	n := &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := int(n.Add(1))
		// what Deepgram checks
		if r.Method != http.MethodPost || r.URL.Path != "/v1/listen" {
			http.Error(w, `{"err_code":"NOT_FOUND","err_msg":"not found"}`, http.StatusNotFound)
			return
		}
		if r.Header.Get("Authorization") != "Token dg-secret" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"err_code":"INVALID_AUTH","err_msg":"Invalid credentials.","request_id":"r-auth"}`)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Type") != "audio/wav" || string(body[:4]) != "RIFF" || string(body[8:12]) != "WAVE" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"category":"INVALID_DATA","message":"Bad Request: failed to process audio: corrupt or unsupported data","details":"","request_id":"r-data"}`)
			return
		}
		handler(w, r, k)
	}))
	t.Cleanup(srv.Close)
	return srv, n
}

func TestDeepgramTranscribe(t *testing.T) {
	var query string
	srv, n := deepgramServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		query = r.URL.RawQuery
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("dg-request-id", "5f0c2f7e-2b8e-4b7a-9d59-0c3f3c1a9e11")
		io.WriteString(w, deepgramOK)
	})
	dg := &Deepgram{BaseURL: srv.URL, APIKey: "dg-secret"}
	tr, err := dg.Transcribe(context.Background(), testWAV(1600), Options{Language: "en", SmartFormat: true, Punctuate: true, Diarize: true, Utterances: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "diarize=true&language=en&model=nova-3&punctuate=true&smart_format=true&utterances=true"; query != want {
		t.Errorf("query %q, want %q", query, want)
	}
	if n.Load() != 1 || tr.Text != "Call the dentist at nine, then buy oat milk." || *tr.Confidence != 0.9951172 {
		t.Errorf("transcript %+v after %d requests", tr, n.Load())
	}
	if tr.RequestID != "5f0c2f7e-2b8e-4b7a-9d59-0c3f3c1a9e11" || tr.Duration != 3.2543 || len(tr.Models) != 1 || tr.Language != "en" {
		t.Errorf("metadata %+v", tr)
	}
	w := tr.Words[2]
	if len(tr.Words) != 3 || w.Word != "dentist" || w.PunctuatedWord != "dentist" || w.Start != 0.44 || w.End != 0.96 || *w.Confidence != 0.97 || *w.Speaker != 0 {
		t.Errorf("words %+v", tr.Words)
	}
	if len(tr.Utterances) != 1 || tr.Utterances[0].End != 3.1 || *tr.Utterances[0].Speaker != 0 {
		t.Errorf("utterances %+v", tr.Utterances)
	}
}

func TestDeepgramDetectLanguageAndModel(t *testing.T) {
	srv, _ := deepgramServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if got := r.URL.Query(); got.Get("detect_language") != "true" || got.Get("model") != "nova-2" || got.Has("language") {
			t.Errorf("query %v", got)
		}
		io.WriteString(w, strings.Replace(deepgramOK, `"alternatives"`, `"detected_language": "de", "language_confidence": 0.97, "alternatives"`, 1))
	})
	dg := &Deepgram{BaseURL: srv.URL, APIKey: "dg-secret", ModelName: "nova-2"}
	tr, err := dg.Transcribe(context.Background(), testWAV(160), Options{DetectLanguage: true})
	if err != nil || tr.Language != "de" {
		t.Fatalf("%v, language %q", err, tr.Language)
	}
}

func TestDeepgramErrorShapes(t *testing.T) {
	srv, n := deepgramServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {})
	for _, c := range []struct {
		key  string
		wav  []byte
		want string
	}{
		{"wrong", testWAV(160), "deepgram: HTTP 401 INVALID_AUTH: Invalid credentials. (request r-auth): check the API key setting"},
		{"dg-secret", []byte("not audio at all"), "deepgram: HTTP 400 INVALID_DATA: Bad Request: failed to process audio: corrupt or unsupported data (request r-data)"},
	} {
		n.Store(0)
		rec := &recorder{}
		dg := &Deepgram{BaseURL: srv.URL, APIKey: c.key, HTTP: HTTP{MaxRetries: 3, Sleep: rec.sleep}}
		_, err := dg.Transcribe(context.Background(), c.wav, Options{})
		var api *httpretry.APIError
		if !errors.As(err, &api) || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
		if n.Load() != 1 || len(rec.sleeps) != 0 {
			t.Errorf("%d requests, %d waits: a %d must not be retried", n.Load(), len(rec.sleeps), api.Status)
		}
	}
}

func TestRetryAfter429ThenSuccess(t *testing.T) {
	srv, n := deepgramServer(t, func(w http.ResponseWriter, r *http.Request, k int) {
		if k == 1 {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"err_code":"TOO_MANY_REQUESTS","err_msg":"Too many requests. Please try again later","request_id":"r-429"}`)
			return
		}
		io.WriteString(w, deepgramOK)
	})
	rec := &recorder{}
	dg := &Deepgram{BaseURL: srv.URL, APIKey: "dg-secret", HTTP: HTTP{MaxRetries: 3, Sleep: rec.sleep}}
	tr, err := dg.Transcribe(context.Background(), testWAV(160), Options{})
	if err != nil || tr.Text == "" {
		t.Fatal(err)
	}
	if n.Load() != 2 || len(rec.sleeps) != 1 || rec.sleeps[0] != 7*time.Second {
		t.Errorf("%d requests, waits %v: want one wait of the 7 s Retry-After", n.Load(), rec.sleeps)
	}
}

func TestServerErrorsRetriedThenSuccess(t *testing.T) {
	srv, n := deepgramServer(t, func(w http.ResponseWriter, r *http.Request, k int) {
		if k <= 2 {
			w.WriteHeader([]int{http.StatusBadGateway, http.StatusServiceUnavailable}[k-1])
			io.WriteString(w, `{"category":"INTERNAL_SERVER_ERROR","message":"Internal server error","details":"try again","request_id":"r-5xx"}`)
			return
		}
		io.WriteString(w, deepgramOK)
	})
	rec := &recorder{}
	dg := &Deepgram{BaseURL: srv.URL, APIKey: "dg-secret", HTTP: HTTP{MaxRetries: 3, Backoff: time.Second, Sleep: rec.sleep}}
	if _, err := dg.Transcribe(context.Background(), testWAV(160), Options{}); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 3 || len(rec.sleeps) != 2 || rec.sleeps[0] > time.Second || rec.sleeps[1] < time.Second || rec.sleeps[1] > 2*time.Second {
		t.Errorf("%d requests, waits %v: want 3 requests and two growing backoffs", n.Load(), rec.sleeps)
	}
}

func TestRetriesExhaustedAndTimeout(t *testing.T) {
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	srv, n := deepgramServer(t, func(w http.ResponseWriter, r *http.Request, k int) {
		if k%2 == 0 {
			select { // slower than the client's timeout
			case <-r.Context().Done():
			case <-block:
			}
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
	})
	rec := &recorder{}
	dg := &Deepgram{BaseURL: srv.URL, APIKey: "dg-secret", HTTP: HTTP{MaxRetries: 3, Timeout: 100 * time.Millisecond, Sleep: rec.sleep}}
	_, err := dg.Transcribe(context.Background(), testWAV(160), Options{})
	if !errors.Is(err, httpretry.ErrUnavailable) || n.Load() != 4 {
		t.Errorf("error %v after %d requests, want ErrUnavailable after 4", err, n.Load())
	}
}

// openaiServer checks a multipart request as /v1/audio/transcriptions does and
// answers verbose_json: one word per request, at 0.25 s into the piece it got.
func openaiServer(t *testing.T, maxUpload int) (*httptest.Server, *[]int) {
	t.Helper()
	var mu sync.Mutex
	var sizes []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("x-request-id", fmt.Sprintf("req_%d", len(sizes)+1))
		fail := func(status int, msg string) {
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error","param":null,"code":null}}`, msg)
		}
		if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/transcriptions" {
			fail(http.StatusNotFound, "Invalid URL")
			return
		}
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			return
		}
		if err := r.ParseMultipartForm(64 << 20); err != nil {
			fail(http.StatusBadRequest, "Could not parse multipart form")
			return
		}
		f, fh, err := r.FormFile("file")
		if err != nil {
			fail(http.StatusBadRequest, "Missing file")
			return
		}
		audio, _ := io.ReadAll(f)
		if fh.Filename != "audio.wav" || fh.Header.Get("Content-Type") != "audio/wav" || string(audio[:4]) != "RIFF" {
			fail(http.StatusBadRequest, "Invalid file format.")
			return
		}
		if len(audio) > maxUpload {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			io.WriteString(w, `{"error":{"message":"Maximum content size limit (26214400) exceeded","type":"invalid_request_error","param":null,"code":null}}`)
			return
		}
		v := r.MultipartForm.Value
		if v["model"][0] != "whisper-1" || v["response_format"][0] != "verbose_json" || strings.Join(v["timestamp_granularities[]"], ",") != "word,segment" || v["language"][0] != "en" {
			fail(http.StatusBadRequest, fmt.Sprintf("unexpected fields %v", v))
			return
		}
		mu.Lock()
		sizes = append(sizes, len(audio))
		k := len(sizes)
		mu.Unlock()
		dur := float64(len(audio)-44) / 32000
		json.NewEncoder(w).Encode(map[string]any{
			"task": "transcribe", "language": "english", "duration": dur, "text": fmt.Sprintf(" Piece %d.", k),
			"segments": []map[string]any{{"id": 0, "seek": 0, "start": 0.0, "end": dur, "text": fmt.Sprintf(" Piece %d.", k),
				"tokens": []int{50364, 1234}, "temperature": 0.0, "avg_logprob": -0.105, "compression_ratio": 0.8, "no_speech_prob": 0.01}},
			"words": []map[string]any{{"word": fmt.Sprintf(" piece%d", k), "start": 0.25, "end": 0.5}},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &sizes
}

func TestOpenAITranscribe(t *testing.T) {
	srv, sizes := openaiServer(t, 1<<20)
	o := &OpenAI{BaseURL: srv.URL + "/v1", APIKey: "sk-test"}
	tr, err := o.Transcribe(context.Background(), testWAV(16000), Options{Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if len(*sizes) != 1 || tr.Text != "Piece 1." || tr.RequestID != "req_1" || tr.Language != "english" || len(tr.Words) != 1 || tr.Words[0].Word != "piece1" {
		t.Errorf("%+v", tr)
	}
	if c := *tr.Confidence; math.Abs(c-math.Exp(-0.105)) > 1e-9 {
		t.Errorf("confidence %v", c)
	}
	o.APIKey = "sk-wrong"
	_, err = o.Transcribe(context.Background(), testWAV(1600), Options{Language: "en"})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401 invalid_api_key: Incorrect API key provided") || !strings.Contains(err.Error(), "check the API key") {
		t.Errorf("401: %v", err)
	}
}

func TestOpenAISplitsLongAudioAtSilence(t *testing.T) {
	const limit = 40000 // bytes: 48000 samples (96 kB) need three pieces
	srv, sizes := openaiServer(t, limit)
	o := &OpenAI{BaseURL: srv.URL + "/v1/", APIKey: "sk-test", MaxUpload: limit}
	wav := testWAV(48000)
	tr, err := o.Transcribe(context.Background(), wav, Options{Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, s := range *sizes {
		if s > limit {
			t.Errorf("piece of %d bytes over the %d limit", s, limit)
		}
		total += s - 44
	}
	if total != len(wav)-44 || len(*sizes) != 3 {
		t.Errorf("%d pieces carrying %d bytes of %d", len(*sizes), total, len(wav)-44)
	}
	if tr.Text != "Piece 1. Piece 2. Piece 3." || len(tr.Words) != 3 || tr.RequestID != "req_1,req_2,req_3" {
		t.Errorf("stitched %+v", tr)
	}
	// words are shifted by their piece's start, and the cuts fall in the silent middle third
	pieces := SplitAtSilence(mustPCM(t, wav), 16000, (limit-44)/2)
	for i, w := range tr.Words {
		if math.Abs(w.Start-(pieces[i].Start+0.25)) > 1e-9 {
			t.Errorf("word %d at %.3f s, piece starts at %.3f s", i, w.Start, pieces[i].Start)
		}
	}
	if cut := pieces[1].Start; cut < 1.0 || cut > 2.0 {
		t.Errorf("first cut at %.3f s, want inside the silence from 1 s to 2 s", cut)
	}
}

func mustPCM(t *testing.T, wav []byte) []int16 {
	pcm, _, err := pcmOf(wav)
	if err != nil {
		t.Fatal(err)
	}
	return pcm
}
