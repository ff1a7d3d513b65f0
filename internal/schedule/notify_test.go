package schedule

import (
	"testing"
	"time"

	"github.com/helixhq/helix/internal/notify"
)

// TestFireEvent: what each policy tells of each outcome.
func TestFireEvent(t *testing.T) {
	now := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	one := 1
	failed := &Result{Status: StatusFailed, ExitCode: &one, Error: "boom"}
	ok := &Result{Status: StatusOK}
	reason := "1 failures in a row; the last: exit 1: boom"
	for _, c := range []struct {
		policy   string
		res      *Result
		disabled *string
		want     string // event kind, "" for none
	}{
		{notify.PolicyOnFailure, failed, nil, notify.KindFireFailed},
		{notify.PolicyOnFailure, failed, &reason, notify.KindScheduleDisabled},
		{notify.PolicyOnFailure, ok, nil, ""},
		{notify.PolicyOnFailure, &Result{Status: StatusInterrupted}, nil, ""},
		{notify.PolicyAlways, ok, nil, notify.KindFireFinished},
		{notify.PolicyAlways, &Result{Status: StatusInterrupted}, nil, ""}, // retried: not finished
		{notify.PolicyAlways, failed, &reason, notify.KindScheduleDisabled},
		{notify.PolicyNever, failed, &reason, ""},
	} {
		ev, sent := fireEvent(c.policy, "nightly", 7, c.res, c.disabled, now)
		if got := map[bool]string{true: ev.Kind}[sent]; got != c.want {
			t.Errorf("%s, %s, disabled %v: %q, want %q", c.policy, c.res.Status, c.disabled != nil, got, c.want)
		}
		if sent && (ev.Subject != "schedule nightly" || !ev.Time.Equal(now) || ev.Message == "") {
			t.Errorf("event %+v", ev)
		}
	}
}
