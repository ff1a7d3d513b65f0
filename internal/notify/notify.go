// Package notify tells an operator's webhooks what went wrong while nobody
// watched: a schedule that disabled itself, a fire that failed, a job
// discarded after its retries, a tool revoked or a widening proposed, an
// audit chain found broken. Events go out through a durable outbox: one
// River job (kind notify_deliver) per event and webhook, inserted in the
// transaction of the event where there is one, and retried with backoff by
// the worker. A receiver that answered 2xx is never sent that job again.
package notify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/netguard"
	"github.com/helixhq/helix/internal/redact"
)

// Event kinds.
const (
	KindScheduleDisabled  = "schedule_disabled"    // max_failures fires failed in a row
	KindFireFailed        = "schedule_fire_failed" // a fire failed (policy on-failure or always)
	KindFireFinished      = "schedule_fire_ok"     // a fire finished well (policy always)
	KindJobDiscarded      = "job_discarded"        // a River job ran out of retries
	KindToolRevoked       = "tool_revoked"
	KindWideningProposed  = "tool_widening_proposed"
	KindAuditChainBroken  = "audit_chain_broken"
	KindTest              = "test" // helix notify test
	maxMessage            = 500
	defaultRetryBase      = 5 * time.Second
	maxRetryDelay         = 30 * time.Minute
	defaultRequestTimeout = 10 * time.Second
)

// Formats of a webhook: its URL's prefix (slack+https://…).
const (
	FormatJSON    = "json"
	FormatSlack   = "slack"
	FormatDiscord = "discord"
)

// Schedule notification policies (helix_schedules.notify).
const (
	PolicyAlways    = "always"
	PolicyOnFailure = "on-failure"
	PolicyNever     = "never"
)

// Policies are the values schedule add --notify takes.
var Policies = []string{PolicyAlways, PolicyOnFailure, PolicyNever}

// Event is what a webhook is told. It carries no secret: its message is
// masked (package redact) and cut short when it is made (New).
type Event struct {
	ID      string    `json:"id"` // the same on every delivery and retry: a receiver may deduplicate by it
	Kind    string    `json:"kind"`
	Time    time.Time `json:"time"`
	Subject string    `json:"subject"` // "schedule nightly", "job 42 (embed)", "tool acme.search", "table tool_executions"
	Message string    `json:"message"`
}

// New is an event of kind about subject at t, its message masked and cut
// to 500 characters.
func New(kind, subject, message string, t time.Time) Event {
	m := redact.String(message)
	if r := []rune(m); len(r) > maxMessage {
		m = string(r[:maxMessage-1]) + "…"
	}
	return Event{ID: uuid.NewString(), Kind: kind, Time: t.UTC(), Subject: redact.String(subject), Message: m}
}

// Target is one webhook: a URL and the body format it expects.
type Target struct {
	Format string
	URL    string
	Entry  string // the setting's entry as written (format prefix included)
}

// ID names the target in a job's arguments without its URL (a Slack or
// Discord webhook URL is itself a secret): a hash of its entry. The worker
// finds the URL in its own notify.webhook-url.
func (t Target) ID() string {
	h := sha256.Sum256([]byte(t.Entry))
	return hex.EncodeToString(h[:8])
}

// Display is the URL with its path and query hidden: a webhook's token is
// usually its path.
func (t Target) Display() string {
	u, err := url.Parse(t.URL)
	if err != nil {
		return "[unparsable URL]"
	}
	s := u.Scheme + "://" + u.Host
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" {
		s += "/…"
	}
	if t.Format != FormatJSON {
		s = t.Format + "+" + s
	}
	return s
}

// ParseTarget reads one notify.webhook-url entry: a http(s) URL, optionally
// prefixed by its format (slack+https://…, discord+https://…, json+…).
func ParseTarget(entry string) (Target, error) {
	e := strings.TrimSpace(entry)
	t := Target{Format: FormatJSON, URL: e, Entry: e}
	if scheme, rest, ok := strings.Cut(e, "://"); ok {
		if f, s, ok := strings.Cut(scheme, "+"); ok {
			switch f {
			case FormatJSON, FormatSlack, FormatDiscord:
			default:
				return t, fmt.Errorf("unknown format %q: use json, slack or discord (slack+https://…)", f)
			}
			t.Format, t.URL = f, s+"://"+rest
		}
	}
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return t, errors.New("not an http(s) URL")
	}
	if u.User != nil {
		return t, errors.New("credentials in the URL: put the token in the path or query, as webhooks do")
	}
	return t, nil
}

// Settings are the notify.* settings.
type Settings struct {
	Targets      []Target
	AllowPrivate bool
	RetryBase    time.Duration // first retry's delay (doubled each attempt, capped at 30m)
	Timeout      time.Duration // one request
}

// ParseSettings reads notify.webhook-url entries, notify.allow-private and
// notify.retry-base; a bad one is an error naming the setting.
func ParseSettings(urls []string, allowPrivate, retryBase string) (Settings, error) {
	s := Settings{RetryBase: defaultRetryBase, Timeout: defaultRequestTimeout}
	for i, e := range urls {
		if strings.TrimSpace(e) == "" {
			continue
		}
		t, err := ParseTarget(e)
		if err != nil {
			// the entry without its path: a webhook's path is its token
			return s, fmt.Errorf("setting notify.webhook-url (entry %d, %s): %w", i+1, Target{Format: FormatJSON, URL: t.URL}.Display(), err)
		}
		s.Targets = append(s.Targets, t)
	}
	switch strings.TrimSpace(allowPrivate) {
	case "", "false":
	case "true":
		s.AllowPrivate = true
	default:
		return s, fmt.Errorf("setting notify.allow-private = %q: not true or false", allowPrivate)
	}
	if v := strings.TrimSpace(retryBase); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return s, fmt.Errorf("setting notify.retry-base = %q: not a positive duration (e.g. 5s)", retryBase)
		}
		s.RetryBase = d
	}
	return s, nil
}

// Target finds a target by its ID.
func (s Settings) Target(id string) (Target, bool) {
	for _, t := range s.Targets {
		if t.ID() == id {
			return t, true
		}
	}
	return Target{}, false
}

// Body is ev in the target's wire format: the JSON event itself, Slack's
// incoming-webhook {"text": …} or Discord's {"content": …}.
func Body(format string, ev Event) ([]byte, error) {
	line := fmt.Sprintf("helix %s: %s: %s (%s)", ev.Kind, ev.Subject, ev.Message, ev.Time.Format(time.RFC3339))
	switch format {
	case FormatSlack:
		return json.Marshal(map[string]string{"text": line})
	case FormatDiscord:
		if r := []rune(line); len(r) > 2000 { // Discord's limit
			line = string(r[:1999]) + "…"
		}
		return json.Marshal(map[string]string{"content": line})
	default:
		return json.Marshal(ev)
	}
}

// StatusError is a webhook's answer other than 2xx.
type StatusError struct {
	Status int
	Text   string
}

func (e *StatusError) Error() string { return fmt.Sprintf("webhook answered %s", e.Text) }

// HTTPStatus is the answer's status code (netguard.Permanent reads it).
func (e *StatusError) HTTPStatus() int { return e.Status }

// Send POSTs ev to t with hc (a netguard client) and returns the answer's
// status code; a non-2xx answer is a *StatusError.
func Send(ctx context.Context, hc *http.Client, t Target, ev Event) (int, error) {
	body, err := Body(t.Format, ev)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "helix-notify")
	req.Header.Set("Idempotency-Key", ev.ID)
	resp, err := hc.Do(req)
	if err != nil {
		// the URL (its token) must not reach a log or a job's error
		var ue *url.Error
		if errors.As(err, &ue) {
			if errors.Is(ue.Err, netguard.ErrPrivate) {
				return 0, fmt.Errorf("POST %s: %w; for webhooks, notify.allow-private: true allows it", t.Display(), ue.Err)
			}
			return 0, fmt.Errorf("POST %s: %w", t.Display(), ue.Err)
		}
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, &StatusError{Status: resp.StatusCode, Text: resp.Status}
	}
	return resp.StatusCode, nil
}

// Client is the HTTP client deliveries use: netguard's, so a private or
// loopback target is refused unless notify.allow-private.
func (s Settings) Client() *http.Client {
	return netguard.Client(s.AllowPrivate, s.Timeout)
}
