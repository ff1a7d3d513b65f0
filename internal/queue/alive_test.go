package queue

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/schedule"
	"github.com/helixhq/helix/internal/synthesis"
)

// running inserts args as a job that worker has been running for ago.
func running(t *testing.T, pool *pgxpool.Pool, c *river.Client[pgx.Tx], args river.JobArgs, worker string, ago time.Duration) int64 {
	t.Helper()
	ctx := context.Background()
	r, err := c.Insert(ctx, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() - $2::interval,
		attempted_by = ARRAY[$3] WHERE id = $1`, r.Job.ID, ago.String(), worker); err != nil {
		t.Fatal(err)
	}
	return r.Job.ID
}

func stateOf(t *testing.T, pool *pgxpool.Pool, id int64) string {
	t.Helper()
	var s string
	if err := pool.QueryRow(context.Background(), `SELECT state::text FROM river_job WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRescueOrphans: the running jobs of a worker that holds no liveness
// lease are given back (a tick pass discarded, a fire only after its
// grace), a live worker's and an old-style client's are left alone; a dead
// leader is forgotten; helix jobs cancel finalizes a dead worker's job.
func TestRescueOrphans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	c, err := NewInsertClient(pool)
	if err != nil {
		t.Fatal(err)
	}
	dead, live := NewClientID(time.Now()), NewClientID(time.Now().Add(time.Second))
	if !strings.HasPrefix(dead, clientPrefix) || len(dead) > 100 {
		t.Fatalf("client id %q", dead)
	}
	release, err := Alive(ctx, pool, live, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	synth := func() SynthesizeArgs { return SynthesizeArgs{UserID: uuid.New(), Params: synthesis.DefaultParams()} }
	deadJob := running(t, pool, c, synth(), dead, time.Second)
	deadTick := running(t, pool, c, schedule.TickArgs{}, dead, time.Second)
	freshFire := running(t, pool, c, schedule.FireArgs{FireID: 1}, dead, time.Second)
	oldFire := running(t, pool, c, schedule.FireArgs{FireID: 2}, dead, time.Minute)
	liveJob := running(t, pool, c, synth(), live, time.Minute)
	oldStyle := running(t, pool, c, synth(), "somehost_2026_01_01T00_00_00", time.Minute)
	toCancel := running(t, pool, c, synth(), dead, time.Second)
	fireToCancel := running(t, pool, c, schedule.FireArgs{FireID: 3}, dead, time.Second)
	if _, err := pool.Exec(ctx, `WITH s AS (INSERT INTO helix_schedules (name, spec, argv, next_tick) VALUES ('s', '@daily', '{decay,run}', now()) RETURNING id)
		INSERT INTO helix_schedule_fires (schedule_id, tick, kind, status, river_job_id) SELECT id, now(), 'tick', 'running', $1 FROM s`, fireToCancel); err != nil {
		t.Fatal(err)
	}
	liveCancel := running(t, pool, c, synth(), live, time.Second)

	// jobs cancel first: the dead worker's job is cancelled, the live one's is not.
	if w, err := CancelOrphan(ctx, pool, toCancel); err != nil || w != dead {
		t.Errorf("cancel a dead worker's job: %q %v, want %q", w, err, dead)
	}
	if w, err := CancelOrphan(ctx, pool, fireToCancel); err != nil || w != dead {
		t.Errorf("cancel a dead worker's fire: %q %v", w, err)
	}
	var fireStatus string
	if err := pool.QueryRow(ctx, `SELECT status FROM helix_schedule_fires WHERE river_job_id = $1`, fireToCancel).Scan(&fireStatus); err != nil || fireStatus != "interrupted" {
		t.Errorf("the cancelled fire's row: %q %v, want interrupted", fireStatus, err)
	}
	if w, err := CancelOrphan(ctx, pool, liveCancel); err != nil || w != "" {
		t.Errorf("cancel a live worker's job: %q %v, want nothing done", w, err)
	}
	orphans, err := RescueOrphans(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]string{}
	for _, o := range orphans {
		got[o.ID] = o.State
		if o.Worker != dead {
			t.Errorf("orphan %+v: worker %q, want %q", o, o.Worker, dead)
		}
	}
	want := map[int64]string{deadJob: "available", deadTick: "discarded", oldFire: "available"}
	if len(got) != len(want) {
		t.Errorf("rescued %v, want %v", got, want)
	}
	for id, st := range want {
		if got[id] != st || stateOf(t, pool, id) != st {
			t.Errorf("job %d: rescued as %q, now %q, want %q", id, got[id], stateOf(t, pool, id), st)
		}
	}
	for _, id := range []int64{freshFire, liveJob, oldStyle, liveCancel} {
		if s := stateOf(t, pool, id); s != "running" {
			t.Errorf("job %d: %s, want still running", id, s)
		}
	}
	if s := stateOf(t, pool, toCancel); s != "cancelled" {
		t.Errorf("cancelled orphan: %s", s)
	}
	var msg string
	if err := pool.QueryRow(ctx, `SELECT errors[cardinality(errors)]->>'error' FROM river_job WHERE id = $1`, deadJob).Scan(&msg); err != nil ||
		!strings.Contains(msg, dead+" died") {
		t.Errorf("the given back job's last error: %q %v", msg, err)
	}

	for _, c := range []struct {
		leader string
		gone   bool
	}{{live, false}, {"somehost_2026", false}, {dead, true}} {
		if _, err := pool.Exec(ctx, `INSERT INTO river_leader (leader_id, name, elected_at, expires_at) VALUES ($1, 'default', now(), now() + interval '15 seconds')
			ON CONFLICT (name) DO UPDATE SET leader_id = excluded.leader_id`, c.leader); err != nil {
			t.Fatal(err)
		}
		if gone, err := ForgetDeadLeader(ctx, pool); err != nil || gone != c.gone {
			t.Errorf("leader %s: forgotten %v (%v), want %v", c.leader, gone, err, c.gone)
		}
	}
	// The live worker stops: its lease goes with it.
	release()
	time.Sleep(100 * time.Millisecond)
	var n int
	for deadline := time.Now().Add(10 * time.Second); n == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		o, err := RescueOrphans(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		n += len(o)
	}
	if n != 2 {
		t.Errorf("after the live worker ended, %d of its 2 jobs given back", n)
	}
}
