package schedule_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/notify"
	"github.com/helixhq/helix/internal/schedule"
	"github.com/helixhq/helix/internal/testbin"
)

// receiver is a local webhook: it records every POST, answering 500 to the
// first fail of them, 200 after.
type receiver struct {
	mu     sync.Mutex
	fail   int
	posts  int
	events []notify.Event // the bodies it answered 200 to
	srv    *httptest.Server
}

func newReceiver(t *testing.T, fail int) *receiver {
	r := &receiver{fail: fail}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.posts++
		if req.Method != http.MethodPost || r.posts <= r.fail {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		var ev notify.Event
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Errorf("webhook body %q: %v", b, err)
		}
		if req.Header.Get("Idempotency-Key") != ev.ID {
			t.Errorf("Idempotency-Key %q for event %s", req.Header.Get("Idempotency-Key"), ev.ID)
		}
		r.events = append(r.events, ev)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// startEnv is start with more environment.
func startEnv(t *testing.T, url string, env []string, args ...string) *testbin.Proc {
	t.Helper()
	return testbin.Start(t, append(os.Environ(), append([]string{"DATABASE_URL=" + url, "HELIX_DB_MAX_CONNS=8", "HELIX_DB_LOCK_TTL=3s"}, env...)...), args...)
}

func (r *receiver) got() (int, []notify.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.posts, append([]notify.Event(nil), r.events...)
}

// Issue 46, must show: a local webhook receiver gets one POST when a
// schedule with --max-failures 1 fails and disables itself, and none when
// the schedule's policy is never; a receiver that answers 500 three times
// then 200 still gets the event once (the outbox job retried with backoff).
func TestFailingScheduleNotifies(t *testing.T) {
	t.Parallel()
	url, pool := open(t)
	ok, flaky := newReceiver(t, 0), newReceiver(t, 3)
	w := startEnv(t, url, []string{"HELIX_NOTIFY_WEBHOOK_URL=" + ok.srv.URL + "/hook," + flaky.srv.URL + "/hook",
		"HELIX_NOTIFY_ALLOW_PRIVATE=true", "HELIX_NOTIFY_RETRY_BASE=100ms"}, workerArgs...)
	at := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339)
	// catalog verify fails without a pinned snapshot: one fire each
	mustHelix(t, url, "schedule", "add", "loud", "--once-at", at, "--max-failures", "1", "--", "catalog", "verify")
	mustHelix(t, url, "schedule", "add", "quiet", "--once-at", at, "--max-failures", "1", "--notify", "never", "--", "catalog", "verify")
	waitFor(t, 2*time.Minute, "both schedules to be disabled", func() bool {
		return scalar[int](t, pool, `SELECT count(*) FROM helix_schedules WHERE disabled_reason IS NOT NULL`) == 2
	})
	waitFor(t, 2*time.Minute, "the notifications to be delivered", func() bool {
		return scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'notify_deliver' AND state = 'completed'`) == 2
	})
	time.Sleep(time.Second) // nothing more comes
	stop(t, w)
	if n := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'notify_deliver'`); n != 2 {
		t.Errorf("%d notify_deliver jobs, want 2 (one event, two webhooks)", n)
	}
	posts, evs := ok.got()
	if posts != 1 || len(evs) != 1 {
		t.Fatalf("receiver got %d POSTs (%d taken), want 1", posts, len(evs))
	}
	ev := evs[0]
	if ev.Kind != notify.KindScheduleDisabled || ev.Subject != "schedule loud" || !strings.Contains(ev.Message, "no catalog snapshot is pinned") || ev.Time.IsZero() {
		t.Errorf("event %+v", ev)
	}
	posts, fevs := flaky.got()
	if posts != 4 || len(fevs) != 1 || fevs[0].ID != ev.ID {
		t.Errorf("flaky receiver: %d POSTs, %d taken (%+v); want 4 (three 500s, then 200) and the one event", posts, len(fevs), fevs)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE kind = 'notify_deliver' AND attempt = 4 AND state = 'completed'`); n != 1 {
		t.Errorf("%d deliveries completed at their 4th attempt, want the flaky one", n)
	}
	var l struct{ Schedules []schedule.Schedule }
	if err := json.Unmarshal([]byte(mustHelix(t, url, "schedule", "list", "-o", "json")), &l); err != nil {
		t.Fatal(err)
	}
	for _, s := range l.Schedules {
		want := map[string]string{"loud": "on-failure", "quiet": "never"}[s.Name]
		if s.Notify != want {
			t.Errorf("schedule %s: notify %q, want %q", s.Name, s.Notify, want)
		}
	}
}
