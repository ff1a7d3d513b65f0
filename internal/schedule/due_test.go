package schedule

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
)

func fmtTicks(ts []Tick) string {
	var b []string
	for _, t := range ts {
		b = append(b, t.Kind+"@"+t.At.UTC().Format("15:04:05"))
	}
	return strings.Join(b, " ")
}

func TestDue(t *testing.T) {
	secs, err := Parse("* * * * * *", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	hourly, err := Parse("@hourly", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name    string
		s       cron.Schedule
		now     time.Time
		grace   time.Duration
		catchUp string
		want    string
		next    time.Time
	}{
		{"not yet", secs, t0.Add(-time.Millisecond), time.Minute, CatchUpNone, "", t0},
		{"one on time", secs, t0.Add(500 * time.Millisecond), time.Minute, CatchUpNone, "tick@12:00:00", t0.Add(time.Second)},
		{"a slow pass fires every tick it finds within MinGrace", secs, t0.Add(2500 * time.Millisecond), time.Minute, CatchUpNone,
			"tick@12:00:00 tick@12:00:01 tick@12:00:02", t0.Add(3 * time.Second)},
		// 12.5 s after 12:00:00: 12:00:08-12 are within MinGrace (5 s), 12:00:00-07 were missed.
		{"outage, none", secs, t0.Add(12500 * time.Millisecond), time.Minute, CatchUpNone,
			"tick@12:00:08 tick@12:00:09 tick@12:00:10 tick@12:00:11 tick@12:00:12", t0.Add(13 * time.Second)},
		{"outage, once: the latest missed one, late", secs, t0.Add(12500 * time.Millisecond), time.Minute, CatchUpOnce,
			"catch_up@12:00:07 tick@12:00:08 tick@12:00:09 tick@12:00:10 tick@12:00:11 tick@12:00:12", t0.Add(13 * time.Second)},
		{"hourly within grace", hourly, t0.Add(30 * time.Second), time.Minute, CatchUpNone, "tick@12:00:00", t0.Add(time.Hour)},
		{"hourly missed, none", hourly, t0.Add(2 * time.Minute), time.Minute, CatchUpNone, "", t0.Add(time.Hour)},
		{"hourly missed, once", hourly, t0.Add(2 * time.Minute), time.Minute, CatchUpOnce, "catch_up@12:00:00", t0.Add(time.Hour)},
		{"hours missed, once runs one", hourly, t0.Add(5*time.Hour + 2*time.Minute), time.Minute, CatchUpOnce, "catch_up@17:00:00", t0.Add(6 * time.Hour)},
		{"grace never below MinGrace", hourly, t0.Add(4 * time.Second), time.Second, CatchUpNone, "tick@12:00:00", t0.Add(time.Hour)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fires, next := Due(tt.s, t0, tt.now, tt.grace, tt.catchUp)
			if got := fmtTicks(fires); got != tt.want || !next.Equal(tt.next) {
				t.Errorf("Due = %q, next %s; want %q, next %s", got, next.Format(time.RFC3339), tt.want, tt.next.Format(time.RFC3339))
			}
		})
	}
}

// A year of a 1-second schedule missed: the walk jumps instead of taking
// 31M steps, and still finds the latest missed instant.
func TestDueLongOutage(t *testing.T) {
	secs, _ := Parse("@every 1s", "UTC")
	now := time.Date(2026, 11, 24, 12, 0, 0, 500_000_000, time.UTC)
	start := time.Now()
	fires, next := Due(secs, now.Add(-365*24*time.Hour), now, time.Minute, CatchUpOnce)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	if len(fires) == 0 || fires[0].Kind != KindCatchUp || now.Sub(fires[0].At) <= MinGrace || now.Sub(fires[0].At) > MinGrace+2*time.Second {
		t.Fatalf("fires %s", fmtTicks(fires))
	}
	for _, f := range fires[1:] {
		if f.Kind != KindTick || now.Sub(f.At) > MinGrace {
			t.Errorf("fire %s@%s", f.Kind, f.At)
		}
	}
	if !next.After(now) || next.Sub(now) > time.Second {
		t.Errorf("next %s", next)
	}
}

// Time zones and daylight saving (ParseSpec): tick passes every 20 s across
// the New York transitions of 2026 fire a 02:30 schedule not at all on the
// spring-forward day and a 01:30 schedule twice (01:30 EDT and 01:30 EST) on
// the fall-back day.
func TestDueAcrossDST(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	passes := func(spec string, from, to time.Time) []string {
		s, err := Parse(spec, "America/New_York")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		next := s.Next(from)
		for now := from; now.Before(to); now = now.Add(20 * time.Second) {
			var fires []Tick
			fires, next = Due(s, next, now, time.Minute, CatchUpNone)
			for _, f := range fires {
				got = append(got, f.At.UTC().Format(time.RFC3339))
			}
		}
		return got
	}
	check := func(name string, got []string, want ...string) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got %v\nwant %v", name, got, want)
		}
	}
	check("02:30 over spring-forward", passes("30 2 * * *", time.Date(2026, 3, 7, 3, 0, 0, 0, ny), time.Date(2026, 3, 9, 12, 0, 0, 0, ny)),
		"2026-03-09T06:30:00Z")
	check("01:30 over fall-back", passes("30 1 * * *", time.Date(2026, 10, 31, 3, 0, 0, 0, ny), time.Date(2026, 11, 2, 3, 0, 0, 0, ny)),
		"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", "2026-11-02T06:30:00Z")
	check("CRON_TZ wins over the time zone", passes("CRON_TZ=UTC 30 2 * * *", time.Date(2026, 3, 7, 3, 0, 0, 0, ny), time.Date(2026, 3, 8, 12, 0, 0, 0, ny)),
		"2026-03-08T02:30:00Z")
}
