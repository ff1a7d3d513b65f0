package decay

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/testbin"
)

// helix starts the binary against dbURL with no config file.
func helix(t *testing.T, dbURL string, args ...string) *testbin.Proc {
	t.Helper()
	return testbin.Start(t, append(os.Environ(), "HELIX_DATABASE_URL="+dbURL, "XDG_CONFIG_HOME="+t.TempDir(), "HELIX_CONFIG=", "HELIX_DB_CONNECT_TIMEOUT=2s"), args...)
}

func eventually(t *testing.T, what string, cond func() bool, logs ...*testbin.Buffer) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			var all []string
			for _, l := range logs {
				all = append(all, l.String())
			}
			t.Fatalf("timed out waiting for %s\n%s", what, strings.Join(all, "\n---\n"))
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// SIGTERM during `decay run`: exit 130, only whole chunks written, and the
// next run completes the rest. The benchmark script does this over 1,000,000
// rows; here 40 chunks of 500 leave the run enough chunks still to do when
// the signal arrives (the first commit is seen within 25 ms).
func TestRunSIGTERMResumes(t *testing.T) {
	t.Parallel()
	const rows, chunk = 20_000, 500
	u := pgtest.URL(t)
	pool, err := pgxpool.New(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(context.Background(), `
		INSERT INTO memories (user_id, type, content, created_at)
		SELECT md5((g % 1000)::text)::uuid, 'episodic', 'memory ' || g, '2026-09-01T00:00:00Z'::timestamptz + g * interval '10 seconds'
		FROM generate_series(1, $1) g`, rows); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p := helix(t, u, "decay", "run", "--at", "2026-11-01T12:00:00Z", "--batch-size", fmt.Sprint(chunk))
	eventually(t, "a committed chunk", func() bool {
		return count(t, pool, `SELECT count(*) FROM decay_progress WHERE last_id IS NOT NULL`) > 0
	}, &p.Stderr)
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.Wait(t, time.Minute); code != 130 {
		t.Fatalf("exit %d after SIGTERM, want 130\n%s", code, p.Stderr.String())
	}
	done := count(t, pool, `SELECT count(*) FROM memories WHERE decayed_at IS NOT NULL`)
	if done%chunk != 0 || done == 0 || done == rows {
		t.Fatalf("%d rows written after SIGTERM: want a whole number of %d-row chunks, short of %d", done, chunk, rows)
	}
	if n := count(t, pool, `SELECT count(*) FROM memories WHERE decayed_at IS NOT NULL AND (decayed_at <> '2026-11-01T12:00:00Z' OR retention IS NULL)`); n != 0 {
		t.Errorf("%d written rows are inconsistent", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM job_runs WHERE job = 'decay' AND status = 'interrupted'`); n != 1 {
		t.Errorf("%d interrupted job_runs rows, want 1", n)
	}
	if !strings.Contains(p.Stderr.String(), "interrupted") {
		t.Errorf("stderr does not say interrupted:\n%s", p.Stderr.String())
	}
	t.Logf("SIGTERM after %d of %d rows (%s after start)", done, rows, time.Since(start))

	p = helix(t, u, "decay", "run", "--at", "2026-11-01T12:00:00Z", "--batch-size", fmt.Sprint(chunk), "--output", "json")
	if code := p.Wait(t, time.Minute); code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, p.Stderr.String())
	}
	if !strings.Contains(p.Stdout.String(), `"resumed_from":"memories:`) {
		t.Errorf("second run did not resume: %s", p.Stdout.String())
	}
	if n := count(t, pool, `SELECT count(*) FROM memories WHERE decayed_at IS NULL`); n != 0 {
		t.Errorf("%d rows left after the second run", n)
	}
	if n := count(t, pool, `SELECT (counts->>'memories')::int FROM job_runs WHERE status = 'ok'`); n != rows-done {
		t.Errorf("second run updated %d rows, want the remaining %d", n, rows-done)
	}
}

// Two schedulers on one database (two hosts running decay schedule): they
// share one stored schedule, each tick's job runs exactly once and no two
// runs overlap, and every fire is in the schedule's history with its run's
// counts.
func TestTwoSchedulersRunEachTickOnce(t *testing.T) {
	t.Parallel()
	u := pgtest.URL(t)
	pool := pgtest.Open(t, u)
	if _, err := pool.Exec(context.Background(), `
		INSERT INTO memories (user_id, type, content, created_at)
		SELECT md5((g % 10)::text)::uuid, 'semantic', 'memory ' || g, '2026-10-01T00:00:00Z'
		FROM generate_series(1, 3000) g`); err != nil {
		t.Fatal(err)
	}
	args := []string{"decay", "schedule", "--cron", "* * * * * *", "--batch-size", "1000", "--shutdown-timeout", "30s"}
	a, b := helix(t, u, args...), helix(t, u, args...)
	eventually(t, "five ticks run", func() bool {
		return count(t, pool, `SELECT count(*) FROM job_runs WHERE status = 'ok'`) >= 5
	}, &a.Stderr, &b.Stderr)
	for _, p := range []*testbin.Proc{a, b} {
		if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range []*testbin.Proc{a, b} {
		if code := p.Wait(t, time.Minute); code != 0 {
			t.Errorf("scheduler %d: exit %d\n%s", i, code, p.Stderr.String())
		}
	}
	if n := count(t, pool, `SELECT count(*) FROM helix_schedules WHERE name = 'decay' AND argv = '{decay,run,--batch-size,1000}'`); n != 1 {
		t.Errorf("%d stored schedules named decay with the job line", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM (SELECT params->'options'->>'tick' FROM job_runs
		WHERE status = 'ok' GROUP BY 1 HAVING count(*) > 1 OR params->'options'->>'tick' IS NULL) s`); n != 0 {
		t.Errorf("%d ticks ran more than once (or without a tick)", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM job_runs x JOIN job_runs y ON x.id < y.id
		AND tstzrange(x.started_at, x.finished_at) && tstzrange(y.started_at, y.finished_at)
		WHERE x.status NOT IN ('skipped') AND y.status NOT IN ('skipped')`); n != 0 {
		t.Errorf("%d pairs of runs overlapped in time", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM job_runs WHERE status NOT IN ('ok', 'skipped')`); n != 0 {
		t.Errorf("%d runs neither ok nor skipped", n)
	}
	// Every ok run is one fire of the schedule, recorded ok with its counts.
	if n := count(t, pool, `SELECT count(*) FROM job_runs r WHERE r.status = 'ok' AND NOT EXISTS (
		SELECT 1 FROM helix_schedule_fires f WHERE f.status = 'ok' AND f.exit_code = 0 AND f.tick = (r.params->'options'->>'tick')::timestamptz
		  AND (f.counts->>'run_id')::bigint = r.id AND f.counts ? 'memories')`); n != 0 {
		t.Errorf("%d ok runs without their ok fire in the schedule's history", n)
	}
	for i, p := range []*testbin.Proc{a, b} {
		if !strings.Contains(p.Stderr.String(), "decay schedule stopped") {
			t.Errorf("scheduler %d did not stop cleanly:\n%s", i, p.Stderr.String())
		}
	}
	if !strings.Contains(a.Stderr.String()+b.Stderr.String(), `msg="schedule added"`) {
		t.Errorf("neither scheduler said it stored the schedule:\n%s\n%s", a.Stderr.String(), b.Stderr.String())
	}
}

// A scheduler started while the database is down stays up, says why, and
// stores its schedule and runs as soon as the database answers.
func TestScheduleSurvivesOutage(t *testing.T) {
	t.Parallel()
	u := pgtest.URL(t)
	pool := pgtest.Open(t, u)
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	proxy := startProxy(t, pu.Host)
	pu.Host = proxy.addr
	p := helix(t, pu.String(), "decay", "schedule", "--cron", "* * * * * *")
	eventually(t, "two failed attempts", func() bool {
		return strings.Count(p.Stderr.String(), "cannot store the schedule yet; trying again") >= 2
	}, &p.Stderr)
	select {
	case <-p.Done():
		t.Fatalf("scheduler died during the outage (exit %d):\n%s", p.Code(), p.Stderr.String())
	default:
	}
	proxy.up.Store(true)
	eventually(t, "a run after the outage", func() bool {
		return count(t, pool, `SELECT count(*) FROM job_runs WHERE status = 'ok'`) >= 1
	}, &p.Stderr)
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	if code := p.Wait(t, time.Minute); code != 0 {
		t.Errorf("exit %d after SIGTERM\n%s", code, p.Stderr.String())
	}
	if !strings.Contains(p.Stderr.String(), "database unavailable") {
		t.Errorf("the outage is not named in the logs:\n%s", p.Stderr.String())
	}
}

// proxy refuses connections (accepts and closes them) until up, then forwards them to target.
type proxy struct {
	addr string
	up   atomic.Bool
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{addr: ln.Addr().String()}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if !p.up.Load() {
				_ = c.Close()
				continue
			}
			go func() {
				defer c.Close()
				s, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer s.Close()
				go func() { _, _ = io.Copy(s, c) }()
				_, _ = io.Copy(c, s)
			}()
		}
	}()
	return p
}

// A trial decay schedule leaves its schedule stored and active: any helix
// worker on the database fires it later. Stopping says so and how to remove it.
func TestScheduleStopSaysTheScheduleStays(t *testing.T) {
	t.Parallel()
	u := pgtest.URL(t)
	p := helix(t, u, "decay", "schedule", "--cron", "@hourly", "--name", "trial")
	eventually(t, "the schedule stored", func() bool {
		return strings.Contains(p.Stderr.String(), `msg="schedule added"`)
	}, &p.Stderr)
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.Wait(t, time.Minute); code != 0 {
		t.Fatalf("exit %d after SIGTERM\n%s", code, p.Stderr.String())
	}
	for _, want := range []string{"stays active in the database", "any helix worker on it fires it", "helix schedule remove trial --yes", "helix schedule pause trial"} {
		if !strings.Contains(p.Stderr.String(), want) {
			t.Errorf("stop message lacks %q:\n%s", want, p.Stderr.String())
		}
	}
}
