package schedule_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/queue"
	"github.com/helixhq/helix/internal/schedule"
	"github.com/helixhq/helix/internal/testbin"
)

// crashBound is the documented bound (helix worker --help, README): after
// a worker dies anywhere, a live worker fires the next due tick within
// MaintainEvery (it gives the dead pass back) + TickInterval (the next pass
// is enqueued) + a pass and its fetch (a moment; up to 6 s seen at a load
// of 20 on 2 cores), counted from the fresh worker's "worker started". On
// the workers before issue 32 a dead pass blocked for an hour and a dead
// leader for its term (up to 15 s, plus the next election).
const crashBound = queue.MaintainEvery + schedule.TickInterval + 7*time.Second

// victim is a worker the test kills: by SIGKILL, or by SIGPIPE on its
// stderr (the reader goes away; the worker dies at its next log line).
type victim struct {
	cmd    *exec.Cmd
	r      *os.File // stderr's read end (pipe victims)
	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan struct{}
}

func (v *victim) log() string { v.mu.Lock(); defer v.mu.Unlock(); return v.stderr.String() }

func startVictim(t *testing.T, url string) *victim {
	t.Helper()
	v := &victim{done: make(chan struct{})}
	v.cmd = exec.Command(testbin.Helix(t), workerArgs...)
	v.cmd.Env = append(os.Environ(), "DATABASE_URL="+url, "HELIX_DB_MAX_CONNS=8", "HELIX_DB_LOCK_TTL=3s")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	v.r, v.cmd.Stderr = r, w
	if err := v.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			v.mu.Lock()
			v.stderr.Write(buf[:n])
			v.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { _ = v.cmd.Wait(); close(v.done) }()
	t.Cleanup(func() { _ = v.cmd.Process.Kill(); <-v.done })
	return v
}

// started waits for the worker's "worker started" line and returns when it came.
func (v *victim) started(t *testing.T) time.Time {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if strings.Contains(v.log(), "worker started") {
			return time.Now()
		}
	}
	t.Fatalf("no worker started after a minute\n%s", v.log())
	return time.Time{}
}

// kill ends the victim: SIGKILL, or (pipe) closing its stderr's reader,
// then waiting for the SIGPIPE its next log line brings.
func (v *victim) kill(t *testing.T, pipe bool) string {
	t.Helper()
	if !pipe {
		_ = v.cmd.Process.Signal(syscall.SIGKILL)
		<-v.done
		return "SIGKILL"
	}
	_ = v.r.Close()
	select {
	case <-v.done:
	case <-time.After(30 * time.Second):
		t.Fatal("a worker whose stderr reader closed still runs after 30 s")
	}
	if ws, ok := v.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGPIPE {
		t.Fatalf("worker ended %v, want killed by SIGPIPE", v.cmd.ProcessState)
	}
	return "SIGPIPE"
}

// Issue 32, must show 1: a worker killed (SIGKILL, SIGPIPE) at many points
// of a tick pass and of a fire, then a fresh worker: the next due tick of a
// schedule every second fires within crashBound of its start, every time.
// Each fresh worker is the next victim. On the workers of issue 16 a pass
// killed while running blocked its successors until River's rescuer (1 h),
// and a killed leader its successor for its term (15 s).
func TestKilledWorkerNextFireInSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("kills helix workers a dozen times: skipped with -short")
	}
	t.Parallel()
	url, pool := open(t)
	mustHelix(t, url, "schedule", "add", "every", "--cron", "@every 1s", "--", "sync", "reconcile")
	v := startVictim(t, url)
	waitUntilFires(t, pool, v, time.Now().Add(-time.Second), time.Minute)
	points := []struct {
		at   string // what the victim runs when it dies
		pipe bool
	}{
		{"tick", false}, {"fire", false}, {"tick", true}, {"fire", true},
		{"tick", false}, {"fire", false}, {"idle", false}, {"tick", false}, {"fire", true},
	}
	seen := map[string]int{}
	var worst time.Duration
	for i, p := range points {
		id := clientIDOf2(v.log())
		if id == "" {
			t.Fatalf("point %d: no client id in the worker's log\n%s", i, v.log())
		}
		at := p.at
		if at != "idle" && !waitRunning(t, pool, id, "schedule_"+at, 10*time.Second) {
			at = "between"
		}
		how := v.kill(t, p.pipe)
		// What the dead worker left: a tick pass or fire still running.
		left := scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE state = 'running' AND attempted_by[cardinality(attempted_by)] = $1`, id)
		seen[at+" "+how]++
		v = startVictim(t, url)
		started := v.started(t)
		took := waitUntilFires(t, pool, v, started, crashBound)
		worst = max(worst, took)
		t.Logf("point %d: %s during %s (%d jobs left running): next fire %s after a fresh worker started", i, how, at, left, took.Round(10*time.Millisecond))
	}
	// The dead workers' fires are given back after 30 s (their jobs had
	// SIGTERM and that long to stop) and run again; their passes are discarded.
	waitFor(t, 2*time.Minute, "dead workers' jobs given back", func() bool {
		return scalar[int](t, pool, `SELECT count(*) FROM river_job WHERE state = 'running' AND attempted_by[cardinality(attempted_by)] <> $1`, clientIDOf2(v.log())) == 0
	})
	quiesce(t, url, pool, "every")
	_ = v.cmd.Process.Signal(syscall.SIGTERM)
	<-v.done
	if n := scalar[int](t, pool, `SELECT count(*) - count(DISTINCT tick) FROM helix_schedule_fires`); n != 0 {
		t.Errorf("%d ticks fired twice", n)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM job_runs WHERE status = 'running'`); n != 0 {
		t.Errorf("%d job_runs rows still running", n)
	}
	if n := scalar[int](t, pool, `SELECT count(*) FROM helix_schedule_fires WHERE status IN ('pending', 'running')`); n != 0 {
		t.Errorf("%d fires never finished", n)
	}
	t.Logf("kill points %v; worst time to the next fire %s (bound %s)", seen, worst.Round(10*time.Millisecond), crashBound)
	if seen["tick SIGKILL"] == 0 || seen["fire SIGKILL"] == 0 {
		t.Errorf("no kill landed in a tick pass or in a fire: %v", seen)
	}
}

func clientIDOf2(log string) string {
	if m := clientID.FindStringSubmatch(log); m != nil {
		return m[1]
	}
	return ""
}

// waitRunning polls until the worker id runs a job of kind, at most d.
func waitRunning(t *testing.T, pool *pgxpool.Pool, id, kind string, d time.Duration) bool {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if scalar[bool](t, pool, `SELECT EXISTS (SELECT 1 FROM river_job WHERE kind = $1 AND state = 'running'
			AND attempted_by[cardinality(attempted_by)] = $2)`, kind, id) {
			return true
		}
	}
	return false
}

// waitUntilFires waits for a fire made after since and worked by v, and
// returns how long after since it was made; it fails the test past bound.
func waitUntilFires(t *testing.T, pool *pgxpool.Pool, v *victim, since time.Time, bound time.Duration) time.Duration {
	t.Helper()
	var took time.Duration
	deadline := time.Now().Add(bound + 10*time.Second)
	for {
		id := clientIDOf2(v.log())
		if id != "" {
			var made *time.Time
			if err := pool.QueryRow(t.Context(), `SELECT min(f.created_at) FROM helix_schedule_fires f JOIN river_job j ON j.id = f.river_job_id
				WHERE f.created_at > $1 AND $2 = ANY(j.attempted_by)`, since, id).Scan(&made); err != nil {
				t.Fatal(err)
			}
			if made != nil {
				took = made.Sub(since)
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no fire by the fresh worker %s within %s of its start\n%s", id, bound+10*time.Second, v.log())
		}
		select {
		case <-v.done:
			t.Fatalf("the fresh worker died\n%s", v.log())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if took > bound {
		t.Errorf("the next fire came %s after a fresh worker started, over the bound %s", took, bound)
	}
	return took
}
