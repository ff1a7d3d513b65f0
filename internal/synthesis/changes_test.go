package synthesis

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
)

// markAll records every user's current state, as a run over all of them would.
func markAll(t *testing.T, pool *pgxpool.Pool, f Filter, p Params) {
	t.Helper()
	ctx := context.Background()
	users, _, _, err := ChangedUsers(ctx, pool, f, p, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		s, err := Snapshot(ctx, pool, u, f, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Save(ctx, pool, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// Each kind of change to what synthesis reads selects exactly the changed
// user; changes to what it does not read (recall times, decay state, type)
// select nobody; and the digest one scan computes for everyone is the one
// Snapshot computes for a user.
func TestChangedUsers(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	const users = 9
	if _, err := pool.Exec(ctx, `INSERT INTO memories (id, user_id, type, content, embedding, emotional_valence, created_at)
		SELECT md5('m' || g)::uuid, md5('u' || g % $1)::uuid, 'episodic', 'memory ' || g,
		       CASE WHEN g % 4 <> 0 THEN ARRAY[g % 7, g % 5, 1]::real[] END,
		       CASE WHEN g % 3 <> 0 THEN (g % 10) / 10.0 END,
		       '2026-10-01T00:00:00Z'::timestamptz + g * interval '1 hour'
		FROM generate_series(1, 300) g`, users); err != nil {
		t.Fatal(err)
	}
	user := func(i int) uuid.UUID {
		var u uuid.UUID
		if err := pool.QueryRow(ctx, `SELECT md5('u' || $1::int)::uuid`, i).Scan(&u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	p, f := DefaultParams(), Filter{}
	changed := func() []uuid.UUID {
		t.Helper()
		us, unchanged, states, err := ChangedUsers(ctx, pool, f, p, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(us)+unchanged != users || len(states) != len(us) {
			t.Fatalf("%d changed + %d unchanged users, %d states: want %d in all, a state per changed user", len(us), unchanged, len(states), users)
		}
		for _, u := range us {
			want, err := Snapshot(ctx, pool, u, f, p)
			if err != nil {
				t.Fatal(err)
			}
			if got := states[u]; got == nil || *got != *want {
				t.Fatalf("user %s: state from the scan %+v, Snapshot %+v", u, got, *want)
			}
		}
		return us
	}
	if got := changed(); len(got) != users {
		t.Fatalf("before any synthesis %d users changed, want all %d", len(got), users)
	}
	markAll(t, pool, f, p)
	if got := changed(); len(got) != 0 {
		t.Fatalf("right after recording, %d users changed: %v", len(got), got)
	}
	for i, c := range []struct {
		what, sql string
		changes   bool
	}{
		{"insert", `INSERT INTO memories (user_id, type, content, created_at) VALUES ($1, 'semantic', 'new', '2026-11-01')`, true},
		{"delete", `DELETE FROM memories WHERE id = (SELECT id FROM memories WHERE user_id = $1 ORDER BY id LIMIT 1)`, true},
		{"content", `UPDATE memories SET content = content || '!' WHERE id = (SELECT id FROM memories WHERE user_id = $1 ORDER BY id LIMIT 1)`, true},
		{"content to NULL", `UPDATE memories SET content = NULL WHERE id = (SELECT id FROM memories WHERE user_id = $1 ORDER BY id LIMIT 1)`, true},
		{"embedding", `UPDATE memories SET embedding[1] = embedding[1] + 0.001 WHERE id = (SELECT id FROM memories WHERE user_id = $1 AND embedding IS NOT NULL ORDER BY id LIMIT 1)`, true},
		{"embedding from NULL", `UPDATE memories SET embedding = ARRAY[1, 2, 3] WHERE id = (SELECT id FROM memories WHERE user_id = $1 AND embedding IS NULL ORDER BY id LIMIT 1)`, true},
		{"valence", `UPDATE memories SET emotional_valence = coalesce(-emotional_valence / 2 - 0.1, 0.3) WHERE id = (SELECT id FROM memories WHERE user_id = $1 ORDER BY id LIMIT 1)`, true},
		{"created_at", `UPDATE memories SET created_at = created_at + interval '1 second' WHERE id = (SELECT id FROM memories WHERE user_id = $1 ORDER BY id LIMIT 1)`, true},
		{"recall and decay state", `UPDATE memories SET last_accessed = now(), access_count = access_count + 1, retention = 0.5, type = 'semantic' WHERE user_id = $1`, false},
	} {
		u := user(i)
		if tag, err := pool.Exec(ctx, c.sql, u); err != nil || tag.RowsAffected() == 0 {
			t.Fatalf("%s: %v, %d rows", c.what, err, tag.RowsAffected())
		}
		got := changed()
		if want := map[bool][]uuid.UUID{true: {u}, false: {}}[c.changes]; !slices.Equal(got, want) {
			t.Errorf("%s of user %d: changed users %v, want %v", c.what, i, got, want)
		}
		markAll(t, pool, f, p)
	}

	// Other parameters, or --limit, mean recompute; --since scopes the digest.
	p2 := p
	p2.MinClusterSize = 8
	if us, _, _, err := ChangedUsers(ctx, pool, f, p2, false); err != nil || len(us) != users {
		t.Errorf("other parameters: %d users changed (%v), want %d", len(us), err, users)
	}
	if us, _, _, err := ChangedUsers(ctx, pool, Filter{Limit: 10}, p, false); err != nil || len(us) != users {
		t.Errorf("--limit: %d users changed (%v), want %d", len(us), err, users)
	}
	if us, unchanged, _, err := ChangedUsers(ctx, pool, f, p, true); err != nil || len(us) != users || unchanged != 0 {
		t.Errorf("full: %d users (%d unchanged, %v), want all %d", len(us), unchanged, err, users)
	}
}

// SnapshotsAhead gives every user the state Snapshots gives, chunk after
// chunk, and all from the snapshot of its first chunk: a memory committed
// after it returned (as the stream starts) is in no state it gives, even a
// state computed later, so the run that reads that memory leaves its user
// to be synthesized again.
func TestSnapshotsAhead(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.New(t)
	const users = 2*aheadChunk + 7 // three chunks
	if _, err := pool.Exec(ctx, `INSERT INTO memories (id, user_id, type, content, embedding, created_at)
		SELECT md5('m' || g)::uuid, md5('u' || g % $1)::uuid, 'episodic', 'memory ' || g,
		       ARRAY[g % 7, g % 5, 1]::real[], '2026-10-01T00:00:00Z'::timestamptz + g * interval '1 hour'
		FROM generate_series(1, 3 * $1) g`, users); err != nil {
		t.Fatal(err)
	}
	var ids []uuid.UUID
	rows, _ := pool.Query(ctx, `SELECT DISTINCT user_id FROM memories`)
	for rows.Next() {
		var u uuid.UUID
		if err := rows.Scan(&u); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, u)
	}
	if rows.Err() != nil || len(ids) != users {
		t.Fatalf("%d users (%v), want %d", len(ids), rows.Err(), users)
	}
	p, f := DefaultParams(), Filter{}
	want, err := Snapshots(ctx, pool, ids, f, p)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(ids, compareUUID)
	last := ids[len(ids)-1] // in the last chunk
	unblock := make(chan struct{})
	aheadPause = func(int) { <-unblock }
	t.Cleanup(func() { aheadPause = nil })
	a, err := SnapshotsAhead(ctx, pool, ids, f, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO memories (user_id, type, content, created_at) VALUES ($1, 'semantic', 'after', now())`, last); err != nil {
		t.Fatal(err)
	}
	close(unblock)
	for _, u := range ids {
		got, err := a.State(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if w := want[u]; got.Memories != w.Memories || got.digest != w.digest || got.Settings != w.Settings {
			t.Fatalf("user %s: state %+v, want %+v (Snapshots before the insert)", u, *got, *w)
		}
	}
	a.Wait()
	now, err := Snapshot(ctx, pool, last, f, p)
	if err != nil {
		t.Fatal(err)
	}
	if now.Memories != want[last].Memories+1 {
		t.Fatalf("after the insert the user has %d memories, want %d", now.Memories, want[last].Memories+1)
	}
}
