package schedule

import (
	"strings"
	"testing"
	"time"
)

func TestParseSpec(t *testing.T) {
	from := time.Date(2026, 11, 1, 12, 0, 30, 0, time.UTC)
	for spec, want := range map[string]time.Time{
		"0 * * * *":     time.Date(2026, 11, 1, 13, 0, 0, 0, time.UTC),
		"*/5 * * * * *": time.Date(2026, 11, 1, 12, 0, 35, 0, time.UTC), // seconds field
		"@hourly":       time.Date(2026, 11, 1, 13, 0, 0, 0, time.UTC),
		"@every 15m":    from.Add(15 * time.Minute),
		"@daily":        time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC),
	} {
		s, err := ParseSpec(spec, time.UTC)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if got := s.Next(from); !got.Equal(want) {
			t.Errorf("%s: next after %s = %s, want %s", spec, from, got, want)
		}
	}
	for _, bad := range []string{"", "61 * * * *", "* * * *", "@fortnightly"} {
		if _, err := ParseSpec(bad, time.UTC); err == nil {
			t.Errorf("ParseSpec(%q) accepted", bad)
		}
	}
}

// What helix does at a daylight-saving transition in a non-UTC time zone
// (documented in README): robfig/cron evaluates specs in wall-clock time, so
// a time that does not exist on the spring-forward day is skipped (the job
// runs the next day), and a time that occurs twice on the fall-back day runs
// twice. Retention depends only on each memory's last access and the run's
// instant, so a skipped run is caught up in full by the next one and a doubled
// run recomputes the same curve an hour later: no drift either way.
func TestScheduleAcrossDST(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	next := func(spec string, from time.Time, n int) []string {
		s, err := ParseSpec(spec, ny)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for range n {
			from = s.Next(from)
			out = append(out, from.UTC().Format(time.RFC3339))
		}
		return out
	}
	check := func(name string, got []string, want ...string) {
		t.Helper()
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s:\n got %v\nwant %v", name, got, want)
		}
	}
	// 2026-03-08 02:00 EST → 03:00 EDT: 02:30 does not exist that day.
	check("daily 02:30 over spring-forward", next("30 2 * * *", time.Date(2026, 3, 7, 3, 0, 0, 0, ny), 2),
		"2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z")
	check("hourly over spring-forward", next("0 * * * *", time.Date(2026, 3, 8, 0, 30, 0, 0, ny), 3),
		"2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z", "2026-03-08T08:00:00Z") // 01:00 EST, 03:00 EDT, 04:00 EDT
	// 2026-11-01 02:00 EDT → 01:00 EST: 01:30 happens twice.
	check("daily 01:30 over fall-back", next("30 1 * * *", time.Date(2026, 10, 31, 3, 0, 0, 0, ny), 3),
		"2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", "2026-11-02T06:30:00Z")
	check("hourly over fall-back", next("0 * * * *", time.Date(2026, 11, 1, 0, 30, 0, 0, ny), 3),
		"2026-11-01T05:00:00Z", "2026-11-01T06:00:00Z", "2026-11-01T07:00:00Z") // 01:00 EDT, 01:00 EST, 02:00 EST
	// CRON_TZ in the spec wins over --timezone.
	check("CRON_TZ", next("CRON_TZ=UTC 30 2 * * *", time.Date(2026, 3, 7, 3, 0, 0, 0, ny), 1), "2026-03-08T02:30:00Z")
}
