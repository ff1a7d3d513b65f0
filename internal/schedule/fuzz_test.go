package schedule

import (
	"testing"
	"time"
)

// FuzzSpec: a schedule's cron spec and time zone (outside bytes, parsed at
// add and again at every tick pass) parse or fail cleanly; a parsed one
// makes a tick pass whose fires are in order, not after now, at most one
// catch-up, and whose next instant is after now.
func FuzzSpec(f *testing.F) {
	for _, s := range [][2]string{{"@every 1s", "UTC"}, {"0 2 * * *", "America/New_York"}, {"30 2 8 3 *", "America/New_York"},
		{"CRON_TZ=Asia/Tokyo 0 9 * * 1-5", "UTC"}, {"*/5 * * * * *", "Europe/Berlin"}, {"@daily", "Nowhere/Town"}, {"0 0 31 2 *", "UTC"},
		{"@every 0s", "UTC"}, {"", ""}, {"@hourly", "../../etc/passwd"}} {
		f.Add(s[0], s[1], int64(90), true)
	}
	base := time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, spec, tz string, late int64, once bool) {
		s, err := Parse(spec, tz)
		if err != nil {
			return
		}
		next := s.Next(base)
		if next.IsZero() {
			return
		}
		now := next.Add(time.Duration(late%(3*24*3600)) * time.Second)
		catchUp := CatchUpNone
		if once {
			catchUp = CatchUpOnce
		}
		fires, after := Due(s, next, now, time.Minute, catchUp)
		catchUps := 0
		for i, fi := range fires {
			if fi.At.After(now) || i > 0 && !fi.At.After(fires[i-1].At) {
				t.Fatalf("%q %q: fires %v at now %s", spec, tz, fires, now)
			}
			if fi.Kind == KindCatchUp {
				catchUps++
			}
		}
		if catchUps > 1 || catchUp == CatchUpNone && catchUps > 0 {
			t.Fatalf("%q %q: %d catch-ups with %s", spec, tz, catchUps, catchUp)
		}
		if !after.IsZero() && !after.After(now) {
			t.Fatalf("%q %q: next %s not after now %s", spec, tz, after, now)
		}
	})
}
