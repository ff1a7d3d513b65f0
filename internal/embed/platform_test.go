package embed

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/embed/embedtest"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/search"
)

type clientEmbedder struct{ c *Client }

func (e clientEmbedder) Embed(ctx context.Context, in []string) ([][]float32, error) {
	v, _, err := e.c.Embed(ctx, in)
	return v, err
}

// On the platform's Supabase-shaped database (NULL content, NULL embeddings,
// 384-dimension rows among 1,536-dimension ones, timestamp without time zone),
// embed fills only what is missing, in the user's dominant dimension, and
// search works in every mode.
func TestOnPlatformDatabase(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.Platform(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	m, err := db.NewMigrator(pool)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	_ = m.Close()
	userA := uuid.MustParse("a0000000-0000-4000-8000-000000000001")
	var missing, emptyMissing int
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE content IS NOT NULL), count(*) FILTER (WHERE content IS NULL)
		FROM memories WHERE user_id = $1 AND embedding IS NULL`, userA).Scan(&missing, &emptyMissing); err != nil {
		t.Fatal(err)
	}
	s := &embedtest.Server{Dim: 1536}
	c, _ := newClient(t, s)
	res, err := User(ctx, pool, c, userA, Options{Model: "test-embed", Batch: BatchOptions{BatchSize: 16}})
	if err != nil {
		t.Fatal(err)
	}
	if missing == 0 || res.Embedded != missing || res.SkippedEmpty != emptyMissing || res.Dimension != 1536 {
		t.Fatalf("result %+v: want %d embedded, %d skipped", res, missing, emptyMissing)
	}
	// a model of another dimension is refused: the user's rows are 1,536 wide
	s384 := &embedtest.Server{Dim: 384}
	c384, _ := newClient(t, s384)
	if _, err := User(ctx, pool, c384, userA, Options{Model: "small-384", Reembed: false, Batch: BatchOptions{BatchSize: 500}}); err == nil {
		t.Fatal("a 384-dimension model replaced 1,536-dimension embeddings")
	}

	rep, err := search.Search(ctx, pool, nil, search.Params{User: userA, Query: "walking the dog", Mode: search.Text, Limit: 5})
	if err != nil || len(rep.Results) != 5 || rep.Results[0].Content == nil {
		t.Fatalf("text search: %+v %v", rep, err)
	}
	rep, err = search.Search(ctx, pool, clientEmbedder{c}, search.Params{User: userA, Query: "walked the dog in the park", Mode: search.Hybrid, Limit: 5, Model: "test-embed"})
	if err != nil || len(rep.Results) != 5 || rep.SkippedDimension == 0 || rep.Results[0].Vector == nil || rep.Results[0].Text == nil {
		t.Fatalf("hybrid search: %+v %v", rep, err)
	}
}
