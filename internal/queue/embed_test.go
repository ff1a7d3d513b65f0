package queue

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/helixhq/helix/internal/embed"
	"github.com/helixhq/helix/internal/jobs"
	"github.com/helixhq/helix/internal/pgtest"
)

// Issue 32, finding 2: an embed job whose provider answers HTTP 400 (the
// request itself is refused) is cancelled after one attempt and one request,
// not retried up to 10 times; a 408 or 503 is retried (retryable).
func TestEmbedJobPermanentAnswer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status int
		state  string
	}{{http.StatusBadRequest, "cancelled"}, {http.StatusUnauthorized, "cancelled"}, {http.StatusRequestTimeout, "retryable"}, {http.StatusServiceUnavailable, "retryable"}} {
		t.Run(http.StatusText(c.status), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			pool := pgtest.New(t)
			user := uuid.New()
			if _, err := pool.Exec(ctx, `INSERT INTO memories (id, user_id, type, content, created_at) VALUES ($1, $2, 'semantic', 'a note', now())`, uuid.New(), user); err != nil {
				t.Fatal(err)
			}
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(`{"error": {"message": "refused", "type": "invalid_request_error"}}`))
			}))
			defer srv.Close()
			ws := Workers(&Deps{Pool: pool, Embedder: func(model string) (embed.Embedder, error) {
				return &embed.Client{BaseURL: srv.URL, Model: model, HTTP: srv.Client(), MaxRetries: 1,
					Sleep: func(context.Context, time.Duration) error { return nil }}, nil
			}})
			client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Queues: map[string]river.QueueConfig{jobs.QueueEmbed: {MaxWorkers: 1}},
				Workers: ws, FetchPollInterval: 50 * time.Millisecond, FetchCooldown: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			r, err := client.Insert(ctx, EmbedArgs{UserID: user, Model: "mini", BatchSize: 8, BatchTokens: 1000, MaxInputTokens: 500, Concurrency: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := client.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = client.Stop(ctx) }()
			var state string
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if err := pool.QueryRow(ctx, `SELECT state::text FROM river_job WHERE id = $1`, r.Job.ID).Scan(&state); err != nil {
					t.Fatal(err)
				}
				if state != "available" && state != "running" {
					break
				}
			}
			if state != c.state {
				t.Errorf("HTTP %d: job %s, want %s", c.status, state, c.state)
			}
			if n := requests.Load(); c.state == "cancelled" && n != 1 || c.state == "retryable" && n < 2 {
				t.Errorf("HTTP %d: %d requests, want one for a permanent answer, retries for a retryable one", c.status, n)
			}
		})
	}
}
