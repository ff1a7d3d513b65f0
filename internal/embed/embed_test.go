package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/embed/embedtest"
	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
)

// newClient starts s, with the key the client sends, and a client of it
// that records its waits instead of taking them.
func newClient(t *testing.T, s *embedtest.Server) (*Client, *[]time.Duration) {
	s.Key = "sk-test"
	embedtest.Start(t, s)
	var sleeps []time.Duration
	var mu sync.Mutex
	return &Client{BaseURL: s.URL, APIKey: "sk-test", Model: "test-embed", MaxRetries: 3,
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
	s := &embedtest.Server{Dim: 8, Before: func(w http.ResponseWriter, _ *http.Request, n int64) bool {
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
	if s.Requests.Load() != 2 || len(*sleeps) != 1 || (*sleeps)[0] != 7*time.Second {
		t.Fatalf("%d requests, waits %v: want one wait of the 7 s Retry-After", s.Requests.Load(), *sleeps)
	}
}

func TestUnavailableAfterRetries(t *testing.T) {
	s := &embedtest.Server{Dim: 8, Before: func(w http.ResponseWriter, _ *http.Request, n int64) bool {
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	}}
	c, sleeps := newClient(t, s)
	_, _, err := c.Embed(context.Background(), []string{"x"})
	if !errors.Is(err, httpretry.ErrUnavailable) || s.Requests.Load() != 4 || len(*sleeps) != 3 {
		t.Fatalf("err %v after %d requests and %d waits: want ErrUnavailable after 4 and 3", err, s.Requests.Load(), len(*sleeps))
	}
	// backoff grows
	if (*sleeps)[2] < (*sleeps)[0] {
		t.Errorf("waits %v do not grow", *sleeps)
	}
}

func TestBadRequestIsNotRetried(t *testing.T) {
	s := &embedtest.Server{Dim: 8}
	c, _ := newClient(t, s)
	c.APIKey = "wrong"
	_, _, err := c.Embed(context.Background(), []string{"x"})
	var api *httpretry.APIError
	if !errors.As(err, &api) || api.Status != 401 || api.Code != "invalid_api_key" || s.Requests.Load() != 1 {
		t.Fatalf("err %v after %d requests", err, s.Requests.Load())
	}
}

func TestOverlongInputSplitAndTruncated(t *testing.T) {
	s := &embedtest.Server{Dim: 8, MaxInputBytes: 100}
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
	seen := strings.Join(s.Seen(), "\n")
	for _, want := range []string{"short one", "short two", "short three"} {
		if !strings.Contains(seen, want) {
			t.Errorf("%q never sent", want)
		}
	}
	var sentLong string
	for _, in := range s.Seen() {
		if strings.HasPrefix(in, "memory palace") {
			sentLong = in
		}
	}
	if len(sentLong) == 0 || len(sentLong) > 100 || !strings.HasPrefix(long, sentLong) {
		t.Fatalf("long input sent as %q", sentLong)
	}
	if vecs[1] == nil || vecs[3] == nil || fmt.Sprint(vecs[3]) != fmt.Sprint(embedtest.Vector("short three", 8)) {
		t.Fatalf("vectors out of order")
	}
}

func TestMaxInputTokensCutsBeforeSending(t *testing.T) {
	s := &embedtest.Server{Dim: 8}
	c, _ := newClient(t, s)
	_, st, err := All(context.Background(), c, []string{strings.Repeat("é", 100)}, BatchOptions{MaxInputTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	if st.Truncated != 1 || len(s.Seen()[0]) > 30 || !strings.HasPrefix(strings.Repeat("é", 100), s.Seen()[0]) {
		t.Fatalf("sent %q (stats %+v)", s.Seen()[0], st)
	}
}

func TestBatchesByCountAndTokens(t *testing.T) {
	s := &embedtest.Server{Dim: 8}
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
	s := &embedtest.Server{Dim: 8}
	c, _ := newClient(t, s)
	o := Options{Model: "test-embed", Batch: BatchOptions{BatchSize: 10, Concurrency: 2}}
	res, err := User(ctx, pool, c, ana, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pending != 25 || res.Embedded != 25 || res.Dimension != 8 || res.Requests != 3 || res.Scrubbed.Keys != 25 {
		t.Fatalf("result %+v", res)
	}
	for _, in := range s.Seen() {
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
	before := s.Requests.Load()
	res, err = User(ctx, pool, c, ana, o)
	if err != nil || res.Pending != 0 || s.Requests.Load() != before {
		t.Fatalf("re-run: %+v, %v, %d requests sent", res, err, s.Requests.Load()-before)
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
	s := &embedtest.Server{Dim: 8}
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
