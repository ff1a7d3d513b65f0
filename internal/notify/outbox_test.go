package notify

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/helixhq/helix/internal/pgtest"
)

// TestDiscardedJobNotifies: the worker middleware queues job_discarded for
// a job whose last attempt failed, and nothing for an earlier attempt, a
// cancelled or snoozed job, or a notify_deliver job itself.
func TestDiscardedJobNotifies(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	s, err := ParseSettings([]string{"https://a.example/hook"}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	o := OutboxOf(s, nil)
	mw := o.Middleware(pool, func() time.Time { return time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC) })
	boom := errors.New("provider down: key sk-live-abcdefghijklmnopqrstuvwx")
	for _, c := range []struct {
		kind         string
		attempt, max int
		err          error
	}{
		{"embed", 2, 10, boom},                          // retried
		{"embed", 10, 10, river.JobCancel(boom)},        // cancelled, not discarded
		{"embed", 10, 10, river.JobSnooze(time.Second)}, // snoozed
		{"notify_deliver", 12, 12, boom},                // no notification of a notification
		{"embed", 10, 10, nil},                          // worked
		{"embed", 10, 10, boom},                         // discarded: this one
	} {
		job := &rivertype.JobRow{ID: 42, Kind: c.kind, Attempt: c.attempt, MaxAttempts: c.max}
		var inner *Outbox
		got := mw.Work(ctx, job, func(ctx context.Context) error { inner = FromContext(ctx); return c.err })
		if got != c.err || inner != o {
			t.Errorf("%+v: middleware returned %v (outbox in the job's context: %v)", c, got, inner != nil)
		}
	}
	var n int
	var subject, msg string
	if err := pool.QueryRow(ctx, `SELECT count(*) OVER (), args->'event'->>'subject', args->'event'->>'message' FROM river_job WHERE kind = 'notify_deliver'`).Scan(&n, &subject, &msg); err != nil {
		t.Fatal(err)
	}
	if n != 1 || subject != "job 42 (embed)" || msg == "" {
		t.Errorf("%d notifications, subject %q, message %q; want one for job 42", n, subject, msg)
	}
}
