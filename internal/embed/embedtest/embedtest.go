// Package embedtest runs a local server that speaks OpenAI's POST
// /v1/embeddings as the real service does: it checks the request (path,
// method, key, content type, model, input count, encoding format) and
// answers with the real response and error shapes.
package embedtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Server is a local embeddings provider. Set the fields before Start.
type Server struct {
	Key   string // the bearer token it requires; "" accepts a request without one
	Model string // the model it serves; "" serves any
	Dim   int    // the length of the vectors it makes (default 8)
	// MaxInputBytes refuses a longer input with OpenAI's 400
	// "maximum context length"; 0 is no limit.
	MaxInputBytes int
	// Before, when it returns true, has answered the request itself (an
	// error, a held answer); n counts the requests from 1.
	Before func(w http.ResponseWriter, r *http.Request, n int64) bool

	URL      string // the base URL to configure, up to and including /v1
	Requests atomic.Int64
	Inputs   atomic.Int64

	mu     sync.Mutex
	seen   []string
	models []string
}

// Start starts s, closed when the test ends.
func Start(t testing.TB, s *Server) *Server {
	if s.Dim <= 0 {
		s.Dim = 8
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	s.URL = ts.URL + "/v1"
	return s
}

// Seen is every input the server embedded, in the order received.
func (s *Server) Seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// Models is the model of every request answered, in order.
func (s *Server) Models() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.models...)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.Requests.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		Error(w, http.StatusNotFound, "invalid_request_error", "", fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path))
		return
	}
	if s.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.Key {
		Error(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided")
		return
	}
	if s.Before != nil && s.Before(w, r, n) {
		return
	}
	var req struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		EncodingFormat string   `json:"encoding_format"`
	}
	if r.Header.Get("Content-Type") != "application/json" {
		Error(w, http.StatusBadRequest, "invalid_request_error", "", "Content-Type must be application/json")
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" || len(req.Input) == 0 || len(req.Input) > 2048 ||
		req.EncodingFormat != "" && req.EncodingFormat != "float" {
		Error(w, http.StatusBadRequest, "invalid_request_error", "", fmt.Sprintf("bad request: %v", err))
		return
	}
	if s.Model != "" && req.Model != s.Model {
		Error(w, http.StatusNotFound, "invalid_request_error", "model_not_found", fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model))
		return
	}
	for _, in := range req.Input {
		if s.MaxInputBytes > 0 && len(in) > s.MaxInputBytes {
			Error(w, http.StatusBadRequest, "invalid_request_error", "", fmt.Sprintf("This model's maximum context length is 8192 tokens, however you requested %d tokens (%d in your prompt; 0 for the completion). Please reduce your prompt; or completion length.", len(in), len(in)))
			return
		}
	}
	s.Inputs.Add(int64(len(req.Input)))
	s.mu.Lock()
	s.seen = append(s.seen, req.Input...)
	s.models = append(s.models, req.Model)
	s.mu.Unlock()
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	resp := struct {
		Object string         `json:"object"`
		Data   []item         `json:"data"`
		Model  string         `json:"model"`
		Usage  map[string]int `json:"usage"`
	}{Object: "list", Model: req.Model, Usage: map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)}}
	// answer out of order, as the index field allows
	for i := len(req.Input) - 1; i >= 0; i-- {
		resp.Data = append(resp.Data, item{Object: "embedding", Index: i, Embedding: Vector(req.Input[i], s.Dim)})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// Vector is the vector the server makes of text: a bag of its lower-cased
// words hashed into dim buckets, never all zero. Texts sharing words are
// near each other, as with a real model.
func Vector(text string, dim int) []float32 {
	v := make([]float32, dim)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		v[h.Sum32()%uint32(dim)]++
	}
	v[0] += 0.01
	return v
}

// Error answers with OpenAI's error body: {"error": {"message", "type",
// "param", "code"}}; an empty code is null.
func Error(w http.ResponseWriter, status int, typ, code, message string) {
	var c any
	if code != "" {
		c = code
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": c}})
}
