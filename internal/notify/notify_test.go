package notify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/redact"
)

// hook is a local webhook receiving one body.
func hook(t *testing.T, got *[]byte, n *atomic.Int32) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		b, _ := io.ReadAll(r.Body)
		*got = b
		if r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("Content-Type %q", r.Header.Get("Content-Type"))
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// TestWireFormats: a Slack webhook gets {"text": …}, a Discord one
// {"content": …}, a plain one the event itself; secrets are masked.
func TestWireFormats(t *testing.T) {
	redact.Add("sk-live-abcdefghijklmnopqrstuvwx")
	t.Cleanup(redact.Reset)
	ev := New(KindFireFailed, "schedule nightly", "exit 1: provider said: bad key sk-live-abcdefghijklmnopqrstuvwx", time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC))
	for _, c := range []struct{ prefix, field string }{{"slack+", "text"}, {"discord+", "content"}, {"", ""}} {
		var body []byte
		var n atomic.Int32
		srv := hook(t, &body, &n)
		s, err := ParseSettings([]string{c.prefix + srv.URL + "/services/T0/B0/token"}, "true", "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Send(context.Background(), s.Client(), s.Targets[0], ev); err != nil || n.Load() != 1 {
			t.Fatalf("%s: %v, %d requests", c.prefix, err, n.Load())
		}
		if strings.Contains(string(body), "sk-live") || !strings.Contains(string(body), redact.Mask) {
			t.Errorf("%s: body %s: the secret is not masked", c.prefix, body)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("%s: %s: %v", c.prefix, body, err)
		}
		if c.field == "" {
			if m["kind"] != KindFireFailed || m["subject"] != "schedule nightly" || m["id"] != ev.ID || m["time"] != "2026-11-28T03:00:00Z" {
				t.Errorf("json body %s", body)
			}
			continue
		}
		text, _ := m[c.field].(string)
		if len(m) != 1 || !strings.Contains(text, "schedule_fire_failed") || !strings.Contains(text, "schedule nightly") {
			t.Errorf("%s body %s, want {%q: …} naming the event", c.prefix, body, c.field)
		}
	}
}

// TestPrivateRefused: a webhook on loopback is refused (nothing sent)
// unless notify.allow-private is true.
func TestPrivateRefused(t *testing.T) {
	var body []byte
	var n atomic.Int32
	srv := hook(t, &body, &n)
	s, err := ParseSettings([]string{srv.URL + "/hooks/tok3n"}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Send(context.Background(), s.Client(), s.Targets[0], New(KindTest, "x", "y", time.Now()))
	if !errors.Is(err, netguard.ErrPrivate) || !netguard.Permanent(err) || n.Load() != 0 {
		t.Fatalf("loopback webhook without allow-private: %v, %d requests", err, n.Load())
	}
	if strings.Contains(err.Error(), "tok3n") || !strings.Contains(err.Error(), "notify.allow-private") {
		t.Errorf("error shows the webhook's token, or does not name notify.allow-private: %v", err)
	}
	s, _ = ParseSettings([]string{srv.URL}, "true", "")
	if _, err := Send(context.Background(), s.Client(), s.Targets[0], New(KindTest, "x", "y", time.Now())); err != nil || n.Load() != 1 {
		t.Fatalf("with allow-private: %v, %d requests", err, n.Load())
	}
}

// TestBadSettings: a bad setting is an error naming it.
func TestBadSettings(t *testing.T) {
	for _, c := range []struct {
		urls          []string
		private, base string
		want          string
	}{
		{[]string{"ftp://example.com/x"}, "", "", "notify.webhook-url"},
		{[]string{"teams+https://example.com/x"}, "", "", "notify.webhook-url"},
		{[]string{"https://example.com/x"}, "yes", "", "notify.allow-private"},
		{[]string{"https://example.com/x"}, "", "soon", "notify.retry-base"},
	} {
		if _, err := ParseSettings(c.urls, c.private, c.base); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %q %q: %v, want an error naming %s", c.urls, c.private, c.base, err, c.want)
		}
	}
	s, err := ParseSettings([]string{"slack+https://hooks.slack.com/services/T0/B0/secret", " https://a.example/h "}, "false", "250ms")
	if err != nil || len(s.Targets) != 2 || s.Targets[0].Format != FormatSlack || s.Targets[1].Format != FormatJSON || s.RetryBase != 250*time.Millisecond {
		t.Fatalf("%+v %v", s, err)
	}
	if d := s.Targets[0].Display(); strings.Contains(d, "secret") {
		t.Errorf("Display %q shows the token", d)
	}
}

// TestBackoff: short, exponential, capped.
func TestBackoff(t *testing.T) {
	got := []time.Duration{Backoff(time.Second, 1), Backoff(time.Second, 2), Backoff(time.Second, 3), Backoff(time.Second, 40)}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 30 * time.Minute}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("Backoff(1s, …)[%d] = %s, want %s", i, got[i], want[i])
		}
	}
}

// FuzzParseTarget: a setting's entry never panics the parser, and a target
// it accepts is an http(s) URL.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"https://a.example/x", "slack+https://hooks.slack.com/services/T/B/x", "discord+http://[::1]:80/", "json+", "+://", "teams+https://x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err == nil && !strings.HasPrefix(tg.URL, "http://") && !strings.HasPrefix(tg.URL, "https://") {
			t.Errorf("%q accepted as %+v", s, tg)
		}
		_ = tg.Display()
	})
}
