package jobs

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
)

func TestWaitFlags(t *testing.T) {
	t.Parallel()
	f, _ := cmdtest.Factory(t, false)
	var got *WaitOptions
	cmd := NewCmdWait(f, func(o *WaitOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"7", "3", "7", "--timeout", "90s"})
	if err := cmd.Execute(); err != nil || len(got.IDs) != 2 || got.IDs[0] != 7 || got.IDs[1] != 3 || got.Timeout != 90*time.Second {
		t.Fatalf("wait 7 3 7 --timeout 90s: %+v %v", got, err)
	}
	for _, args := range [][]string{{"x"}, {"0"}, {"1", "--timeout", "-1s"}} {
		cmd := NewCmdWait(f, func(*WaitOptions) error { return nil })
		cmd.SetArgs(args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		cmd.SetFlagErrorFunc(cmdutil.WrapFlagError)
		if err := cmd.Execute(); cmdutil.Code(err) != cmdutil.ExitUsage {
			t.Errorf("wait %v: %v, want a usage error", args, err)
		}
	}
}

// TestWaitStates: what a set of finished jobs stands for, read from
// river_job and the runs their workers recorded (job_runs.exit_code).
func TestWaitStates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	// 1 completed ok; 2 completed partial; 3 cancelled, classed unavailable;
	// 4 discarded with only River's error; 5 still available
	if _, err := pool.Exec(ctx, `INSERT INTO river_job (id, kind, queue, state, args, max_attempts, finalized_at, errors)
		VALUES (1, 'embed', 'embed', 'completed', '{"user_id": "11111111-1111-4111-8111-111111111111"}', 5, now(), '{}'),
		       (2, 'embed', 'embed', 'completed', '{}', 5, now(), '{}'),
		       (3, 'embed', 'embed', 'cancelled', '{}', 5, now(), ARRAY['{"at":"2026-11-28T00:00:00Z","attempt":1,"error":"dial tcp: refused"}'::jsonb]),
		       (4, 'embed', 'embed', 'discarded', '{}', 5, now(), ARRAY['{"at":"2026-11-28T00:00:00Z","attempt":5,"error":"boom"}'::jsonb]),
		       (5, 'embed', 'embed', 'available', '{}', 5, NULL, '{}');
		INSERT INTO job_runs (job, params, status, error, exit_code) VALUES
		       ('embed', '{"river_job_id": 1}', 'ok', NULL, NULL),
		       ('embed', '{"river_job_id": 2}', 'partial', '1 of 2 failed: x', NULL),
		       ('embed', '{"river_job_id": 3}', 'failed', 'provider unavailable', 4)`); err != nil {
		t.Fatal(err)
	}
	run := func(timeout time.Duration, ids ...string) (string, string, error) {
		t.Helper()
		f, s := cmdtest.Factory(t, false)
		cmdtest.WithDB(f, pool)
		f.Global.Output = "json"
		cmd := NewCmdWait(f, nil)
		args := append(ids, "--timeout", timeout.String())
		cmd.SetArgs(args)
		err := cmd.ExecuteContext(ctx)
		return s.Out.String(), s.Err.String(), err
	}
	for _, c := range []struct {
		ids  []string
		code cmdutil.ExitCode
		say  string
	}{
		{[]string{"1"}, cmdutil.ExitOK, `"kind":"done"`},
		{[]string{"2"}, cmdutil.ExitPartial, `"kind":"partial"`},
		{[]string{"3"}, cmdutil.ExitUnavailable, `"error":"provider unavailable"`},
		{[]string{"4"}, cmdutil.ExitFailed, `"error":"boom"`},
		{[]string{"1", "4"}, cmdutil.ExitPartial, `"kind":"failed"`},
		{[]string{"3", "4"}, cmdutil.ExitFailed, `"exit_code":4`},
		{[]string{"1", "5"}, cmdutil.ExitPending, `"kind":"pending"`},
		{[]string{"99"}, cmdutil.ExitUsage, ""},
	} {
		out, _, err := run(300*time.Millisecond, c.ids...)
		if got := cmdutil.Code(err); got != c.code || !strings.Contains(out, c.say) {
			t.Errorf("wait %v: exit %d (%v), want %d; stdout %s", c.ids, got, err, c.code, out)
		}
	}
	if _, _, err := run(time.Second, "1", "4"); err == nil || !strings.Contains(err.Error(), "job 4 (embed): boom") {
		t.Errorf("the error names the failed job: %v", err)
	}
	var pe *cmdutil.PartialError
	if _, _, err := run(time.Second, "1", "4"); !errors.As(err, &pe) {
		t.Errorf("one done, one failed: %v, want partial", err)
	}
}
