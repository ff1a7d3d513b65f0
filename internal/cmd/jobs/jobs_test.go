package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/schedule"
	"github.com/helixhq/helix/internal/synthesis"
)

// TestJobs enqueues two users' jobs (and one again: unique while live),
// then lists, shows, cancels and retries them through the commands.
func TestJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	c, err := queue.NewInsertClient(pool)
	if err != nil {
		t.Fatal(err)
	}
	a, b := uuid.New(), uuid.New()
	args := []queue.SynthesizeArgs{{UserID: a, Params: synthesis.DefaultParams()}, {UserID: b, Params: synthesis.DefaultParams()}}
	if res, err := queue.Enqueue(ctx, c, args, queue.PriorityUser); err != nil || res.Enqueued != 2 {
		t.Fatalf("enqueue: %+v %v", res, err)
	}
	if res, err := queue.Enqueue(ctx, c, args[:1], queue.PriorityUser); err != nil || res.Enqueued != 0 || res.Duplicates != 1 {
		t.Fatalf("enqueue again while pending: %+v %v, want a duplicate", res, err)
	}
	run := func(argv string) (string, error) {
		f, s := cmdtest.Factory(t, false)
		cmdtest.WithDB(f, pool)
		f.Global.Output = "json"
		cmd := NewCmdJobs(f)
		cmd.SetArgs(strings.Fields(argv))
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.ExecuteContext(ctx)
		return s.Out.String(), err
	}
	out, err := run("list --state available")
	if err != nil {
		t.Fatal(err)
	}
	var l struct{ Jobs []Job }
	if err := json.Unmarshal([]byte(out), &l); err != nil || len(l.Jobs) != 2 || l.Jobs[0].Kind != "synthesize" {
		t.Fatalf("list: %v %s", err, out)
	}
	id := l.Jobs[0].ID
	// the scheduler's ticks are helix's own: listed only on request
	if _, err := c.Insert(ctx, schedule.TickArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	for argv, want := range map[string]int{"list": 2, "list --all": 3, "list --kind schedule_tick": 1} {
		out, err := run(argv)
		if err := errors.Join(err, json.Unmarshal([]byte(out), &l)); err != nil || len(l.Jobs) != want {
			t.Errorf("%s: %d jobs (%v), want %d\n%s", argv, len(l.Jobs), err, want, out)
		}
	}
	var j Job
	for _, c := range []struct{ verb, want string }{{"show", "available"}, {"cancel", "cancelled"}} {
		out, err := run(c.verb + " " + jsonID(id))
		if err != nil || json.Unmarshal([]byte(out), &j) != nil || j.State != c.want {
			t.Fatalf("%s: state %q (%v), want %s\n%s", c.verb, j.State, err, c.want, out)
		}
	}
	if out, err := run("retry " + jsonID(id)); err != nil || json.Unmarshal([]byte(out), &j) != nil || j.State != "available" {
		t.Fatalf("retry: state %q (%v)", j.State, err)
	}
	var ee *cmdutil.ExitError
	if _, err := run("show 999999"); !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage {
		t.Fatalf("show of a missing job: %v, want exit 2", err)
	}
	var fe *cmdutil.FlagError
	if _, err := run("show abc"); !errors.As(err, &fe) {
		t.Fatalf("show abc: %v, want a flag error", err)
	}
}

func jsonID(id int64) string { b, _ := json.Marshal(id); return string(b) }

// Issue 32, finding 1: cancelling a job whose worker died finalizes it (no
// worker is left to honour River's request) and says so; a job running on a
// live worker stays running until that worker stops it.
func TestCancelOrphanedJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	c, err := queue.NewInsertClient(pool)
	if err != nil {
		t.Fatal(err)
	}
	dead, live := queue.NewClientID(time.Now()), queue.NewClientID(time.Now().Add(time.Second))
	release, err := queue.Alive(ctx, pool, live, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ids := map[string]int64{}
	for _, w := range []string{dead, live} {
		r, err := c.Insert(ctx, queue.SynthesizeArgs{UserID: uuid.New(), Params: synthesis.DefaultParams()}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now(), attempted_by = ARRAY[$2] WHERE id = $1`, r.Job.ID, w); err != nil {
			t.Fatal(err)
		}
		ids[w] = r.Job.ID
	}
	for _, tc := range []struct {
		worker, state, says string
	}{{dead, "cancelled", "worker that died: cancelled it"}, {live, "running", "cancel requested, its worker stops it"}} {
		f, s := cmdtest.Factory(t, false)
		cmdtest.WithDB(f, pool)
		f.Global.Output = "json"
		cmd := NewCmdJobs(f)
		cmd.SetArgs([]string{"cancel", jsonID(ids[tc.worker])})
		if err := cmd.ExecuteContext(ctx); err != nil {
			t.Fatal(err)
		}
		var j Job
		if err := json.Unmarshal(s.Out.Bytes(), &j); err != nil || j.State != tc.state {
			t.Errorf("cancel a job of worker %s: state %q (%v), want %s", tc.worker, j.State, err, tc.state)
		}
		if !strings.Contains(s.Err.String(), tc.says) || !strings.Contains(s.Err.String(), tc.worker) {
			t.Errorf("cancel said %q, want %q", s.Err.String(), tc.says)
		}
	}
}
