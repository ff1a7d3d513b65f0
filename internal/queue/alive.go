package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
)

// A helix worker holds a lease (helix_locks, name "worker:" + its River
// client id) for its whole life, renewed by its heartbeat: a worker that
// dies, however, stops renewing it, and it expires within db.lock-ttl. A
// running job whose client holds no such lease belongs to a dead worker, and
// any live helix process may give it back then instead of waiting for
// River's rescuer (--rescue-after). A lease, not a session advisory lock:
// behind a transaction pooler a session lock outlives its worker on the
// pooled server connection. Clients of older helix versions, which hold no
// lease, are recognised by their id (no clientPrefix) and left to River.
const aliveLockPrefix = "worker:"

// clientPrefix starts the River client id of every worker that holds its lock.
const clientPrefix = "helix_"

// NewClientID is a River client id for a worker: the prefix, host, process
// id and start time (unique per process; at most River's 100 characters).
func NewClientID(now time.Time) string {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '-'
	}, host)
	if len(host) > 40 {
		host = host[:40]
	}
	return fmt.Sprintf("%s%s_%d_%s", clientPrefix, host, os.Getpid(), now.UTC().Format("20060102T150405.000000"))
}

// aliveSQL is true when the client whose id is the expression %[1]s holds
// its lease (or is no helix worker that holds one). The subquery is not
// correlated: PostgreSQL reads helix_locks once per statement (a hashed
// subplan), however many jobs it checks.
const aliveSQL = `(NOT starts_with(%[1]s, 'helix_') OR '%[2]s' || %[1]s IN (SELECT name FROM helix_locks
	WHERE starts_with(name, '%[2]s') AND expires_at >= clock_timestamp()))`

func alive(expr string) string { return fmt.Sprintf(aliveSQL, expr, aliveLockPrefix) }

// Alive holds id's lease until release is called (it gives the lease back
// at once, so a worker that stops leaves none behind). A lease the heartbeat
// could not keep (the database unreachable for a TTL) is taken again;
// meanwhile other workers may give the worker's jobs back (at worst a job
// runs twice, which every job survives).
func Alive(ctx context.Context, pool *pgxpool.Pool, id string, log *slog.Logger) (release func(), err error) {
	name := aliveLockPrefix + id
	l, err := db.TryLock(ctx, pool, name)
	if err != nil {
		return nil, fmt.Errorf("worker: take its liveness lease: %w", err)
	}
	ctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-l.Lost().Done():
			}
			for {
				nl, err := db.TryLock(ctx, pool, name)
				if err == nil {
					l = nl
					break
				}
				if ctx.Err() != nil {
					return
				}
				log.Warn("worker liveness lease lost: taking it again", "err", err)
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Second):
				}
			}
		}
	}()
	return func() {
		stop()
		<-done
		// Bounded: a starved pool must not keep a stopping worker alive; a
		// lease not given back expires within its TTL anyway.
		released := make(chan struct{})
		go func() { _ = l.Release(context.Background()); close(released) }()
		select {
		case <-released:
		case <-time.After(5 * time.Second):
		}
	}, nil
}

// Orphan is a running job whose worker died.
type Orphan struct {
	ID     int64
	Kind   string
	Worker string
	State  string // what it became: available (run again) or discarded (no attempts left), cancelled
}

// fireGrace is how long a dead worker's schedule fire waits before it runs
// again: its job, a child process, got SIGTERM when the worker died and has
// this long to stop (the worker's kill-after, 25 s, and some).
const fireGrace = 30 * time.Second

// RescueOrphans gives back every running job whose worker died: available
// again at once (a schedule fire after fireGrace) while it has attempts
// left, else discarded, with the reason among its errors. Tick passes
// (one attempt) are discarded: the next one is enqueued within a second.
// Any worker runs it every few seconds; River's own rescuer (leader only,
// --rescue-after) stays for workers that hold no liveness lock.
func RescueOrphans(ctx context.Context, q db.Querier) ([]Orphan, error) {
	rows, err := q.Query(ctx, `WITH o AS (
			SELECT id, attempted_by[cardinality(attempted_by)] AS worker FROM river_job
			WHERE state = 'running' AND cardinality(attempted_by) > 0
			  AND starts_with(attempted_by[cardinality(attempted_by)], 'helix_')
			  AND attempted_at < now() - CASE WHEN kind = 'schedule_fire' THEN $1::interval ELSE interval '0' END
			  AND NOT `+alive("attempted_by[cardinality(attempted_by)]")+`
			FOR UPDATE SKIP LOCKED)
		UPDATE river_job j SET
			state = CASE WHEN j.attempt >= j.max_attempts THEN 'discarded' ELSE 'available' END::river_job_state,
			finalized_at = CASE WHEN j.attempt >= j.max_attempts THEN now() END,
			scheduled_at = now(),
			errors = array_append(coalesce(j.errors, '{}'), jsonb_build_object('at', now(), 'attempt', j.attempt,
				'error', 'worker ' || o.worker || ' died while running this job (given back by a live helix worker)', 'trace', ''))
		FROM o WHERE j.id = o.id AND j.state = 'running'
		RETURNING j.id, j.kind, o.worker, j.state::text`, fireGrace.String())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Orphan, error) {
		var o Orphan
		return o, r.Scan(&o.ID, &o.Kind, &o.Worker, &o.State)
	})
}

// ForgetDeadLeader deletes River's leader row when its worker died, so a
// live worker is elected at its next try (every 5 s) instead of after the
// dead one's term (up to 15 s more). It reports whether it deleted one.
func ForgetDeadLeader(ctx context.Context, q db.Querier) (bool, error) {
	tag, err := q.Exec(ctx, `DELETE FROM river_leader WHERE starts_with(leader_id, 'helix_') AND NOT `+alive("leader_id"))
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() > 0, nil
}

// CancelOrphan finalizes job id as cancelled (and its schedule fire, if
// it is one, as interrupted) when it is running on a dead worker (River's cancel only asks the running worker to stop it, and a
// dead one never does). It returns the dead worker's id, "" when the job
// was not orphaned (not running, or its worker lives).
func CancelOrphan(ctx context.Context, q db.Querier, id int64) (string, error) {
	var worker string
	// A schedule fire's row is closed too: its job never runs again.
	err := q.QueryRow(ctx, `WITH c AS (
			UPDATE river_job SET state = 'cancelled', finalized_at = now(),
				errors = array_append(coalesce(errors, '{}'), jsonb_build_object('at', now(), 'attempt', attempt,
					'error', 'cancelled (helix jobs cancel) after its worker ' || attempted_by[cardinality(attempted_by)] || ' died', 'trace', ''))
			WHERE id = $1 AND state = 'running' AND cardinality(attempted_by) > 0
			  AND starts_with(attempted_by[cardinality(attempted_by)], 'helix_')
			  AND NOT `+alive("attempted_by[cardinality(attempted_by)]")+`
			RETURNING id, kind, attempted_by[cardinality(attempted_by)] AS worker),
		f AS (
			UPDATE helix_schedule_fires SET status = 'interrupted', finished_at = clock_timestamp(),
				error = 'cancelled (helix jobs cancel) after its worker died'
			FROM c WHERE c.kind = 'schedule_fire' AND river_job_id = c.id AND status IN ('pending', 'running'))
		SELECT worker FROM c`, id).Scan(&worker)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return worker, err
}

// MaintainEvery is how often every `helix worker` gives back the jobs of
// dead workers, forgets a dead leader and closes dead runs' job_runs rows:
// a crash blocks nothing (a unique tick pass, a fire's schedule) longer
// than this and a moment, wherever it struck.
const MaintainEvery = 2 * time.Second
