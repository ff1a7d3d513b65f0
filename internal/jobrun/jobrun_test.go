package jobrun

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/pgtest"
)

func status(t *testing.T, q db.Querier, id int64) string {
	t.Helper()
	var s string
	if err := q.QueryRow(context.Background(), `SELECT status FROM job_runs WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReap: a live run is left alone; a run whose lease expired (its
// process was killed: nothing renews it) and a legacy row with no lease at
// all are closed as interrupted, and the dead lease is deleted.
func TestReap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	var legacy int64
	if err := pool.QueryRow(ctx, `INSERT INTO job_runs (job, status) VALUES ('old', 'running') RETURNING id`).Scan(&legacy); err != nil {
		t.Fatal(err)
	}
	var live, killed int64
	err := Do(ctx, pool, Spec{Job: "live", Lock: "live"}, func(ctx context.Context, run *Run) (any, error) {
		live = run.ID
		// A run whose process died: its lease is past its expiry.
		if err := pool.QueryRow(ctx, `WITH r AS (INSERT INTO job_runs (job, status) VALUES ('killed', 'running') RETURNING id),
			l AS (INSERT INTO helix_locks (name, token, holder, acquired_at, expires_at)
				SELECT 'job-run:' || id, 'dead', 'helix-killed host=h pid=1', now() - interval '1 minute', now() - interval '1 second' FROM r)
			SELECT id FROM r`).Scan(&killed); err != nil {
			return nil, err
		}
		if got := RunLock(killed); got != fmt.Sprintf("job-run:%d", killed) {
			t.Errorf("RunLock = %s", got)
		}
		n, err := Reap(ctx, pool)
		if err != nil {
			return nil, err
		}
		if n != 1 { // the legacy row went when the outer run started
			t.Errorf("reaped %d rows, want 1 (the killed run)", n)
		}
		if s := status(t, pool, live); s != db.RunRunning {
			t.Errorf("live run reaped: %s", s)
		}
		var dead int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM helix_locks WHERE token = 'dead'`).Scan(&dead); err != nil || dead != 0 {
			t.Errorf("%d dead leases left (%v)", dead, err)
		}
		return map[string]int{"n": 1}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[int64]string{legacy: db.RunInterrupted, killed: db.RunInterrupted, live: db.RunOK} {
		if s := status(t, pool, id); s != want {
			t.Errorf("run %d: %s, want %s", id, s, want)
		}
	}
	noLocks(t, pool)
}

// noLocks fails t when any helix lock is still held.
func noLocks(t *testing.T, q db.Querier) {
	t.Helper()
	held, err := db.HeldLocks(context.Background(), q)
	if err != nil || len(held) > 0 {
		t.Errorf("helix locks still held (%v): %v", err, held)
	}
}

func TestStatus(t *testing.T) {
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tt := range []struct {
		ctx  context.Context
		err  error
		want string
	}{
		{ctx, nil, db.RunOK},
		{ctx, &exitcode.PartialError{Failed: []string{"a"}, Total: 2}, db.RunPartial},
		{ctx, &db.ErrLockHeld{Job: "x"}, db.RunSkipped},
		{cancelled, context.Canceled, db.RunInterrupted},
		{ctx, errors.New("boom"), db.RunFailed},
	} {
		if got := Status(tt.ctx, tt.err); got != tt.want {
			t.Errorf("Status(%v) = %s, want %s", tt.err, got, tt.want)
		}
	}
}

// TestLockHeldRecordsSkipped: a held lock returns *db.ErrLockHeld and, when
// asked, leaves a 'skipped' row.
func TestLockHeldRecordsSkipped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	l, err := db.TryLock(ctx, pool, "j")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Release(ctx) }()
	err = Do(ctx, pool, Spec{Job: "j", Lock: "j", RecordSkipped: true}, func(context.Context, *Run) (any, error) {
		t.Error("ran while the lock was held")
		return nil, nil
	})
	if !db.IsLockHeld(err) {
		t.Fatalf("err %v, want lock held", err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM job_runs WHERE job = 'j' AND status = 'skipped'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d skipped rows (%v), want 1", n, err)
	}
}

// TestLockAndStart: the worker's path takes the lock and the running row;
// with the lock held elsewhere it writes no row and says who holds it;
// afterwards both leases are gone.
func TestLockAndStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	spec := Spec{Job: "unit", Lock: "unit:42", NoReap: true}
	var id int64
	err := Do(ctx, pool, spec, func(ctx context.Context, run *Run) (any, error) {
		id = run.ID
		if s := status(t, pool, run.ID); s != db.RunRunning {
			t.Errorf("status %s while running", s)
		}
		// Held: a second run of the same unit writes nothing.
		err := Do(ctx, pool, spec, func(context.Context, *Run) (any, error) {
			t.Error("ran while the lock was held")
			return nil, nil
		})
		var held *db.ErrLockHeld
		if !errors.As(err, &held) || held.Job != "unit:42" || held.Holder == "another session" {
			t.Errorf("held: %v", err)
		}
		if n, _ := Reap(ctx, pool); n != 0 {
			t.Errorf("reaped a live run")
		}
		return map[string]int{"n": 1}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM job_runs`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("%d job_runs rows (%v), want 1", rows, err)
	}
	if s := status(t, pool, id); s != db.RunOK {
		t.Errorf("status %s", s)
	}
	noLocks(t, pool)
}

// TestLeaseLostCancelsTheRun: a run whose lease another holder took (it had
// expired, say while the database was unreachable) has its context
// cancelled with db.ErrLockLost and is recorded interrupted, not ok.
func TestLeaseLostCancelsTheRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, pgtest.URL(t), db.Options{LockTTL: db.MinLockTTL})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var id int64
	err = Do(ctx, pool, Spec{Job: "stolen", Lock: "stolen"}, func(ctx context.Context, run *Run) (any, error) {
		id = run.ID
		if _, err := pool.Exec(ctx, `UPDATE helix_locks SET token = 'other' WHERE name = 'stolen'`); err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * db.MinLockTTL):
			t.Error("the run went on with its lease lost")
			return nil, nil
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want the run cancelled", err)
	}
	if s := status(t, pool, id); s != db.RunInterrupted {
		t.Errorf("status %s, want interrupted", s)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM helix_locks WHERE token = 'other'`); err != nil {
		t.Fatal(err)
	}
	noLocks(t, pool)
}

// TestKilledRunReapedByNextHolder: a run killed while holding its job lock
// leaves the lock and its record's lease live for up to a TTL. The next run
// waits for the lock and, once it has it, finds the record's lease expired
// with it and closes the record as interrupted, instead of reaping before
// the wait, when the dead run still looked alive.
func TestKilledRunReapedByNextHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	var killed int64
	if err := pool.QueryRow(ctx, `WITH r AS (INSERT INTO job_runs (job, status) VALUES ('k', 'running') RETURNING id),
		l AS (INSERT INTO helix_locks (name, token, holder, acquired_at, expires_at)
			SELECT n, 'dead', 'helix-killed host=h pid=1', now(), clock_timestamp() + interval '400 milliseconds'
			FROM r, LATERAL (VALUES ('k'), ('job-run:' || r.id)) v(n))
		SELECT id FROM r`).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	var expiries int
	err := Do(ctx, pool, Spec{Job: "k", Lock: "k", LockWait: 10 * time.Second}, func(ctx context.Context, run *Run) (any, error) {
		// The lock and this run's record expire together.
		err := pool.QueryRow(ctx, `SELECT count(DISTINCT expires_at) FROM helix_locks WHERE name IN ('k', $1)`, RunLock(run.ID)).Scan(&expiries)
		return nil, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if expiries != 1 {
		t.Errorf("the job lock and the run's record lease have %d expiries, want 1", expiries)
	}
	if s := status(t, pool, killed); s != db.RunInterrupted {
		t.Errorf("killed run: %s, want interrupted", s)
	}
	noLocks(t, pool)
}
