package shared

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/helixhq/helix/internal/cmdutil"
)

// ParseSince reads --since: an RFC 3339 time or an age before now (90d, 12h).
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

// Printable is outside text made safe for a terminal: control characters
// (ESC, tabs, newlines included) are shown escaped (\x1b), never interpreted.
func Printable(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
