package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
)

// server speaks OpenAI's /v1/embeddings: it checks the request as OpenAI
// does and answers with a deterministic vector per input.
type server struct {
	t        *testing.T
	dim      int
	maxBytes int // an input longer than this is refused with OpenAI's 400
	requests atomic.Int64
	inputs   atomic.Int64
	// before, when it returns true, has answered the request itself.
	before func(w http.ResponseWriter, n int64) bool
	mu     sync.Mutex
	seen   []string
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.requests.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	if r.Header.Get("Authorization") != "Bearer sk-test" || r.Header.Get("Content-Type") != "application/json" {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
		return
	}
	if s.before != nil && s.before(w, n) {
		return
	}
	var req struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		EncodingFormat string   `json:"encoding_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" || len(req.Input) == 0 || len(req.Input) > 2048 || req.EncodingFormat != "float" {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"error":{"message":"bad request: %v","type":"invalid_request_error"}}`, err)
		return
	}
	for _, in := range req.Input {
		if s.maxBytes > 0 && len(in) > s.maxBytes {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprintf(w, `{"error":{"message":"This model's maximum context length is 8192 tokens, however you requested %d tokens (%d in your prompt; 0 for the completion). Please reduce your prompt; or completion length.","type":"invalid_request_error","param":null,"code":null}}`, len(in), len(in))
			return
		}
	}
	s.inputs.Add(int64(len(req.Input)))
	s.mu.Lock()
	s.seen = append(s.seen, req.Input...)
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
		resp.Data = append(resp.Data, item{Object: "embedding", Index: i, Embedding: vectorOf(req.Input[i], s.dim)})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func vectorOf(s string, dim int) []float32 {
	v := make([]float32, dim)
	for _, w := range strings.Fields(strings.ToLower(s)) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		v[h.Sum32()%uint32(dim)]++
	}
	v[0] += 0.01
	return v
}

func newClient(t *testing.T, s *server) (*Client, *[]time.Duration) {
	s.t = t
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	var sleeps []time.Duration
	var mu sync.Mutex
	return &Client{BaseURL: ts.URL + "/v1", APIKey: "sk-test", Model: "test-embed", HTTP: ts.Client(), MaxRetries: 3,
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			sleeps = append(sleeps, d)
			mu.Unlock()
			return nil
		}}, &sleeps
}

var (
	ana = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	ben = uuid.MustParse("22222222-2222-4222-8222-222222222222")
)

func insert(t *testing.T, q db.Querier, ms []memories.Memory) {
	t.Helper()
	if _, err := memories.Insert(context.Background(), q, ms); err != nil {
		t.Fatal(err)
	}
}

func mem(user uuid.UUID, i int, content string, emb []float32) memories.Memory {
	return memories.Memory{ID: uuid.NewSHA1(user, fmt.Appendf(nil, "%d", i)), UserID: user, Type: "episodic",
		Content: content, Embedding: emb, CreatedAt: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)}
}

func TestRetryAfter429(t *testing.T) {
	s := &server{dim: 8, before: func(w http.ResponseWriter, n int64) bool {
		if n == 1 {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`))
			return true
		}
		return false
	}}
	c, sleeps := newClient(t, s)
	vecs, _, err := c.Embed(context.Background(), []string{"hello world"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 1 || len(vecs[0]) != 8 {
		t.Fatalf("vectors %v", vecs)
	}
	if s.requests.Load() != 2 || len(*sleeps) != 1 || (*sleeps)[0] != 7*time.Second {
		t.Fatalf("%d requests, waits %v: want one wait of the 7 s Retry-After", s.requests.Load(), *sleeps)
	}
}

func TestUnavailableAfterRetries(t *testing.T) {
	s := &server{dim: 8, before: func(w http.ResponseWriter, n int64) bool {
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	}}
	c, sleeps := newClient(t, s)
	_, _, err := c.Embed(context.Background(), []string{"x"})
	if !errors.Is(err, httpretry.ErrUnavailable) || s.requests.Load() != 4 || len(*sleeps) != 3 {
		t.Fatalf("err %v after %d requests and %d waits: want ErrUnavailable after 4 and 3", err, s.requests.Load(), len(*sleeps))
	}
	// backoff grows
	if (*sleeps)[2] < (*sleeps)[0] {
		t.Errorf("waits %v do not grow", *sleeps)
	}
}

func TestBadRequestIsNotRetried(t *testing.T) {
	s := &server{dim: 8}
	c, _ := newClient(t, s)
	c.APIKey = "wrong"
	_, _, err := c.Embed(context.Background(), []string{"x"})
	var api *httpretry.APIError
	if !errors.As(err, &api) || api.Status != 401 || api.Code != "invalid_api_key" || s.requests.Load() != 1 {
		t.Fatalf("err %v after %d requests", err, s.requests.Load())
	}
}

func TestOverlongInputSplitAndTruncated(t *testing.T) {
	s := &server{dim: 8, maxBytes: 100}
	c, _ := newClient(t, s)
	long := strings.Repeat("memory palace ", 30) // 420 bytes
	texts := []string{"short one", "short two", long, "short three"}
	vecs, st, err := All(context.Background(), c, texts, BatchOptions{BatchSize: 4, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if len(v) != 8 {
			t.Fatalf("vector %d: %v", i, v)
		}
	}
	if st.Truncated != 1 || st.Split < 1 {
		t.Fatalf("stats %+v: want one truncated input and a split batch", st)
	}
	// the short texts went out whole; the long one as its start, at most 100 bytes
	seen := strings.Join(s.seen, "\n")
	for _, want := range []string{"short one", "short two", "short three"} {
		if !strings.Contains(seen, want) {
			t.Errorf("%q never sent", want)
		}
	}
	var sentLong string
	for _, in := range s.seen {
		if strings.HasPrefix(in, "memory palace") {
			sentLong = in
		}
	}
	if len(sentLong) == 0 || len(sentLong) > 100 || !strings.HasPrefix(long, sentLong) {
		t.Fatalf("long input sent as %q", sentLong)
	}
	if vecs[1] == nil || vecs[3] == nil || fmt.Sprint(vecs[3]) != fmt.Sprint(vectorOf("short three", 8)) {
		t.Fatalf("vectors out of order")
	}
}

func TestMaxInputTokensCutsBeforeSending(t *testing.T) {
	s := &server{dim: 8}
	c, _ := newClient(t, s)
	_, st, err := All(context.Background(), c, []string{strings.Repeat("é", 100)}, BatchOptions{MaxInputTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	if st.Truncated != 1 || len(s.seen[0]) > 30 || !strings.HasPrefix(strings.Repeat("é", 100), s.seen[0]) {
		t.Fatalf("sent %q (stats %+v)", s.seen[0], st)
	}
}

func TestBatchesByCountAndTokens(t *testing.T) {
	s := &server{dim: 8}
	c, _ := newClient(t, s)
	texts := make([]string, 10)
	for i := range texts {
		texts[i] = strings.Repeat("x", 30) // 10 estimated tokens
	}
	_, st, err := All(context.Background(), c, texts, BatchOptions{BatchSize: 4, Concurrency: 3})
	if err != nil || st.Requests != 3 {
		t.Fatalf("%v, %d requests: want 3 by count", err, st.Requests)
	}
	_, st, err = All(context.Background(), c, texts, BatchOptions{BatchSize: 100, BatchTokens: 25, Concurrency: 2})
	if err != nil || st.Requests != 5 {
		t.Fatalf("%v, %d requests: want 5 by tokens", err, st.Requests)
	}
}

func TestUserEmbedsOnceAndRecordsModel(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	var ms []memories.Memory
	for i := range 25 {
		ms = append(ms, mem(ana, i, fmt.Sprintf("memory number %d about gardens, key sk-proj-Ab3dEf9hIj2lMn0pQr5tUv%04d", i, i), nil))
	}
	ms = append(ms, mem(ben, 0, "another user's memory", nil))
	insert(t, pool, ms)
	s := &server{dim: 8}
	c, _ := newClient(t, s)
	o := Options{Model: "test-embed", Batch: BatchOptions{BatchSize: 10, Concurrency: 2}}
	res, err := User(ctx, pool, c, ana, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pending != 25 || res.Embedded != 25 || res.Dimension != 8 || res.Requests != 3 || res.Scrubbed.Keys != 25 {
		t.Fatalf("result %+v", res)
	}
	for _, in := range s.seen {
		if strings.Contains(in, "sk-") {
			t.Fatalf("a secret was sent: %q", in)
		}
	}
	var n, dim int
	var model string
	if err := pool.QueryRow(ctx, `SELECT count(*), min(embedding_model), min(embedding_dim) FROM memories
		WHERE user_id = $1 AND cardinality(embedding::real[]) = 8`, ana).Scan(&n, &model, &dim); err != nil {
		t.Fatal(err)
	}
	if n != 25 || model != "test-embed" || dim != 8 {
		t.Fatalf("%d rows with model %q dim %d", n, model, dim)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE user_id = $1 AND embedding IS NULL`, ben).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the other user's row was touched (%d without embedding, %v)", n, err)
	}
	before := s.requests.Load()
	res, err = User(ctx, pool, c, ana, o)
	if err != nil || res.Pending != 0 || s.requests.Load() != before {
		t.Fatalf("re-run: %+v, %v, %d requests sent", res, err, s.requests.Load()-before)
	}
	// another model re-embeds what this one made
	o.Model = "test-embed-2"
	res, err = User(ctx, pool, c, ana, o)
	if err != nil || res.Embedded != 25 {
		t.Fatalf("new model: %+v, %v", res, err)
	}
}

func TestWrongDimensionWritesNothing(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	var ms []memories.Memory
	for i := range 5 {
		ms = append(ms, mem(ana, i, fmt.Sprintf("embedded memory %d", i), []float32{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))
	}
	for i := 5; i < 30; i++ {
		ms = append(ms, mem(ana, i, fmt.Sprintf("plain memory %d", i), nil))
	}
	ms = append(ms, mem(ana, 99, " ", nil))
	insert(t, pool, ms)
	s := &server{dim: 8}
	c, _ := newClient(t, s)
	res, err := User(ctx, pool, c, ana, Options{Model: "test-embed", Batch: BatchOptions{BatchSize: 5, Concurrency: 1}})
	var de *DimensionError
	if !errors.As(err, &de) || de.Got != 8 || de.Want != 12 {
		t.Fatalf("err %v: want a DimensionError 8 vs 12", err)
	}
	if !strings.Contains(err.Error(), "nothing was written") || !strings.Contains(err.Error(), "other embeddings (5 rows)") {
		t.Errorf("message %q", err)
	}
	if res.Requests != 1 {
		t.Errorf("%d requests: the first disagreeing answer should stop the run", res.Requests)
	}
	if res.SkippedEmpty != 1 {
		t.Errorf("skipped_empty %d, want 1", res.SkippedEmpty)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE user_id = $1 AND embedding IS NOT NULL`, ana).Scan(&n); err != nil || n != 5 {
		t.Fatalf("%d rows with an embedding after the failed run, want the 5 from before (%v)", n, err)
	}
	// --reembed replaces them all, so the old dimension no longer binds
	res, err = User(ctx, pool, c, ana, Options{Model: "test-embed", Reembed: true, Batch: BatchOptions{BatchSize: 50}})
	if err != nil || res.Embedded != 30 {
		t.Fatalf("reembed: %+v %v", res, err)
	}
}

func FuzzParseResponse(f *testing.F) {
	f.Add([]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,-0.2]}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`), 1)
	f.Add([]byte(`{"data":[{"index":1,"embedding":[1]},{"index":0,"embedding":[2]}]}`), 2)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[2]}]}`), 2)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`), 2)
	f.Add([]byte(`{"data":[{"index":5,"embedding":[1e40]}]}`), 1)
	f.Add([]byte(`not json`), 0)
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 1000 {
			return
		}
		vecs, _, err := ParseResponse(body, n)
		if err != nil {
			return
		}
		if len(vecs) != n {
			t.Fatalf("%d vectors for %d inputs", len(vecs), n)
		}
		for _, v := range vecs {
			if len(v) == 0 || len(v) != len(vecs[0]) {
				t.Fatalf("vectors of mixed or zero length")
			}
		}
	})
}

func FuzzDecodeError(f *testing.F) {
	f.Add([]byte(`{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","code":null}}`))
	f.Add([]byte(`{"error":"input length exceeds the context length"}`))
	f.Add([]byte(`{"detail":[{"msg":"x"}]}`))
	f.Add([]byte(`<html>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		e := httpretry.DecodeOpenAIError(provider, 400, nil, body)
		if e.Message == "" && len(strings.TrimSpace(string(body))) > 0 {
			t.Fatalf("no message from %q", body)
		}
		_ = TooLong(e)
	})
}
