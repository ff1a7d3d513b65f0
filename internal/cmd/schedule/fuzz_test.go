package schedule_test

import (
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/cmd/root"
	cmdschedule "github.com/helixhq/helix/internal/cmd/schedule"
	"github.com/helixhq/helix/internal/cmdtest"
)

// FuzzJobLine: a schedule's job line (the words after --, outside bytes
// stored and run later) is resolved against the real command tree without
// panicking; an accepted one names a job command and resolves the same
// way again (what the worker does at each fire).
func FuzzJobLine(f *testing.F) {
	for _, s := range []string{"decay run --full", "synthesize --all-users", "sync reconcile --batch 500", "decay", "worker --once",
		"--log-level debug decay run", "decay run --chunk-size x", "decay run -o json", "catalog verify\x00x", "decay run --config=/x"} {
		f.Add(s)
	}
	rt, _ := cmdtest.Factory(f, false)
	f.Fuzz(func(t *testing.T, line string) {
		argv := strings.Fields(line)
		path, err := cmdschedule.ValidateJob(root.NewCmdRoot(rt), argv)
		if err != nil {
			return
		}
		if path == "" || !strings.HasPrefix(strings.Join(argv, " "), strings.Fields(path)[0]) {
			t.Fatalf("%q accepted as job %q", argv, path)
		}
		again, err := cmdschedule.ValidateJob(root.NewCmdRoot(rt), argv)
		if err != nil || again != path {
			t.Fatalf("%q: %q then %q %v", argv, path, again, err)
		}
	})
}
