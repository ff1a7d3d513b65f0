package cli

import (
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/pgtest"
)

// TestBadRetentionSettingIsExit2 (issue 48): a retention.* period that
// does not parse stops jobs prune and the worker at start, exit 2, naming
// the key and where it came from; nothing is deleted with a default.
func TestBadRetentionSettingIsExit2(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	for _, args := range [][]string{{"jobs", "prune", "--dry-run"}, {"worker", "--once"}} {
		r := helix(t, []string{"DATABASE_URL=" + url, "HELIX_RETENTION_COMPLETED_JOBS=a week"}, "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "retention.completed-jobs") || !strings.Contains(r.stderr, "HELIX_RETENTION_COMPLETED_JOBS") {
			t.Errorf("helix %s with a bad retention setting: exit %d, want 2 naming it\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}
