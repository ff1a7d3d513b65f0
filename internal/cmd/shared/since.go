package shared

import (
	"strconv"
	"strings"
	"time"

	"github.com/helixhq/helix/internal/cmdutil"
)

// ParseSince reads a --since value: an RFC 3339 time, or an age before now
// (90d, 12h).
func ParseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(d); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, cmdutil.FlagErrorf("invalid --since %q: use an RFC 3339 time (2026-10-01T00:00:00Z) or an age (90d, 12h)", s)
}
