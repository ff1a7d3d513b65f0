package factory

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/iostreams"
)

// TestLogLinesNeverSayError: whoever logs an "error" attribute (River, cron,
// helix), the line says "err": on stderr "error" is the final error object's.
func TestLogLinesNeverSayError(t *testing.T) {
	for _, g := range []cmdutil.GlobalOptions{{Output: "json", LogLevel: "info", LogFormat: "text"}, {Output: "text", LogLevel: "info", LogFormat: "text"}} {
		ios, _, _, errOut := iostreams.Test()
		l := NewLogger(ios, &g)
		l.Warn("job failed", "error", errors.New("boom"), "job", "decay")
		l.With("error", "held").Info("skipped")
		lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("%s: %q", g.Output, errOut)
		}
		for _, line := range lines {
			if g.Output == "json" {
				var obj map[string]any
				if err := json.Unmarshal([]byte(line), &obj); err != nil {
					t.Fatalf("not JSON: %q", line)
				}
				if _, has := obj["error"]; has || obj["err"] == nil {
					t.Errorf("log line %q: want err, not error", line)
				}
			} else if strings.Contains(line, " error=") || !strings.Contains(line, " err=") {
				t.Errorf("text log line %q: want err=, not error=", line)
			}
		}
	}
}
