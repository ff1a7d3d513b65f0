package queue

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/synthesis"
	"github.com/helixhq/helix/internal/synthesis/synthstore"
)

// benchUsers seeds n users × 10 memories and returns their ids.
func benchUsers(b *testing.B, pool *pgxpool.Pool, n int) []uuid.UUID {
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO memories (id, user_id, type, content, emotional_valence, created_at)
		SELECT md5('m' || u || '-' || k)::uuid, md5('u' || u)::uuid, 'episodic',
		       'user ' || u || ' wrote note ' || k || ' about ' || (ARRAY['coffee', 'running', 'work', 'family'])[1 + (u + k) % 4],
		       ((k % 5) - 2) / 2.0, timestamptz '2026-01-01' + k * interval '1 day'
		FROM generate_series(1, $1) u, generate_series(1, 10) k`, n); err != nil {
		b.Fatal(err)
	}
	users, err := synthstore.Users(ctx, pool, synthstore.Filter{})
	if err != nil {
		b.Fatal(err)
	}
	return users
}

func benchParams() synthesis.Params {
	p := synthesis.DefaultParams()
	p.MinClusterSize, p.MinConfidence = 2, 0
	return p
}

// BenchmarkSynthesizeUnit is the per-user work alone: read, analyse and write one user on a
// connection of its own, writing, one user after another.
func BenchmarkSynthesizeUnit(b *testing.B) {
	pool := pgtest.New(b)
	users := benchUsers(b, pool, max(b.N, 1))
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	b.ResetTimer()
	for i := range b.N {
		r, err := synthstore.Compute(ctx, users[i], synthstore.ReadUser(ctx, conn, users[i], synthstore.Filter{}, benchParams()), benchParams())
		if err == nil {
			err = (&synthstore.Write{Now: time.Now()}).One(ctx, conn, r)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSynthesizeJob is the same work as River jobs worked by one
// client at concurrency 1 (the worker's path: fetch, envelope, unit,
// JobCompleteTx); the difference per op is the queue's overhead.
func BenchmarkSynthesizeJob(b *testing.B) {
	pool := pgtest.New(b)
	users := benchUsers(b, pool, max(b.N, 1))
	ctx := context.Background()
	args := make([]SynthesizeArgs, b.N)
	for i := range b.N {
		args[i] = SynthesizeArgs{UserID: users[i], Params: benchParams()}
	}
	ic, err := NewInsertClient(pool)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Enqueue(ctx, ic, args, PriorityBatch); err != nil {
		b.Fatal(err)
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:        map[string]river.QueueConfig{QueueSynthesize: {MaxWorkers: 1}},
		Workers:       Workers(&Deps{Pool: pool, Now: time.Now}),
		FetchCooldown: 2 * time.Millisecond, FetchPollInterval: 100 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		b.Fatal(err)
	}
	done, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	defer cancel()
	b.ResetTimer()
	if err := client.Start(ctx); err != nil {
		b.Fatal(err)
	}
	for range b.N {
		e := <-done
		if e.Kind != river.EventKindJobCompleted {
			b.Fatalf("job %d: %s", e.Job.ID, e.Kind)
		}
	}
	b.StopTimer()
	if err := client.Stop(ctx); err != nil {
		b.Fatal(err)
	}
}
