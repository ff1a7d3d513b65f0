package schedule_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/testbin"
)

// Issue 42: a user's own schedules. The job line must act for that user
// only; schedule.max-per-user and schedule.min-interval bound them (exit 2
// naming the setting); another user's schedule is not found; a --once-at
// schedule fires once and is completed; a row written through the API whose
// job does not act for its owner is refused at the fire.
func TestPerUserSchedules(t *testing.T) {
	t.Parallel()
	url, pool := open(t)
	const a, b = "a0000000-0000-4000-8000-0000000000a1", "b0000000-0000-4000-8000-0000000000b2"
	env := append(os.Environ(), "DATABASE_URL="+url, "HELIX_DB_MAX_CONNS=8", "HELIX_DB_LOCK_TTL=3s", "HELIX_SCHEDULE_MAX_PER_USER=2")
	run := func(args ...string) (string, string, int) {
		p := testbin.Start(t, env, args...)
		code := p.Wait(t, 2*time.Minute)
		return p.Stdout.String(), p.Stderr.String(), code
	}
	// refused: another user's id, --all-users, no --user-id in the job, a spec under the minimum interval
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"schedule", "add", "x", "--user-id", a, "--cron", "@hourly", "--", "sync", "reconcile", "--user-id", b}, "acts for " + a + " only"},
		{[]string{"schedule", "add", "x", "--user-id", a, "--cron", "@hourly", "--", "synthesize", "--all-users"}, "cannot run --all-users"},
		{[]string{"schedule", "add", "x", "--user-id", a, "--cron", "@hourly", "--", "sync", "reconcile"}, "must run its job with --user-id " + a},
		{[]string{"schedule", "add", "x", "--user-id", a, "--cron", "@every 1m", "--", "sync", "reconcile", "--user-id", a}, "schedule.min-interval"},
		{[]string{"schedule", "add", "x", "--user-id", a, "--cron", "*/2 * * * *", "--", "sync", "reconcile", "--user-id", a}, "schedule.min-interval"},
		{[]string{"schedule", "add", "x", "--user-id", "bob", "--cron", "@hourly", "--", "sync", "reconcile"}, "not a UUID"},
	} {
		if _, stderr, code := run(c.argv...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %q, want 2 saying %q", c.argv, code, stderr, c.want)
		}
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedules`); n != 0 {
		t.Fatalf("%d schedules stored by refused adds", n)
	}
	// A's own, and B's with the same name
	if _, stderr, code := run("schedule", "add", "mine", "--user-id", a, "--cron", "@hourly", "--", "sync", "reconcile", "--user-id", a); code != 0 {
		t.Fatalf("add A's: %d %s", code, stderr)
	}
	if _, stderr, code := run("schedule", "add", "mine", "--user-id", b, "--cron", "@hourly", "--", "sync", "reconcile", "--user-id", b); code != 0 {
		t.Fatalf("add B's with the same name: %d %s", code, stderr)
	}
	at := time.Now().Add(4 * time.Second).UTC().Truncate(time.Second).Add(time.Second)
	if _, stderr, code := run("schedule", "add", "remind", "--user-id", a, "--once-at", at.Format(time.RFC3339), "--", "sync", "reconcile", "--user-id", a); code != 0 {
		t.Fatalf("add --once-at: %d %s", code, stderr)
	}
	// a third of A's is beyond schedule.max-per-user (2)
	if _, stderr, code := run("schedule", "add", "third", "--user-id", a, "--cron", "@daily", "--", "sync", "reconcile", "--user-id", a); code != 2 || !strings.Contains(stderr, "schedule.max-per-user") {
		t.Errorf("third schedule of A: exit %d %q, want 2 naming schedule.max-per-user", code, stderr)
	}
	// B does not see, pause or remove A's remind; the operator sees none of theirs
	for _, argv := range [][]string{{"show", "remind"}, {"pause", "remind"}, {"remove", "remind", "--yes"}, {"history", "remind"}, {"run-now", "remind"}} {
		_, stderr, code := run(append(append([]string{"schedule"}, argv...), "--user-id", b)...)
		if code != 2 || !strings.Contains(stderr, `no schedule "remind"`) {
			t.Errorf("%v as B: exit %d %q, want 2, not found", argv, code, stderr)
		}
	}
	if out, _, _ := run("schedule", "list", "-o", "json"); strings.Contains(out, "mine") {
		t.Errorf("the operator's list shows users' schedules: %s", out)
	}
	// a row written through the API whose job acts for all users: refused at its fire
	if _, err := pool.Exec(t.Context(), `INSERT INTO helix_schedules (user_id, name, spec, argv, max_failures, next_tick)
		VALUES ($1, 'forged', '@every 1s', '{sync,reconcile}', 0, now())`, b); err != nil {
		t.Fatal(err)
	}
	w := start(t, url, workerArgs...)
	waitFor(t, 2*time.Minute, "the one-shot to fire and the forged one to be refused", func() bool {
		return scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id
			WHERE s.name = 'remind' AND f.status = 'ok'`) == 1 &&
			scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id
			WHERE s.name = 'forged' AND f.status = 'failed'`) > 0
	})
	time.Sleep(2 * time.Second) // a second fire of the one-shot would show by now
	stop(t, w)
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id WHERE s.name = 'remind'`); n != 1 {
		t.Errorf("the one-shot fired %d times, want once", n)
	}
	if e := scalar[string](t, pool, `SELECT f.error FROM helix_schedule_fires f JOIN helix_schedules s ON s.id = f.schedule_id
		WHERE s.name = 'forged' AND f.status = 'failed' LIMIT 1`); !strings.Contains(e, "must run its job with --user-id "+b) {
		t.Errorf("forged fire's error: %q", e)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM job_runs WHERE job = 'sync reconcile'`); n != 1 {
		t.Errorf("%d sync reconcile runs, want the one-shot's only", n)
	}
	out, stderr, code := run("schedule", "list", "--user-id", a, "-o", "json")
	var list struct {
		Schedules []struct {
			Name, State string
			Owner       *string
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 {
		t.Fatalf("list as A: %d %v %s %s", code, err, out, stderr)
	}
	states := map[string]string{}
	for _, s := range list.Schedules {
		if s.Owner == nil || *s.Owner != a {
			t.Errorf("A's list shows %s of %v", s.Name, s.Owner)
		}
		states[s.Name] = s.State
	}
	if len(states) != 2 || states["remind"] != "completed" || states["mine"] != "active" {
		t.Errorf("A's schedules: %v, want mine active and remind completed", states)
	}
}
