package catalog

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/netguard"
)

func opts(allowPrivate bool) FetchOptions {
	return FetchOptions{Client: netguard.Client(allowPrivate, 2*time.Second), MaxBytes: 1 << 20, Retries: 2, Backoff: time.Millisecond}
}

func TestFetchETag(t *testing.T) {
	body := testdata(t, "api-2026-07-02.json")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/json" {
			t.Errorf("Accept = %q", r.Header.Get("Accept"))
		}
		w.Header().Set("ETag", `W/"abc"`)
		if r.Header.Get("If-None-Match") == `W/"abc"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	ctx := context.Background()
	got, err := Fetch(ctx, srv.URL, opts(true))
	if err != nil {
		t.Fatal(err)
	}
	if got.NotModified || got.ETag != `W/"abc"` || len(got.Body) != len(body) {
		t.Fatalf("first fetch: not_modified=%v etag=%q %d bytes", got.NotModified, got.ETag, len(got.Body))
	}
	o := opts(true)
	o.ETag = got.ETag
	again, err := Fetch(ctx, srv.URL, o)
	if err != nil {
		t.Fatal(err)
	}
	if !again.NotModified || again.Body != nil {
		t.Fatalf("conditional fetch: %+v", again)
	}
}

func TestFetchRetriesServerErrors(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			_, _ = w.Write([]byte(`{}`))
		}
	}))
	defer srv.Close()
	got, err := Fetch(context.Background(), srv.URL, opts(true))
	if err != nil || string(got.Body) != "{}" || calls.Load() != 3 {
		t.Fatalf("got %v after %d calls: %v", got, calls.Load(), err)
	}
}

func TestFetchFailures(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		switch r.URL.Path {
		case "/500":
			http.Error(w, "boom", http.StatusInternalServerError)
		case "/404":
			http.NotFound(w, r)
		case "/big":
			_, _ = w.Write([]byte(strings.Repeat(" ", 2<<20)))
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		path  string
		calls int32
		check func(error) bool
		want  string
	}{
		{"/500", 3, func(err error) bool { var he *HTTPError; return errors.As(err, &he) && he.Status == 500 }, "500 Internal Server Error"},
		{"/404", 1, func(err error) bool { var he *HTTPError; return errors.As(err, &he) && !he.Temporary() }, "404 Not Found"},
		{"/big", 1, func(err error) bool { return errors.Is(err, netguard.ErrTooLarge) }, "too large"},
		// in helix's words, not Go's "(Client.Timeout exceeded while awaiting headers)" (issue 49)
		{"/slow", 1, func(err error) bool {
			return isTimeout(err) && !strings.Contains(err.Error(), "Client.Timeout") && !strings.Contains(err.Error(), "deadline exceeded")
		}, "timed out after 200ms: no answer"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			calls.Store(0)
			o := opts(true)
			if tc.path == "/slow" {
				o.Client = netguard.Client(true, 200*time.Millisecond)
				o.Retries = 0
			}
			_, err := Fetch(ctx, srv.URL+tc.path, o)
			if !tc.check(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if calls.Load() != tc.calls {
				t.Errorf("%d requests, want %d", calls.Load(), tc.calls)
			}
		})
	}
}

func TestFetchRefusesLoopbackUnlessAllowed(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	defer srv.Close()
	_, err := Fetch(context.Background(), srv.URL, opts(false))
	if !errors.Is(err, netguard.ErrPrivate) {
		t.Fatalf("error %v, want ErrPrivate", err)
	}
	if calls.Load() != 0 {
		t.Errorf("the server was reached %d times", calls.Load())
	}
}

func TestFetchFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(path, []byte(`{"a": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Fetch(context.Background(), path, opts(false))
	if err != nil || string(got.Body) != `{"a": {}}` {
		t.Fatalf("%v %v", got, err)
	}
	o := opts(false)
	o.MaxBytes = 4
	if _, err := Fetch(context.Background(), path, o); !errors.Is(err, netguard.ErrTooLarge) {
		t.Errorf("size cap on files: %v", err)
	}
	if _, err := Fetch(context.Background(), path+".missing", o); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
