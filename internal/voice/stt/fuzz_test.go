package stt

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// FuzzAnswers: whatever a speech-to-text provider answers (any body, any
// status), both clients return a transcript or an error, never panic, and
// a 2xx answer they accept has times and words that came from it.
func FuzzAnswers(f *testing.F) {
	for _, s := range []string{
		`{"metadata":{"request_id":"r","duration":1.5,"models":["m"]},"results":{"channels":[{"alternatives":[{"transcript":"hi","confidence":0.9,"words":[{"word":"hi","start":0.1,"end":0.4,"confidence":0.9}]}]}],"utterances":[{"start":0,"end":1,"transcript":"hi"}]}}`,
		`{"text":" hello ","language":"english","duration":1.2,"words":[{"word":"hello","start":0,"end":0.5}],"segments":[{"start":0,"end":1,"text":"hello","avg_logprob":-0.2}]}`,
		`{"err_code":"Bad Request","err_msg":"bad","request_id":"r"}`, `{"error":{"message":"no","type":"invalid_request_error","code":42}}`,
		`{"results":{"channels":[]}}`, `{"segments":[{"start":1e308,"end":-1e308,"avg_logprob":1e308}]}`, ``, `null`, `[`, "\xff",
	} {
		f.Add(s, uint16(200))
		f.Add(s, uint16(400))
	}
	var mu sync.Mutex
	var body []byte
	var status int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b, st := body, status
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st)
		_, _ = w.Write(b)
	}))
	f.Cleanup(func() { srv.Client().CloseIdleConnections(); srv.Close() })
	h := HTTP{Client: srv.Client(), MaxRetries: 0, Timeout: 2 * time.Second}
	wav := testWAV(1600)
	providers := []Provider{
		&Deepgram{HTTP: h, BaseURL: srv.URL, APIKey: "k", ModelName: "nova-3"},
		&OpenAI{HTTP: h, BaseURL: srv.URL + "/v1", APIKey: "k", ModelName: "whisper-1"},
	}
	f.Fuzz(func(t *testing.T, answer string, code uint16) {
		st := 200 + int(code)%400 // 200-599
		if st == 204 || st == 304 || st/100 == 1 {
			st = 200
		}
		mu.Lock()
		body, status = []byte(answer), st
		mu.Unlock()
		for _, p := range providers {
			tr, err := p.Transcribe(context.Background(), wav, Options{Language: "en"})
			if err != nil {
				if tr != nil {
					t.Fatalf("%s: a transcript and an error", p.Name())
				}
				continue
			}
			if st/100 != 2 {
				t.Fatalf("%s: HTTP %s accepted as a transcript", p.Name(), strconv.Itoa(st))
			}
			if tr == nil {
				t.Fatalf("%s: no transcript and no error", p.Name())
			}
		}
	})
}
