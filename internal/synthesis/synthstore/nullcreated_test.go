package synthstore

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/synthesis"
)

// Issue 49, item 1 (the audit): the platform's memories.created_at is a
// timestamp the documents do not promise NOT NULL. A memory without it
// cannot be placed in time: Load and Stream leave it out instead of failing
// the user ("cannot scan NULL into *time.Time").
func TestMemoryWithoutCreatedAtIsLeftOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.MigratedPlatform(t)
	user := uuid.MustParse("a0000000-0000-4000-8000-000000000001") // rows.sql's user A, 60 memories
	if _, err := pool.Exec(ctx, `INSERT INTO memories (id, user_id, type, content, created_at)
		VALUES (gen_random_uuid(), $1, 'semantic', 'an app forgot the time', NULL)`, user); err != nil {
		t.Fatal(err)
	}
	ms, err := Load(ctx, pool, user, Filter{})
	if err != nil || len(ms) != 60 {
		t.Fatalf("Load: %d memories (%v), want the 60 with a creation time", len(ms), err)
	}
	var got int
	var userErr error
	if err := Stream(ctx, pool, []uuid.UUID{user}, Filter{}, func(_ int, ms []synthesis.Memory, err error) {
		got, userErr = len(ms), err
	}); err != nil || userErr != nil || got != 60 {
		t.Fatalf("Stream: %d memories (%v, user: %v), want the 60 with a creation time", got, err, userErr)
	}
}
