package notify_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/testbin"
)

func TestMain(m *testing.M) { testbin.Main(m, 2) }

// TestNotifyTest: helix notify test POSTs one test event to every webhook,
// in its format, and reports each answer: one that takes it and one that
// answers 503 make exit 3; a loopback webhook without notify.allow-private
// is refused (nothing sent, exit 1); a bad setting is exit 2 naming it.
func TestNotifyTest(t *testing.T) {
	var slackBody atomic.Value
	var posts atomic.Int32
	slack := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		b, _ := io.ReadAll(r.Body)
		slackBody.Store(string(b))
	}))
	defer slack.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer down.Close()
	run := func(env ...string) (*testbin.Proc, int) {
		p := testbin.Start(t, append(os.Environ(), env...), "notify", "test", "-o", "json")
		return p, p.Wait(t, time.Minute)
	}
	urls := "HELIX_NOTIFY_WEBHOOK_URL=slack+" + slack.URL + "/services/T0/B0/tok3n," + down.URL + "/hook"
	p, code := run(urls, "HELIX_NOTIFY_ALLOW_PRIVATE=true")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, p.Stdout.String(), p.Stderr.String())
	}
	var out struct {
		Event    struct{ Kind string }
		Webhooks []struct {
			Webhook, Format string
			OK              bool
			Status          int
		}
	}
	if err := json.Unmarshal([]byte(p.Stdout.String()), &out); err != nil {
		t.Fatalf("%s: %v", p.Stdout.String(), err)
	}
	if out.Event.Kind != "test" || len(out.Webhooks) != 2 || !out.Webhooks[0].OK || out.Webhooks[0].Format != "slack" ||
		out.Webhooks[1].OK || out.Webhooks[1].Status != 503 {
		t.Errorf("report %+v", out)
	}
	if strings.Contains(p.Stdout.String()+p.Stderr.String(), "tok3n") {
		t.Errorf("the webhook's token is printed:\n%s%s", p.Stdout.String(), p.Stderr.String())
	}
	var sb map[string]string
	if err := json.Unmarshal([]byte(slackBody.Load().(string)), &sb); err != nil || !strings.Contains(sb["text"], "test") || len(sb) != 1 {
		t.Errorf("slack body %v (%v), want {\"text\": …}", slackBody.Load(), err)
	}
	before := posts.Load()
	if p, code := run(urls); code != 1 || posts.Load() != before || !strings.Contains(p.Stdout.String(), "notify.allow-private") {
		t.Errorf("loopback without allow-private: exit %d, %d POSTs\n%s", code, posts.Load()-before, p.Stdout.String())
	}
	if p, code := run("HELIX_NOTIFY_WEBHOOK_URL=teams+https://example.com/x"); code != 2 || !strings.Contains(p.Stderr.String(), "notify.webhook-url") {
		t.Errorf("bad format: exit %d\n%s", code, p.Stderr.String())
	}
}
