package schedule

import (
	"fmt"
	"time"
	_ "time/tzdata" // --timezone works in a static binary on a host without zoneinfo

	"github.com/robfig/cron/v3"
)

// specParser accepts standard 5-field specs, an optional leading seconds
// field, and descriptors (@hourly, @every 15m): robfig/cron/v3's parser.
var specParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseSpec parses a cron spec in loc (a CRON_TZ= prefix in the spec wins).
// Specs are evaluated in wall-clock time: on a spring-forward day a time
// that does not exist is skipped, on a fall-back day one that occurs twice
// is two instants.
func ParseSpec(spec string, loc *time.Location) (cron.Schedule, error) {
	if o, isOnce, err := parseOnce(spec); isOnce {
		return o, err
	}
	s, err := specParser.Parse(spec)
	if err != nil {
		return nil, err
	}
	if ss, ok := s.(*cron.SpecSchedule); ok && ss.Location == time.Local {
		ss.Location = loc
	}
	return s, nil
}

// Parse reads a cron spec in the IANA time zone tz (ParseSpec); "Local" and
// "" are refused, so a schedule never depends on a host's setting.
func Parse(spec, tz string) (cron.Schedule, error) {
	loc, err := time.LoadLocation(tz)
	if err != nil || tz == "" || tz == "Local" {
		return nil, fmt.Errorf("invalid time zone %q: use an IANA zone such as UTC or Europe/Berlin", tz)
	}
	s, err := ParseSpec(spec, loc)
	if err != nil {
		return nil, fmt.Errorf("invalid cron spec %q: %w", spec, err)
	}
	return s, nil
}
