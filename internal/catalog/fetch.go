package catalog

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/helixhq/helix/internal/netguard"
)

// DefaultSource is models.dev's catalog.
const DefaultSource = "https://models.dev/api.json"

// FetchOptions tune a download.
type FetchOptions struct {
	// Client makes the requests: a netguard client, so private addresses are refused.
	Client   *http.Client
	MaxBytes int64
	// Retries is how many times a 5xx, a 429 or a network error is retried.
	Retries int
	// Backoff is the first wait between attempts; it doubles each time.
	Backoff time.Duration
	// ETag, when set, is sent as If-None-Match: a 304 means unchanged.
	ETag      string
	UserAgent string
}

// Fetched is what a source returned.
type Fetched struct {
	Body        []byte
	ETag        string
	NotModified bool
}

// HTTPError is a response status other than 200 or 304.
type HTTPError struct {
	URL    string
	Status int
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("GET %s: %d %s", e.URL, e.Status, http.StatusText(e.Status))
}

// HTTPStatus is the answer's status code (netguard.Permanent reads it).
func (e *HTTPError) HTTPStatus() int { return e.Status }

// Temporary reports whether a retry may help.
func (e *HTTPError) Temporary() bool {
	return e.Status >= 500 || e.Status == http.StatusTooManyRequests
}

// IsRemote reports whether source is a URL rather than a file.
func IsRemote(source string) bool {
	return strings.HasPrefix(source, "http://") || strings.HasPrefix(source, "https://")
}

// Fetch reads source, a URL or a file path, with the options' size cap; URLs
// are retried on 5xx, 429 and network errors, but never when refused or too large.
func Fetch(ctx context.Context, source string, o FetchOptions) (*Fetched, error) {
	if !IsRemote(source) {
		f, err := os.Open(strings.TrimPrefix(source, "file://"))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		b, err := netguard.ReadAll(f, o.MaxBytes)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", source, err)
		}
		return &Fetched{Body: b}, nil
	}
	wait := o.Backoff
	for attempt := 0; ; attempt++ {
		res, err := get(ctx, source, o)
		if err == nil || attempt >= o.Retries || !retryable(ctx, err) {
			return res, err
		}
		d := wait
		var he *retryAfterError
		if errors.As(err, &he) && he.after > d {
			d = he.after
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(d):
		}
		wait *= 2
	}
}

// retryAfterError carries a server's Retry-After with the status that asked for it.
type retryAfterError struct {
	*HTTPError
	after time.Duration
}

func (e *retryAfterError) Unwrap() error { return e.HTTPError }

func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, netguard.ErrPrivate) || errors.Is(err, netguard.ErrTooLarge) {
		return false
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Temporary()
	}
	return true // network errors and timeouts
}

func get(ctx context.Context, url string, o FetchOptions) (*Fetched, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if o.UserAgent != "" {
		req.Header.Set("User-Agent", o.UserAgent)
	}
	if o.ETag != "" {
		req.Header.Set("If-None-Match", o.ETag)
	}
	resp, err := o.Client.Do(req)
	if err != nil {
		if errors.Is(err, netguard.ErrPrivate) {
			return nil, fmt.Errorf("GET %s: %w", url, netguard.ErrPrivate)
		}
		if isTimeout(err) {
			return nil, &timeoutError{msg: fmt.Sprintf("GET %s: timed out after %s: no answer", url, o.Client.Timeout), err: err}
		}
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotModified:
		return &Fetched{ETag: resp.Header.Get("ETag"), NotModified: true}, nil
	default:
		he := &HTTPError{URL: url, Status: resp.StatusCode}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			return nil, &retryAfterError{HTTPError: he, after: min(time.Duration(s)*time.Second, time.Minute)}
		}
		return nil, he
	}
	b, err := netguard.ReadAll(resp.Body, o.MaxBytes)
	if err != nil {
		if isTimeout(err) {
			return nil, &timeoutError{msg: fmt.Sprintf("GET %s: timed out after %s reading the body", url, o.Client.Timeout), err: err}
		}
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	return &Fetched{Body: b, ETag: resp.Header.Get("ETag")}, nil
}

// timeoutError says what timed out in helix's words: Go's own text
// ("context deadline exceeded (Client.Timeout exceeded while awaiting
// headers)") stays in the chain for errors.Is, not in the message.
type timeoutError struct {
	msg string
	err error
}

func (e *timeoutError) Error() string { return e.msg }
func (e *timeoutError) Unwrap() error { return e.err }

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &t) && t.Timeout())
}
