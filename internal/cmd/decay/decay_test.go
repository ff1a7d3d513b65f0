package decay

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/decay"
	"github.com/helixhq/helix/internal/pgtest"
)

const user = "6f1c2a4e-0b7d-4d8e-9a51-3c2f1e0d9b8a"

// exitCode is the exit status helix gives err. A required flag that is
// missing is refused by cobra itself, before the command's code runs, which
// cli.Main makes a usage error; the rest is the one table.
func exitCode(err error) cmdutil.ExitCode {
	if err != nil && strings.HasPrefix(err.Error(), "required flag") {
		err = &cmdutil.FlagError{Err: err}
	}
	return cmdutil.Code(err)
}

func TestRunFlags(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	var got *RunOptions
	cmd := NewCmdRun(f, func(o *RunOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--at", "2026-11-01T12:00:00+01:00", "--forget-below", "0.1", "--user-id", user, "--batch-size", "10"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.atTime.Equal(time.Date(2026, 11, 1, 11, 0, 0, 0, time.UTC)) || got.ForgetBelow != 0.1 || got.UserID.String() != user || got.ChunkSize != 10 {
		t.Errorf("options = %+v", got)
	}

	cmd = NewCmdRun(f, func(o *RunOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--at", "2026-03-08", "--full"})
	if err := cmd.Execute(); err != nil || !got.atTime.Equal(time.Date(2026, 3, 8, 0, 0, 0, 0, time.UTC)) || got.ChunkSize != decay.DefaultChunkSize || !got.Full {
		t.Errorf("date --at: %+v, %v", got, err)
	}

	for _, args := range [][]string{
		{"--at", "yesterday"}, {"--forget-below", "1.5"}, {"--forget-below", "-0.1"},
		{"--batch-size", "0"}, {"--user-id", "bob"}, {"extra"}, {"--dry-run", "--enqueue"},
	} {
		cmd := NewCmdRun(f, func(*RunOptions) error { t.Errorf("%v: runF called", args); return nil })
		cmd.SetArgs(args)
		cmd.SetFlagErrorFunc(cmdutil.WrapFlagError)
		cmdutil.WrapArgs(cmd) // as under the root
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		if err := cmd.Execute(); exitCode(err) != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d (%v), want 2", args, exitCode(err), err)
		}
	}
}

func TestScheduleFlags(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	var got *ScheduleOptions
	cmd := NewCmdSchedule(f, func(o *ScheduleOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--cron", "*/5 * * * * *", "--run-now", "--jitter", "30s", "--timezone", "Europe/Berlin", "--shutdown-timeout", "10s", "--forget-below", "0.05"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.RunNow || got.Jitter != 30*time.Second || got.Timezone != "Europe/Berlin" || got.ShutdownTimeout != 10*time.Second || got.ForgetBelow != 0.05 {
		t.Errorf("options = %+v", got)
	}
	// The stored schedule: name "decay", the job line decay run with the flags that shape it.
	if sp := got.spec; sp.Name != "decay" || sp.Cron != "*/5 * * * * *" || sp.Timezone != "Europe/Berlin" || sp.Jitter != 30*time.Second ||
		strings.Join(sp.Argv, " ") != "decay run --forget-below 0.05" || sp.CatchUp != "none" || sp.MaxFailures != 0 {
		t.Errorf("stored schedule = %+v", sp)
	}
	cmd = NewCmdSchedule(f, func(o *ScheduleOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--cron", "@daily", "--name", "decay-one-user", "--user-id", "6f1c2a4e-0b7d-4d8e-9a51-3c2f1e0d9b8a", "--batch-size", "500"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if sp := got.spec; sp.Name != "decay-one-user" || strings.Join(sp.Argv, " ") != "decay run --batch-size 500 --user-id 6f1c2a4e-0b7d-4d8e-9a51-3c2f1e0d9b8a" {
		t.Errorf("stored schedule = %+v", sp)
	}

	cmd = NewCmdSchedule(f, func(o *ScheduleOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--cron", "@hourly"})
	if err := cmd.Execute(); err != nil || got.spec.Timezone != "UTC" || got.spec.Name != "decay" || got.ShutdownTimeout != 5*time.Minute {
		t.Errorf("defaults: %+v, %v", got, err)
	}

	for _, args := range [][]string{
		{}, {"--cron", "every hour"}, {"--cron", "@hourly", "--timezone", "Mars/Olympus"},
		{"--cron", "@hourly", "--jitter", "-1s"}, {"--cron", "@hourly", "--batch-size", "-3"},
		{"--cron", "@hourly", "--timezone", "Local"}, {"--cron", "@hourly", "--name", "Bad Name"},
	} {
		cmd := NewCmdSchedule(f, func(*ScheduleOptions) error { t.Errorf("%v: runF called", args); return nil })
		cmd.SetArgs(args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		if err := cmd.Execute(); exitCode(err) != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d (%v), want 2", args, exitCode(err), err)
		}
	}
}

// seed writes three memories and one user's seven layers, all created or
// updated at known instants before the test clock (2026-11-01T12:00:00Z).
func seed(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `
		INSERT INTO memories (user_id, type, content, created_at, last_accessed, access_count, stability)
		VALUES ($1, 'episodic', 'a walk', '2026-10-01T12:00:00Z', NULL, 0, NULL),
		       ($1, 'semantic', 'a fact', '2026-10-22T12:00:00Z', NULL, 0, 10),
		       ($1, 'procedural', 'a habit', '2026-09-01T12:00:00Z', '2026-10-31T12:00:00Z', 3, 30)`, user); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO psychology_layers (user_id, layer_number, layer_name, last_updated)
		SELECT $1, n, 'layer ' || n, '2026-10-25T12:00:00Z' FROM generate_series(1, 7) n`, user); err != nil {
		t.Fatal(err)
	}
}

var progressBar = regexp.MustCompile(`^\rdecay \[=+ *\] 1/2.*\rdecay \[=+\] 2/2 \d+(\.\d+)?[µm]?s\n$`)

func TestRunRun(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{true, false} {
		t.Run(map[bool]string{true: "tty", false: "pipe"}[tty], func(t *testing.T) {
			t.Parallel()
			pool := pgtest.New(t)
			seed(t, pool)
			f, st := cmdtest.Factory(t, tty)
			cmdtest.WithDB(f, pool)
			opts := &RunOptions{IO: f.IOStreams, F: f, jobFlags: jobFlags{ChunkSize: 100, ForgetBelow: 0.5}}
			if err := runRun(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			// 168 h since the layers' last update: below 0.5 are layer 2 (e^-1 = 0.37),
			// 3 (169^-0.5 = 1/13) and 5 (e^-0.7 = 0.497); the memories keep 0.66 to 0.99.
			want := "decayed 3 memories and 7 layers as of 2026-11-01T12:00:00Z in 2 chunks, 3 below --forget-below (full run)\n"
			if st.Out.String() != want {
				t.Errorf("stdout = %q, want %q", st.Out.String(), want)
			}
			if tty && !progressBar.MatchString(st.Err.String()) {
				t.Errorf("tty stderr = %q, want a progress bar", st.Err.String())
			}
			if !tty && strings.Count(st.Err.String(), "msg=progress job=decay") != 2 {
				t.Errorf("non-tty stderr = %q, want one log line per chunk", st.Err.String())
			}
			var r1, r3 float64
			if err := pool.QueryRow(context.Background(), `SELECT
				(SELECT retention FROM psychology_layers WHERE layer_number = 1),
				(SELECT retention FROM psychology_layers WHERE layer_number = 3)`).Scan(&r1, &r3); err != nil {
				t.Fatal(err)
			}
			if math.Abs(r1-math.Pow(0.5, 168.0/720)) > 1e-12 || math.Abs(r3-1/13.0) > 1e-12 {
				t.Errorf("layer retention: 1 → %v, 3 → %v", r1, r3)
			}

			// Nothing changed: the next run is incremental and writes nothing; --full rewrites all.
			for _, full := range []bool{false, true} {
				st.Out.Reset()
				opts.Full = full
				if err := runRun(context.Background(), opts); err != nil {
					t.Fatal(err)
				}
				want := map[bool]string{
					false: "decayed 0 memories and 0 layers as of 2026-11-01T12:00:00Z in 0 chunks (incremental run)\n",
					true:  "decayed 3 memories and 7 layers as of 2026-11-01T12:00:00Z in 2 chunks, 3 below --forget-below (full run)\n",
				}[full]
				if st.Out.String() != want {
					t.Errorf("re-run (--full=%v): stdout = %q, want %q", full, st.Out.String(), want)
				}
			}
		})
	}
}

func TestRunRunJSONAndConfig(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	seed(t, pool)
	f, st := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	f.Global.Output = "json"
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte("decay:\n  memory-decay: -0.5\n  layers:\n    \"2\": {model: exponential, param: 84}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	f.Config = func() (*config.Config, error) { return cfg, nil }
	opts := &RunOptions{IO: f.IOStreams, F: f, jobFlags: jobFlags{ChunkSize: 2}, atTime: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	if err := runRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var res decay.Result
	if err := json.Unmarshal(st.Out.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, st.Out)
	}
	if res.Memories != 3 || res.Layers != 7 || res.Chunks != 6 || res.RunID == 0 {
		t.Errorf("result %+v", res)
	}
	var r2, rFact float64
	if err := pool.QueryRow(context.Background(), `SELECT
		(SELECT retention FROM psychology_layers WHERE layer_number = 2),
		(SELECT retention FROM memories WHERE content = 'a fact')`).Scan(&r2, &rFact); err != nil {
		t.Fatal(err)
	}
	// Layer 2 from the file: half-life 84 h over 168 h = 0.25.
	// 'a fact': FSRS-4.5, 10 days at S = 10: 0.9 by definition of stability.
	if math.Abs(r2-0.25) > 1e-12 || math.Abs(rFact-0.9) > 1e-12 {
		t.Errorf("layer 2 retention %v (want 0.25), memory %v (want 0.9)", r2, rFact)
	}

	if err := os.WriteFile(file, []byte("decay:\n  layers:\n    \"2\": {model: linear, param: 1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err = config.Load(file); err != nil {
		t.Fatal(err)
	}
	err = runRun(context.Background(), opts)
	if exitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), `unknown model "linear"`) {
		t.Errorf("bad model: exit %d, %v", exitCode(err), err)
	}

	// Weights per deployment: a bad setting is an error naming the key and the file.
	for _, c := range []struct{ yaml, want string }{
		{"decay:\n  memory-weights: [0.212, 1.2931]\n", "want the 21 FSRS-6 weights w0..w20, got 2 numbers"},
		{"decay:\n  memory-weights: [0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.9, 1.8722, 0.1666, 0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542]\n",
			"w7 = 0.9 is outside FSRS-6's range [0.001, 0.75]"},
		{"decay:\n  memory-decay: -0.3\n  memory-weights: [0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542]\n",
			"set one of them"},
		{"decay:\n  memory-decay: 0.5\n", "is not a number from -0.8 to -0.1"},
	} {
		if err := os.WriteFile(file, []byte(c.yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		if cfg, err = config.Load(file); err != nil {
			t.Fatal(err)
		}
		err = runRun(context.Background(), opts)
		if exitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), file) {
			t.Errorf("%q: exit %d, %v; want exit 2 with %q and the file", c.yaml, exitCode(err), err, c.want)
		}
	}
	// Good weights are used: 'a walk' (S = S0 = 2.3065 days, stored by the first run) fades with DECAY = −w20 = −0.3.
	if err := os.WriteFile(file, []byte("decay:\n  memory-weights: 0.212,1.2931,2.3065,8.2956,6.4133,0.8334,3.0194,0.001,1.8722,0.1666,0.796,1.4835,0.0614,0.2629,1.6483,0.6014,1.8729,0.5425,0.0912,0.0658,0.3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err = config.Load(file); err != nil {
		t.Fatal(err)
	}
	st.Out.Reset()
	opts.Full = true
	if err := runRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var rWalk float64
	if err := pool.QueryRow(context.Background(), `SELECT retention FROM memories WHERE content = 'a walk'`).Scan(&rWalk); err != nil {
		t.Fatal(err)
	}
	if want := decay.FSRSRetention(31, 2.3065, -0.3); math.Abs(rWalk-want) > 1e-12 {
		t.Errorf("memory-weights with w20 = 0.3: 'a walk' retention %v, want %v", rWalk, want)
	}
}

func TestRunRunLockHeld(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	f, st := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	lock, err := db.TryLock(context.Background(), pool, decay.JobName)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Release(context.Background()) }()
	err = runRun(context.Background(), &RunOptions{IO: f.IOStreams, F: f, jobFlags: jobFlags{ChunkSize: 10}})
	code := exitCode(err)
	host, _ := os.Hostname()
	if code != cmdutil.ExitSkipped || !strings.HasPrefix(err.Error(), "skipped: held by helix-decay host="+host) {
		t.Errorf("exit %d, %v", code, err)
	}
	if st.Out.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", st.Out)
	}
	var ee *cmdutil.ExitError
	if !errors.As(err, &ee) || ee.Kind != "skipped" {
		t.Errorf("error kind: %v", err)
	}
}

// decay run --dry-run says what a run would write and writes nothing: no
// flag, no retention, no job_runs row (issue 49).
func TestRunDryRun(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	seed(t, pool)
	f, st := cmdtest.Factory(t, false)
	cmdtest.WithDB(f, pool)
	cmd := NewCmdRun(f, nil)
	cmd.SetArgs([]string{"--dry-run", "--forget-below", "0.5"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "dry run, nothing written: a full run would decay 3 memories and 7 layers as of 2026-11-01T12:00:00Z, 3 below --forget-below\n"
	if st.Out.String() != want {
		t.Errorf("stdout = %q, want %q", st.Out.String(), want)
	}
	var written int
	if err := pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM job_runs) + (SELECT count(*) FROM memories WHERE decayed_at IS NOT NULL OR forgotten)
		+ (SELECT count(*) FROM psychology_layers WHERE decayed_at IS NOT NULL OR forgotten)`).Scan(&written); err != nil {
		t.Fatal(err)
	}
	if written != 0 {
		t.Errorf("the dry run wrote %d rows", written)
	}
}

// The settings decay reads without a flag are config.Keys, so helix config
// show lists them and doctor knows them (issue 49: decay.memory-weights was missing).
func TestDecaySettingsAreListed(t *testing.T) {
	for _, want := range []string{"decay.layers", "decay.memory-decay", "decay.memory-weights"} {
		found := false
		for _, k := range config.Keys {
			found = found || k.Name == want
		}
		if !found {
			t.Errorf("%s is not in config.Keys: helix config show does not list it", want)
		}
	}
}
