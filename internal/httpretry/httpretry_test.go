package httpretry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

type statusError struct{ status int }

func (e *statusError) Error() string   { return fmt.Sprintf("status %d", e.status) }
func (e *statusError) Retryable() bool { return RetryableStatus(e.status) }

func failed(status int, _ http.Header, _ []byte) error { return &statusError{status} }

// serve answers with the statuses in turn (then 200 "ok") and counts calls.
func serve(t *testing.T, statuses ...int) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i < len(statuses) {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(statuses[i])
			return
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func caller(s *httptest.Server, retries int, waits *[]time.Duration) *Caller {
	return &Caller{Client: s.Client(), MaxRetries: retries, Sleep: func(_ context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return nil
	}}
}

func get(url string) func() (*http.Request, error) {
	return func() (*http.Request, error) { return http.NewRequest(http.MethodGet, url, nil) }
}

func TestRetriesAfterWhatTheServerAsks(t *testing.T) {
	s, n := serve(t, 503, 429)
	var waits []time.Duration
	body, _, err := caller(s, 3, &waits).Do(context.Background(), 1<<10, get(s.URL), failed)
	if err != nil || string(body) != "ok" {
		t.Fatalf("Do = %q, %v", body, err)
	}
	if n.Load() != 3 || len(waits) != 2 || waits[0] != 2*time.Second || waits[1] != 2*time.Second {
		t.Errorf("%d calls, waits %v; want 3 calls after two 2 s waits", n.Load(), waits)
	}
}

func TestFinalErrorIsNotRetried(t *testing.T) {
	s, n := serve(t, 401)
	var waits []time.Duration
	_, _, err := caller(s, 3, &waits).Do(context.Background(), 1<<10, get(s.URL), failed)
	if se, ok := errors.AsType[*statusError](err); !ok || se.status != 401 {
		t.Fatalf("err = %v, want the 401", err)
	}
	if n.Load() != 1 || len(waits) != 0 {
		t.Errorf("%d calls, waits %v; want one call", n.Load(), waits)
	}
}

func TestGivesUpAfterMaxRetries(t *testing.T) {
	s, n := serve(t, 500, 500, 500, 500)
	var waits []time.Duration
	_, _, err := caller(s, 2, &waits).Do(context.Background(), 1<<10, get(s.URL), failed)
	g, ok := errors.AsType[*GaveUp](err)
	if !ok || g.Attempts != 3 {
		t.Fatalf("err = %v, want GaveUp after 3 attempts", err)
	}
	if se, ok := errors.AsType[*statusError](err); !ok || se.status != 500 {
		t.Errorf("GaveUp does not wrap the last answer's error: %v", err)
	}
	if n.Load() != 3 {
		t.Errorf("%d calls, want 3", n.Load())
	}
}

func TestNetworkErrorsBackOffExponentially(t *testing.T) {
	s, _ := serve(t)
	url := s.URL
	s.Close() // connection refused from now on
	var waits []time.Duration
	c := &Caller{MaxRetries: 4, Backoff: time.Second, MaxBackoff: 3 * time.Second,
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	_, _, err := c.Do(context.Background(), 1<<10, get(url), failed)
	if _, ok := errors.AsType[*GaveUp](err); !ok {
		t.Fatalf("err = %v, want GaveUp", err)
	}
	// jittered halves of 1, 2, 3, 3 s
	for i, hi := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second} {
		if waits[i] < hi/2 || waits[i] > hi {
			t.Errorf("wait %d = %v, want within [%v, %v]", i, waits[i], hi/2, hi)
		}
	}
}

func TestCancelledContextStops(t *testing.T) {
	s, n := serve(t, 503, 503, 503)
	ctx, cancel := context.WithCancel(context.Background())
	c := &Caller{Client: s.Client(), MaxRetries: 5, Sleep: func(ctx context.Context, _ time.Duration) error {
		cancel()
		return ctx.Err()
	}}
	_, _, err := c.Do(ctx, 1<<10, get(s.URL), failed)
	if !errors.Is(err, context.Canceled) || n.Load() != 1 {
		t.Errorf("err = %v after %d calls, want context.Canceled after 1", err, n.Load())
	}
}

type statusErr int

func (s statusErr) Error() string   { return "HTTP " + http.StatusText(int(s)) }
func (s statusErr) Retryable() bool { return RetryableStatus(int(s)) }

// Issue 32, finding 2: one classification for every provider client: 4xx
// is permanent but 408 and 429; 5xx is retryable. Permanent sees it through
// wrapping, and an error that does not say is not permanent.
func TestRetryableStatus(t *testing.T) {
	for status, want := range map[int]bool{400: false, 401: false, 403: false, 404: false, 409: false, 413: false, 422: false,
		408: true, 429: true, 500: true, 502: true, 503: true, 529: true} {
		if RetryableStatus(status) != want {
			t.Errorf("RetryableStatus(%d) = %v, want %v", status, !want, want)
		}
		if got := Permanent(fmt.Errorf("embed user: %w", statusErr(status))); got != !want {
			t.Errorf("Permanent(wrapped %d) = %v, want %v", status, got, !want)
		}
	}
	if Permanent(errors.New("connection reset")) || Permanent(nil) {
		t.Error("an error that does not classify itself is permanent")
	}
}
