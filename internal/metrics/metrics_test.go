package metrics

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/helixhq/helix/internal/httpretry"
	"github.com/helixhq/helix/internal/queuestats"
)

// TestProviderRequests: a call that gets a 503, then a 200, from a local
// server counts two requests, one 5xx error and one retry for that host.
func TestProviderRequests(t *testing.T) {
	t.Parallel()
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n++; n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"ok": true}`))
	}))
	defer srv.Close()
	m := New(prometheus.NewRegistry())
	c := &httpretry.Caller{Client: srv.Client(), MaxRetries: 3, Sleep: func(context.Context, time.Duration) error { return nil }}
	ctx := WithObservers(context.Background(), m)
	body, _, err := c.Do(ctx, 1<<10, func() (*http.Request, error) { return http.NewRequest(http.MethodPost, srv.URL+"/v1/embeddings", nil) },
		func(status int, _ http.Header, _ []byte) error { return errors.New(http.StatusText(status)) })
	if err != nil || string(body) != `{"ok": true}` {
		t.Fatalf("Do: %q %v", body, err)
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	for name, got := range map[string]float64{
		"requests": testutil.ToFloat64(m.provRequests.WithLabelValues(host)),
		"errors":   testutil.ToFloat64(m.provErrors.WithLabelValues(host, "5xx")),
		"retries":  testutil.ToFloat64(m.provRetries.WithLabelValues(host)),
	} {
		if want := map[string]float64{"requests": 2, "errors": 1, "retries": 1}[name]; got != want {
			t.Errorf("%s for %s: %v, want %v", name, host, got, want)
		}
	}
	if got := testutil.CollectAndCount(m.provLatency); got != 1 {
		t.Errorf("%d latency series, want 1", got)
	}
	// Without an observer in the context nothing is counted.
	if _, _, err := c.Do(context.Background(), 1<<10, func() (*http.Request, error) { return http.NewRequest(http.MethodGet, srv.URL, nil) },
		func(int, http.Header, []byte) error { return errors.New("no") }); err != nil {
		t.Fatal(err)
	}
	if v := testutil.ToFloat64(m.provRequests.WithLabelValues(host)); v != 2 {
		t.Errorf("requests %v after a call without an observer, want still 2", v)
	}
}

// TestWatch maps River's events to the job counters.
func TestWatch(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m := New(reg)
	ch := make(chan *river.Event, 10)
	stats := &river.JobStatistics{RunDuration: 20 * time.Millisecond}
	job := func(state rivertype.JobState) *rivertype.JobRow {
		return &rivertype.JobRow{Kind: "embed", State: state}
	}
	ch <- &river.Event{Kind: river.EventKindJobCompleted, Job: job(rivertype.JobStateCompleted), JobStats: stats}
	ch <- &river.Event{Kind: river.EventKindJobFailed, Job: job(rivertype.JobStateRetryable), JobStats: stats}
	ch <- &river.Event{Kind: river.EventKindJobFailed, Job: job(rivertype.JobStateDiscarded), JobStats: stats}
	ch <- &river.Event{Kind: river.EventKindJobCancelled, Job: job(rivertype.JobStateCancelled), JobStats: stats}
	ch <- &river.Event{Kind: river.EventKindJobSnoozed, Job: job(rivertype.JobStateScheduled), JobStats: stats}
	close(ch)
	m.Watch(ch)
	for c, want := range map[*prometheus.CounterVec]float64{m.completed: 1, m.failed: 2, m.retried: 1, m.discarded: 1, m.cancelled: 1, m.snoozed: 1, m.interrupted: 0} {
		if got := testutil.ToFloat64(c.WithLabelValues("embed")); got != want {
			t.Errorf("%v: %v, want %v", c, got, want)
		}
	}
	m.ScheduleFire("ok")
	m.ScheduleFire("auto_disabled")
	m.LLMUsage("openai/gpt-5-mini", 100, 20, 0, 0, 0.0003)
	if v := testutil.ToFloat64(m.tokens.WithLabelValues("openai/gpt-5-mini", "input")); v != 100 {
		t.Errorf("input tokens %v", v)
	}
	if v := testutil.ToFloat64(m.usd.WithLabelValues("openai/gpt-5-mini")); v != 0.0003 {
		t.Errorf("usd %v", v)
	}
	// Prometheus's own lint of names, help and units.
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if !strings.HasPrefix(p.Metric, "go_") && !strings.HasPrefix(p.Metric, "process_") {
			t.Errorf("lint: %s: %s", p.Metric, p.Text)
		}
	}
	if provider(&url.URL{}) != "unknown" {
		t.Error("a URL without a host is not unknown")
	}
}

// TestQueueKindsFolded: beyond --metrics-kinds, the kinds with fewest jobs
// are summed into kind="other" by state and queue; every queue with
// available jobs has its oldest age, a served queue without any has 0.
func TestQueueKindsFolded(t *testing.T) {
	t.Parallel()
	m := New(prometheus.NewRegistry())
	fig := &queuestats.Figures{Taken: time.Now(), Counts: []queuestats.Count{
		{State: "available", Queue: "synthesize", Kind: "synthesize", Jobs: 500},
		{State: "available", Queue: "imports", Kind: "import_a", Jobs: 3},
		{State: "available", Queue: "imports", Kind: "import_b", Jobs: 4, Estimated: true},
		{State: "completed", Queue: "embed", Kind: "embed", Jobs: 300},
		{State: "completed", Queue: "imports", Kind: "import_a", Jobs: 10},
	}, Oldest: []queuestats.Oldest{{Queue: "imports", AgeSeconds: 4740}}}
	m.WatchQueues(&queuestats.Cache{TTL: time.Hour, Read: func(context.Context) (*queuestats.Figures, error) { return fig, nil }},
		[]string{"synthesize"}, 2)
	want := `
# HELP helix_queue_jobs Jobs in river_job by state, queue and kind (all workers'); see helix_queue_jobs_estimated.
# TYPE helix_queue_jobs gauge
helix_queue_jobs{kind="embed",queue="embed",state="completed"} 300
helix_queue_jobs{kind="other",queue="imports",state="available"} 7
helix_queue_jobs{kind="other",queue="imports",state="completed"} 10
helix_queue_jobs{kind="synthesize",queue="synthesize",state="available"} 500
# HELP helix_queue_oldest_available_age_seconds Age of the oldest available job, by queue: every queue with available jobs, served or not (0: none available).
# TYPE helix_queue_oldest_available_age_seconds gauge
helix_queue_oldest_available_age_seconds{queue="imports"} 4740
helix_queue_oldest_available_age_seconds{queue="synthesize"} 0
`
	if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want), "helix_queue_jobs", "helix_queue_oldest_available_age_seconds"); err != nil {
		t.Error(err)
	}
	if got := FoldKinds(fig.Counts, 0); len(got) != len(fig.Counts) {
		t.Errorf("no limit folded %d counts into %d", len(fig.Counts), len(got))
	}
}
