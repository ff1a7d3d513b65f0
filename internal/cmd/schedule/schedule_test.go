package schedule_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/helixhq/helix/internal/cmd/root"
	cmdschedule "github.com/helixhq/helix/internal/cmd/schedule"
	"github.com/helixhq/helix/internal/cmdtest"
	"github.com/helixhq/helix/internal/cmdutil"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/schedule"
)

func tree(t *testing.T) cmdschedule.JobTree {
	return func() *cobra.Command {
		f, _ := cmdtest.Factory(t, false)
		return root.NewCmdRoot(f)
	}
}

func TestAddParsesIntoOptions(t *testing.T) {
	f, _ := cmdtest.Factory(t, false)
	newCmd := func(runF func(*cmdschedule.AddOptions) error) *cobra.Command {
		return cmdschedule.NewCmdAdd(f, tree(t), runF)
	}
	o, err := cmdtest.Parse(newCmd, "nightly --cron @daily --timezone Europe/Berlin --jitter 30s --catch-up once --max-failures 3 -- synthesize --all-users --min-cluster-size 2")
	if err != nil {
		t.Fatal(err)
	}
	if o.Name != "nightly" || o.Cron != "@daily" || o.Timezone != "Europe/Berlin" || o.Jitter != 30*time.Second || o.CatchUp != "once" ||
		o.MaxFailures != 3 || strings.Join(o.Job, " ") != "synthesize --all-users --min-cluster-size 2" || o.JobPath != "synthesize" {
		t.Fatalf("options %+v", o)
	}
	o, err = cmdtest.Parse(newCmd, "hourly --cron @hourly -- decay run")
	if err != nil || o.Timezone != "UTC" || o.CatchUp != "none" || o.MaxFailures != 5 || o.Jitter != 0 || o.JobPath != "decay run" || o.Notify != "on-failure" {
		t.Fatalf("defaults: %+v %v", o, err)
	}
	if o, err = cmdtest.Parse(newCmd, "quiet --cron @hourly --notify never -- decay run"); err != nil || o.Notify != "never" {
		t.Fatalf("--notify never: %+v %v", o, err)
	}
	var fe *cmdutil.FlagError
	if _, err = cmdtest.Parse(newCmd, "loud --cron @hourly --notify sometimes -- decay run"); !errors.As(err, &fe) || !strings.Contains(err.Error(), "notify") {
		t.Fatalf("--notify sometimes: %v, want a usage error naming notify", err)
	}
}

// The job's command line is resolved against helix's real command tree.
func TestValidateJob(t *testing.T) {
	for argv, want := range map[string]string{
		"decay run --full --forget-below 0.05": "decay run",
		"synthesize --all-users":               "synthesize",
		"catalog verify":                       "catalog verify",
		"sync reconcile --batch 500":           "sync reconcile",
	} {
		got, err := cmdschedule.ValidateJob(tree(t)(), strings.Fields(argv))
		if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", argv, got, err, want)
		}
	}
	for argv, msg := range map[string]string{
		"":                               "no job after --",
		"nosuch":                         `unknown job "nosuch"`,
		"--log-level debug decay run":    "must start with a command",
		"decay nosuch":                   `unknown job "decay nosuch"`,
		"decay":                          "decay is a group",
		"decay run --no-such":            "unknown flag: --no-such",
		"decay run --chunk-size x":       "invalid argument",
		"decay run extra":                `unexpected argument "extra"`,
		"decay run -o json":              "-o is not allowed in a scheduled job",
		"decay run --help":               "--help is not allowed",
		"decay run --config /etc/x.yaml": "--config is not allowed in a scheduled job: a fire runs with the worker's configuration",
		"decay run --config=/etc/x.yaml": "--config=/etc/x.yaml is not allowed",
		"decay run --database-url postgres://x/y":                                  "--database-url is not allowed",
		"synthesize --all-users --log-level=debug":                                 "--log-level=debug is not allowed",
		"synthesize --log-format json --all-users":                                 "--log-format is not allowed",
		"synthesize --all-users --output=json":                                     "--output=json is not allowed",
		"memory search --user-id 6f1c0000-0000-4000-8000-000000000001 -- --config": "--config is not allowed",
		"decay schedule --cron @hourly":                                            "long-running service",
		"worker --once":                                                            "runs schedules",
		"jobs list":                                                                "steers the queue",
		"schedule list":                                                            "manages schedules",
		"migrate down --yes":                                                       "administration command",
		"config show":                                                              "administration command",
		"version":                                                                  "administration command",
	} {
		_, err := cmdschedule.ValidateJob(tree(t)(), strings.Fields(argv))
		var fe *cmdutil.FlagError
		if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want a flag error containing %q", argv, err, msg)
		}
	}
}

// list, as a person and a program see it, with the reason of a disabled schedule.
func TestListOutput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for _, sp := range []schedule.Spec{
		{Name: "hourly-decay", Cron: "@hourly", Timezone: "UTC", CatchUp: "none", MaxFailures: 5, Argv: []string{"decay", "run"}},
		{Name: "verify", Cron: "15 6 * * 1", Timezone: "Europe/Berlin", CatchUp: "once", MaxFailures: 3, Argv: []string{"catalog", "verify", "--source", "a b.json"}},
	} {
		if _, err := schedule.Add(ctx, pool, sp, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `UPDATE helix_schedules SET disabled_reason = '3 failures in a row; the last: exit 1: drift',
		disabled_at = $1, consecutive_failures = 3 WHERE name = 'verify'`, now); err != nil {
		t.Fatal(err)
	}
	run := func(tty bool, argv ...string) string {
		f, s := cmdtest.Factory(t, tty)
		cmdtest.WithDB(f, pool)
		cmd := cmdschedule.NewCmdSchedule(f, tree(t))
		cmd.SetArgs(argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.ExecuteContext(ctx); err != nil {
			t.Fatal(err)
		}
		return s.Out.String()
	}
	want := "hourly-decay\tactive\t@hourly\tUTC\t2026-11-01T13:00:00Z\t-\t0/5\tdecay run\t\n" +
		"verify\tdisabled\t15 6 * * 1\tEurope/Berlin\t2026-11-02T05:15:00Z\t-\t3/3\tcatalog verify --source \"a b.json\"\t3 failures in a row; the last: exit 1: drift\n"
	if got := run(false, "list"); got != want {
		t.Errorf("list off a terminal:\n%s\nwant\n%s", got, want)
	}
	got := run(true, "list")
	if lines := strings.Split(got, "\n"); !strings.HasPrefix(lines[0], "NAME          STATE     CRON") || !strings.Contains(got, "verify        disabled  15 6 * * 1") {
		t.Errorf("list on a terminal:\n%s", got)
	}
	got = run(false, "show", "verify")
	for _, line := range []string{"state:\tdisabled", "job:\tcatalog verify --source \"a b.json\"", "disabled:\t3 failures in a row; the last: exit 1: drift (2026-11-01T12:00:00Z)",
		"failures in a row:\t3 of 3"} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("show lacks %q:\n%s", line, got)
		}
	}
	// no limit: not "0 of 0" (issue 49)
	if _, err := pool.Exec(ctx, `UPDATE helix_schedules SET max_failures = 0 WHERE name = 'hourly-decay'`); err != nil {
		t.Fatal(err)
	}
	if got = run(false, "show", "hourly-decay"); !strings.Contains(got, "failures in a row:\t0 (no limit)\n") {
		t.Errorf("show without a failure limit:\n%s", got)
	}
}
