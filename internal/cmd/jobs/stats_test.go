package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
)

func TestStatsFlags(t *testing.T) {
	t.Parallel()
	f, _ := cmdtest.Factory(t, false)
	var got *StatsOptions
	cmd := NewCmdStats(f, func(o *StatsOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--exact-up-to", "500"})
	if err := cmd.Execute(); err != nil || got.ExactTo != 500 {
		t.Fatalf("--exact-up-to 500: %+v %v", got, err)
	}
	cmd = NewCmdStats(f, func(*StatsOptions) error { return nil })
	cmd.SetArgs([]string{"--exact-up-to", "0"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	var fe *cmdutil.FlagError
	if err := cmd.Execute(); !errors.As(err, &fe) {
		t.Fatalf("--exact-up-to 0: %v, want a flag error", err)
	}
}

// TestStats counts jobs exactly, then above --exact-up-to as estimates,
// as a table (TTY and not) and as JSON.
func TestStats(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	if _, err := pool.Exec(ctx, `INSERT INTO river_job (kind, queue, state, args, max_attempts, scheduled_at, finalized_at)
		SELECT k, q, s::river_job_state, '{}', 5, now() - interval '90 seconds',
		       CASE WHEN s = 'completed' THEN now() END
		FROM (VALUES ('embed', 'embed', 'available', 2), ('synthesize', 'synthesize', 'available', 1),
		             ('synthesize', 'synthesize', 'completed', 30)) v(k, q, s, n), generate_series(1, n)`); err != nil {
		t.Fatal(err)
	}
	run := func(tty bool, json bool, args ...string) (string, string) {
		t.Helper()
		f, s := cmdtest.Factory(t, tty)
		cmdtest.WithDB(f, pool)
		if json {
			f.Global.Output = "json"
		}
		cmd := NewCmdStats(f, nil)
		cmd.SetArgs(args)
		if err := cmd.ExecuteContext(ctx); err != nil {
			t.Fatal(err)
		}
		return s.Out.String(), s.Err.String()
	}
	out, _ := run(false, false)
	age := regexp.MustCompile(`\t(9\d|1\d\d)s\n`)
	want := "available\tembed\tembed\t2\navailable\tsynthesize\tsynthesize\t1\ncompleted\tsynthesize\tsynthesize\t30\n\n"
	if !strings.HasPrefix(out, want) || len(age.FindAllString(out, -1)) != 2 || !strings.Contains(out, "\nembed\t") {
		t.Errorf("jobs stats (not a TTY):\n%s\nwant it to start\n%s", out, want)
	}
	if out, _ := run(true, false); !strings.Contains(out, "available  embed       embed       2\n") || !strings.Contains(out, "OLDEST AVAILABLE") {
		t.Errorf("jobs stats (TTY) not aligned:\n%s", out)
	}
	if out, _ := run(false, false, "--exact-up-to", "10"); !regexp.MustCompile(`completed\tsynthesize\tsynthesize\t~\d+\n`).MatchString(out) {
		t.Errorf("jobs stats --exact-up-to 10: completed not estimated:\n%s", out)
	}
	out, _ = run(false, true)
	var st Stats
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(st.States) != 8 || st.States[0].State != "available" || st.States[0].Jobs != 3 || st.States[5].Jobs != 30 ||
		len(st.Counts) != 3 || len(st.Oldest) != 2 || st.Oldest[0].Queue != "embed" || st.Oldest[0].AgeSeconds < 90 {
		t.Errorf("jobs stats -o json:\n%s", out)
	}
}
