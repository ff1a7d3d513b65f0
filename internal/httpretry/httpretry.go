// Package httpretry is how helix's provider clients (speech to text,
// language models, embeddings) call a server: each attempt with its own
// timeout and a capped answer, and 429s, 5xx answers and network errors
// tried again after the server's Retry-After or with jittered exponential
// backoff.
package httpretry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/redact"
)

// Caller is a client with its retry policy.
type Caller struct {
	Client     *http.Client  // nil: http.DefaultClient
	Timeout    time.Duration // per attempt; 0: none beyond ctx
	MaxRetries int           // after the first attempt
	Backoff    time.Duration // first wait (0: 500 ms); doubles, with jitter, up to MaxBackoff
	MaxBackoff time.Duration // 0: 30 s
	// Sleep waits between attempts; tests replace it to see the waits without taking them.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Observer sees every attempt of the calls made with a context carrying it
// (WithObserver): how `helix worker` counts provider requests for its
// metrics without each provider client knowing.
type Observer interface {
	// ProviderRequest is one attempt: reason is "" for a 2xx answer, else
	// "network", "4xx" or "5xx".
	ProviderRequest(u *url.URL, reason string, took time.Duration)
	// ProviderRetry is an attempt about to be made again.
	ProviderRetry(u *url.URL)
}

type observerKey struct{}

// WithObserver returns ctx carrying o for the calls made with it.
func WithObserver(ctx context.Context, o Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, o)
}

// maxWait caps a server's Retry-After.
const maxWait = 5 * time.Minute

// RetryableStatus is the one classification of a provider's error answers:
// 408 (request timeout), 429 (rate limited) and 5xx (529 too: overloaded)
// may succeed when tried again; every other 4xx is permanent, the request
// itself is refused (bad input, bad key, too large), and trying it again,
// now or in a River retry, cannot help.
func RetryableStatus(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
}

// Permanent reports whether err says that trying the same call again cannot
// succeed: somewhere in its chain is an error whose Retryable method says
// false (an APIError for a permanent status, a TooLargeError). Queue workers
// cancel such a job instead of retrying it.
func Permanent(err error) bool {
	var r interface{ Retryable() bool }
	return errors.As(err, &r) && !r.Retryable()
}

// TooLargeError is an answer longer than the caller's cap. It is not
// retried: the same request gets the same answer.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("answer too large: over %d MiB (the most helix reads)", e.Max>>20)
}

// Retryable says no: see TooLargeError.
func (e *TooLargeError) Retryable() bool { return false }

// GaveUp is the last error of a call that kept failing for every retry.
type GaveUp struct {
	Err      error
	Attempts int
}

func (e *GaveUp) Error() string { return fmt.Sprintf("%v (after %d attempts)", e.Err, e.Attempts) }
func (e *GaveUp) Unwrap() error { return e.Err }

// Do sends the request build makes until the server answers 2xx, and
// returns that answer's body (at most maxBody bytes) and header. A non-2xx
// answer becomes the error failed makes of it, and one longer than maxBody
// a TooLargeError (an *APIError's message is masked with redact.String and
// its RetryAfter set); an error with a Retryable
// method that says false is returned at once, as is the context's error.
// Any other error (network, timeout, Retryable true) is tried again, up to
// MaxRetries times, and then returned as *GaveUp.
func (c *Caller) Do(ctx context.Context, maxBody int64, build func() (*http.Request, error),
	failed func(status int, hdr http.Header, body []byte) error) ([]byte, http.Header, error) {
	backoff := c.Backoff
	if backoff <= 0 {
		backoff = 500 * time.Millisecond
	}
	maxBackoff := c.MaxBackoff
	if maxBackoff <= 0 {
		maxBackoff = 30 * time.Second
	}
	obs, _ := ctx.Value(observerKey{}).(Observer)
	for attempt := 0; ; attempt++ {
		began := time.Now()
		body, hdr, wait, u, reason, err := c.once(ctx, maxBody, build, failed)
		if obs != nil && u != nil {
			obs.ProviderRequest(u, reason, time.Since(began))
		}
		if err == nil {
			return body, hdr, nil
		}
		if Permanent(err) {
			return nil, nil, err
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if attempt >= c.MaxRetries {
			return nil, nil, &GaveUp{Err: err, Attempts: attempt + 1}
		}
		if wait <= 0 {
			wait = backoff/2 + rand.N(backoff/2+1)
			backoff = min(2*backoff, maxBackoff)
		}
		if err := c.sleep(ctx, min(wait, maxWait)); err != nil {
			return nil, nil, err
		}
		if obs != nil && u != nil {
			obs.ProviderRetry(u)
		}
	}
}

// once makes one attempt; u is the request's URL (nil if none was built)
// and reason why it failed, for an Observer.
func (c *Caller) once(ctx context.Context, maxBody int64, build func() (*http.Request, error),
	failed func(int, http.Header, []byte) error) (body []byte, hdr http.Header, wait time.Duration, u *url.URL, reason string, err error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	req, err := build()
	if err != nil {
		return nil, nil, 0, nil, "", err
	}
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		return nil, nil, 0, req.URL, "network", err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, nil, 0, req.URL, "network", err
	}
	if int64(len(body)) > maxBody {
		// Cut short, the answer would be an "unexpected end of JSON input"
		// that blames the request; it is the server's answer that is wrong.
		return nil, nil, 0, req.URL, "too_large", &TooLargeError{Max: maxBody}
	}
	if resp.StatusCode/100 == 2 {
		return body, resp.Header, 0, req.URL, "", nil
	}
	wait = netguard.RetryAfter(resp.Header.Get("Retry-After"))
	err = failed(resp.StatusCode, resp.Header, body)
	if api, ok := errors.AsType[*APIError](err); ok {
		api.RetryAfter = wait
		api.Message = redact.String(api.Message)
	}
	return nil, nil, wait, req.URL, fmt.Sprintf("%dxx", resp.StatusCode/100), err
}

func (c *Caller) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
