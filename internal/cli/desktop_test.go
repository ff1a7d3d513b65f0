package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
)

const (
	desktopUser = "11111111-1111-4111-8111-111111111111"
	otherUser   = "22222222-2222-4222-8222-222222222222"
)

// enqueued is an enqueuing command's -o json line.
type enqueued struct {
	Kind     string `json:"kind"`
	Queue    string `json:"queue"`
	Priority int    `json:"priority"`
	Enqueued int    `json:"enqueued"`
	Jobs     []struct {
		ID       int64   `json:"id"`
		Kind     string  `json:"kind"`
		Queue    string  `json:"queue"`
		UserID   *string `json:"user_id"`
		Priority int     `json:"priority"`
	} `json:"jobs"`
}

type waited struct {
	Jobs []struct {
		ID      int64  `json:"id"`
		State   string `json:"state"`
		Outcome struct {
			ExitCode int    `json:"exit_code"`
			Kind     string `json:"kind"`
			Error    string `json:"error"`
		} `json:"outcome"`
	} `json:"jobs"`
}

func decodeOne(t *testing.T, what, stdout string, v any) {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 {
		t.Fatalf("%s: stdout is not one line: %q", what, stdout)
	}
	if err := json.Unmarshal([]byte(stdout), v); err != nil {
		t.Fatalf("%s: %v: %q", what, err, stdout)
	}
}

// TestDesktopEnqueueWaitPatterns is the desktop app's round (issue 44):
// enqueue a user's synthesis and read the job's id, see the wait time out
// while no worker runs (exit 6, the job left queued), wait for a worker to
// complete it (exit 0), then read the user's patterns and jobs, no other
// user's, without SQL.
func TestDesktopEnqueueWaitPatterns(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	env := []string{"DATABASE_URL=" + url}
	root, _ := filepath.Abs("../..")
	mustRun(t, env, "import", "memories", filepath.Join(root, "testdata/demo/memories.jsonl"))
	mustRun(t, env, "synthesize", "--user-id", otherUser)

	r := mustRun(t, env, "synthesize", "--user-id", desktopUser, "--enqueue", "-o", "json")
	var e enqueued
	decodeOne(t, "synthesize --enqueue", r.stdout, &e)
	if len(e.Jobs) != 1 || e.Jobs[0].ID == 0 || e.Jobs[0].UserID == nil || *e.Jobs[0].UserID != desktopUser ||
		e.Jobs[0].Kind != "synthesize" || e.Jobs[0].Queue != "synthesize" || e.Jobs[0].Priority != 1 {
		t.Fatalf("synthesize --enqueue -o json: want one job of the user at priority 1, got %s", r.stdout)
	}
	id := strconv.FormatInt(e.Jobs[0].ID, 10)
	// the text form names it too
	if r := mustRun(t, env, "synthesize", "--user-id", desktopUser, "--enqueue"); !strings.HasSuffix(strings.TrimSpace(r.stdout), "jobs "+id) {
		t.Errorf("text enqueue (a duplicate) should end with the live job's id %s: %q", id, r.stdout)
	}

	// nobody works the queue: the wait gives up, the job stays
	r = helix(t, env, "", "jobs", "wait", id, "--timeout", "1s", "-o", "json")
	if r.code != 6 {
		t.Fatalf("jobs wait --timeout 1s with no worker: exit %d, want 6 (pending)\n%s", r.code, r.stderr)
	}
	checkJSONContract(t, "jobs wait --timeout", r)
	var w waited
	decodeOne(t, "jobs wait --timeout", r.stdout, &w)
	if len(w.Jobs) != 1 || w.Jobs[0].State != "available" || w.Jobs[0].Outcome.Kind != "pending" {
		t.Errorf("jobs wait --timeout: want the job still available, got %s", r.stdout)
	}

	// jobs list --user-id finds it, and not for another user
	r = mustRun(t, env, "jobs", "list", "--user-id", desktopUser, "-o", "json")
	if !strings.Contains(r.stdout, `"id":`+id+`,`) {
		t.Errorf("jobs list --user-id %s does not list job %s: %s", desktopUser, id, r.stdout)
	}
	r = mustRun(t, env, "jobs", "list", "--user-id", otherUser, "-o", "json")
	if strings.Contains(r.stdout, `"id":`+id+`,`) {
		t.Errorf("jobs list --user-id %s lists the other user's job %s: %s", otherUser, id, r.stdout)
	}

	wk := start(t, env, "worker", "--queues", "synthesize", "--poll-interval", "100ms")
	r = helix(t, env, "", "jobs", "wait", id, "--timeout", "2m", "-o", "json")
	if r.code != 0 {
		t.Fatalf("jobs wait with a worker: exit %d, want 0\n%s\nworker:\n%s", r.code, r.stderr, wk.Stderr.String())
	}
	checkJSONContract(t, "jobs wait", r)
	decodeOne(t, "jobs wait", r.stdout, &w)
	if len(w.Jobs) != 1 || w.Jobs[0].State != "completed" || w.Jobs[0].Outcome.Kind != "done" {
		t.Errorf("jobs wait: want the job completed and done, got %s", r.stdout)
	}
	if !strings.Contains(r.stderr, `"job":`+id) {
		t.Errorf("jobs wait: no progress line on stderr naming job %s: %q", id, r.stderr)
	}
	_ = wk.Cmd.Process.Signal(syscall.SIGTERM)
	wk.Wait(t, time.Minute)

	// the user's patterns, and only theirs
	r = mustRun(t, env, "patterns", "list", "--user-id", desktopUser, "-o", "json")
	var pl struct {
		Patterns []struct {
			ID          string   `json:"id"`
			UserID      string   `json:"user_id"`
			Source      string   `json:"source"`
			EvidenceIDs []string `json:"evidence_ids"`
			Confidence  *float64 `json:"confidence"`
			CreatedAt   string   `json:"created_at"`
		} `json:"patterns"`
	}
	decodeOne(t, "patterns list", r.stdout, &pl)
	if len(pl.Patterns) == 0 {
		t.Fatalf("patterns list --user-id %s after the synthesis: none", desktopUser)
	}
	for _, p := range pl.Patterns {
		if p.UserID != desktopUser || p.Source != "statistical" || len(p.EvidenceIDs) == 0 || p.Confidence == nil || p.CreatedAt == "" {
			t.Errorf("patterns list: unexpected pattern %+v", p)
		}
	}
	r = mustRun(t, env, "patterns", "list", "--user-id", otherUser, "-o", "json")
	var other struct {
		Patterns []struct {
			ID     string `json:"id"`
			UserID string `json:"user_id"`
		} `json:"patterns"`
	}
	decodeOne(t, "patterns list (other)", r.stdout, &other)
	if len(other.Patterns) == 0 {
		t.Fatalf("patterns list --user-id %s: none", otherUser)
	}
	for _, p := range other.Patterns {
		if p.UserID != otherUser || p.ID == pl.Patterns[0].ID {
			t.Errorf("patterns list --user-id %s returned %+v", otherUser, p)
		}
	}
	r = mustRun(t, env, "patterns", "show", pl.Patterns[0].ID, "--user-id", desktopUser, "-o", "json")
	if !strings.Contains(r.stdout, pl.Patterns[0].ID) {
		t.Errorf("patterns show: %s", r.stdout)
	}
	// another user's pattern is not found
	r = helix(t, env, "", "patterns", "show", other.Patterns[0].ID, "--user-id", desktopUser, "-o", "json")
	if r.code != 2 || !strings.Contains(r.stderr, "no pattern") {
		t.Errorf("patterns show of another user's pattern: exit %d, want 2 (not found)\n%s", r.code, r.stderr)
	}
}

// TestJobsWaitFailedJob: a job whose only unit fails makes jobs wait exit
// non-zero with the job's error. The unit is a catalog fetch from a server
// answering malformed JSON, which the worker cancels at once (a source that
// cannot work).
func TestJobsWaitFailedJob(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"openai": [not json`))
	}))
	defer srv.Close()
	env := []string{"DATABASE_URL=" + pgtest.URL(t)}
	r := mustRun(t, env, "catalog", "fetch", "--source", srv.URL+"/api.json", "--allow-private", "--enqueue", "-o", "json")
	var e enqueued
	decodeOne(t, "catalog fetch --enqueue", r.stdout, &e)
	if len(e.Jobs) != 1 || e.Jobs[0].UserID != nil {
		t.Fatalf("catalog fetch --enqueue: want one job without a user, got %s", r.stdout)
	}
	id := strconv.FormatInt(e.Jobs[0].ID, 10)
	wk := start(t, env, "worker", "--queues", "catalog", "--poll-interval", "100ms")
	r = helix(t, env, "", "jobs", "wait", id, "--timeout", "2m", "-o", "json")
	_ = wk.Cmd.Process.Signal(syscall.SIGTERM)
	wk.Wait(t, time.Minute)
	if r.code == 0 || r.code == 6 {
		t.Fatalf("jobs wait of a failed job: exit %d, want a failure\n%s\nworker:\n%s", r.code, r.stderr, wk.Stderr.String())
	}
	checkJSONContract(t, "jobs wait (failed)", r)
	var w waited
	decodeOne(t, "jobs wait (failed)", r.stdout, &w)
	if len(w.Jobs) != 1 || w.Jobs[0].State != "cancelled" || w.Jobs[0].Outcome.ExitCode != r.code || w.Jobs[0].Outcome.Error == "" {
		t.Errorf("jobs wait: want the job cancelled with its error and exit %d, got %s", r.code, r.stdout)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	var fe struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &fe); err != nil || !strings.Contains(fe.Error.Message, w.Jobs[0].Outcome.Error) {
		t.Errorf("the final error does not carry the job's error %q: %s", w.Jobs[0].Outcome.Error, r.stderr)
	}
}
