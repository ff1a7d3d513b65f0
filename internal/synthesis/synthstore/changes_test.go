package synthstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/synthesis"
)

// markAll records every user's current state, as a run over all of them would.
func markAll(t *testing.T, pool *pgxpool.Pool, f Filter, p synthesis.Params) {
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
// select nobody; other settings select everybody; a moved --since window
// selects the users with memories between the two windows.
func TestChangedUsers(t *testing.T) {
	t.Parallel()
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
	p, f := synthesis.DefaultParams(), Filter{}
	changedIn := func(f Filter, p synthesis.Params) []uuid.UUID {
		t.Helper()
		us, unchanged, states, err := ChangedUsers(ctx, pool, f, p, false)
		if err != nil {
			t.Fatal(err)
		}
		var recorded int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM helix_synthesis_state WHERE user_id <> ALL($1)`, us).Scan(&recorded); err != nil {
			t.Fatal(err)
		}
		if unchanged != recorded || len(states) != len(us) {
			t.Fatalf("%d changed, %d unchanged users, %d states: want the %d recorded others unchanged, a state per changed user", len(us), unchanged, len(states), recorded)
		}
		for _, u := range us {
			if s := states[u]; s == nil || s.User != u || s.Settings != Settings(p, f) || s.seen == "" {
				t.Fatalf("user %s: state %+v", u, s)
			}
		}
		return us
	}
	changed := func() []uuid.UUID { t.Helper(); return changedIn(f, p) }
	if got := changed(); len(got) != users {
		t.Fatalf("before any synthesis %d users changed, want all %d", len(got), users)
	}
	markAll(t, pool, f, p)
	if got := changed(); len(got) != 0 {
		t.Fatalf("right after recording, %d users changed: %v", len(got), got)
	}
	if n := count(t, pool, `SELECT count(*) FROM helix_memory_changes`); n != 0 {
		t.Errorf("%d change markers left after every user was recorded, want 0", n)
	}
	for i, c := range []struct {
		what, sql string
		changes   bool
	}{
		{"insert", `INSERT INTO memories (id, user_id, type, content, created_at) VALUES (gen_random_uuid(), $1, 'semantic', 'new', '2026-11-01')`, true},
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

	// A memory moved to another user changes both.
	if _, err := pool.Exec(ctx, `UPDATE memories SET user_id = $2 WHERE id = (SELECT id FROM memories WHERE user_id = $1 ORDER BY id LIMIT 1)`, user(1), user(2)); err != nil {
		t.Fatal(err)
	}
	want := []uuid.UUID{user(1), user(2)}
	slices.SortFunc(want, compareUUID)
	if got := changed(); !slices.Equal(got, want) {
		t.Errorf("a memory moved from user 1 to 2: changed %v, want %v", got, want)
	}
	markAll(t, pool, f, p)

	// Other parameters, or --limit, mean recompute.
	p2 := p
	p2.MinClusterSize = 8
	if us := changedIn(f, p2); len(us) != users {
		t.Errorf("other parameters: %d users changed, want %d", len(us), users)
	}
	if us := changedIn(Filter{Limit: 10}, p); len(us) != users {
		t.Errorf("--limit: %d users changed, want %d", len(us), users)
	}
	if us, unchanged, _, err := ChangedUsers(ctx, pool, f, p, true); err != nil || len(us) != users || unchanged != 0 {
		t.Errorf("full: %d users (%d unchanged, %v), want all %d", len(us), unchanged, err, users)
	}

	// --since: recorded at one window, a later window differs by the
	// memories between the two (created at hour g, of user g % 9).
	at := func(h float64) time.Time {
		return time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h * float64(time.Hour)))
	}
	f1 := Filter{Since: at(0.5)}
	if us := changedIn(f1, p); len(us) != users {
		t.Errorf("from all memories to --since: %d users changed, want all %d", len(us), users)
	}
	markAll(t, pool, f1, p)
	if us := changedIn(f1, p); len(us) != 0 {
		t.Errorf("the same --since window again: %v changed, want none", us)
	}
	var aged []uuid.UUID
	for _, i := range []int{1, 2, 3} { // hours 1, 2 and 3
		aged = append(aged, user(i))
	}
	slices.SortFunc(aged, compareUUID)
	if us := changedIn(Filter{Since: at(3.5)}, p); !slices.Equal(us, aged) {
		t.Errorf("--since moved past hours 1-3: %v changed, want users 1-3 %v", us, aged)
	}
	if us := changedIn(Filter{Since: at(0.75)}, p); len(us) != 0 {
		t.Errorf("--since moved over no memory: %v changed, want none", us)
	}
	if us := changedIn(f, p); len(us) != users {
		t.Errorf("from --since to all memories: %d users changed, want all %d", len(us), users)
	}

	// TRUNCATE leaves no rows to say whose memories went: everyone recorded.
	markAll(t, pool, f, p)
	if _, err := pool.Exec(ctx, `TRUNCATE memories CASCADE`); err != nil {
		t.Fatal(err)
	}
	if us := changed(); len(us) != users {
		t.Errorf("after TRUNCATE: %d users changed, want all %d", len(us), users)
	}
}

func count(t *testing.T, q db.Querier, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := q.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// nightly is synthesizeRun's --all-users run, piece by piece: the change
// check, then between (if set), then one stream of the changed users'
// memories, each user analysed and written with its state. It returns the
// users it selected.
func nightly(t *testing.T, pool *pgxpool.Pool, between func(users []uuid.UUID)) []uuid.UUID {
	t.Helper()
	ctx := context.Background()
	p, f := synthesis.DefaultParams(), Filter{}
	users, _, states, err := ChangedUsers(ctx, pool, f, p, false)
	if err != nil {
		t.Fatalf("change check: %v", err)
	}
	if between != nil {
		between(users)
	}
	var failed []string
	var rs []Result
	Each(ctx, pool, users, StateOf(states), f, 1, func(i int, read *Read) {
		r, err := Compute(ctx, users[i], read, p)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", users[i], err))
		}
		rs = append(rs, r)
	})
	if len(failed) > 0 {
		t.Fatalf("nightly run: %s", strings.Join(failed, "; "))
	}
	// written as the run writes them: a batch in one transaction
	if held, err := (&Write{Now: time.Now()}).Many(ctx, pool, rs); err != nil || len(held) > 0 {
		t.Fatalf("nightly run: write: %v (held: %v)", err, held)
	}
	return users
}

// A memory inserted, updated or deleted while a nightly run is under way —
// by a transaction that began before the change check and commits after the
// run, or that begins between the check and the read and commits after —
// makes the next run synthesize its user, through every connection path;
// after that run every state matches the memories and nothing is left to do.
func TestChangeDuringRun(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"direct", pgtest.SessionMode, pgtest.TransactionMode} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			direct := pgtest.URL(t)
			url, mode := direct, "direct"
			if path != "direct" {
				url, mode = pgtest.Bouncer(t, path, direct), path
			}
			pool, err := db.Open(ctx, url, db.Options{PoolMode: mode})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			writer := pgtest.Open(t, direct) // the platform's apps
			var us []uuid.UUID
			for i := range 5 {
				u := uuid.NewSHA1(uuid.NameSpaceOID, []byte{'c', byte(i)})
				us = append(us, u)
				if _, err := memories.Insert(ctx, writer, synthesis.Synthetic(u, 12, 8, uint64(i+1))); err != nil {
					t.Fatal(err)
				}
			}
			if got := nightly(t, pool, nil); len(got) != len(us) {
				t.Fatalf("first run: %d users, want %d", len(got), len(us))
			}
			inserted, updated, deleted, seenInsert := us[0], us[1], us[2], us[3]
			// users 0-3 changed before the run, so that it reads them too
			for _, u := range us[:4] {
				if _, err := writer.Exec(ctx, `UPDATE memories SET content = content || ' (again)' WHERE id = (SELECT min(id::text)::uuid FROM memories WHERE user_id = $1)`, u); err != nil {
					t.Fatal(err)
				}
			}
			begin := func() pgx.Tx {
				tx, err := writer.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = tx.Rollback(ctx) })
				return tx
			}
			exec := func(q db.Querier, sql string, u uuid.UUID) {
				t.Helper()
				if tag, err := q.Exec(ctx, sql, u); err != nil || tag.RowsAffected() != 1 {
					t.Fatalf("%s: %v (%d rows)", sql, err, tag.RowsAffected())
				}
			}
			const (
				insert = `INSERT INTO memories (id, user_id, type, content, created_at) VALUES (gen_random_uuid(), $1, 'episodic', 'written during the run', now())`
				update = `UPDATE memories SET content = 'edited during the run' WHERE id = (SELECT min(id::text)::uuid FROM memories WHERE user_id = $1)`
				del    = `DELETE FROM memories WHERE id = (SELECT max(id::text)::uuid FROM memories WHERE user_id = $1)`
			)
			// begins (and takes its transaction id) before the check, commits after the run
			early := begin()
			exec(early, insert, inserted)
			var late []pgx.Tx
			second := nightly(t, pool, func(selected []uuid.UUID) {
				if !slices.Contains(selected, inserted) || !slices.Contains(selected, deleted) {
					t.Errorf("the run selected %v, want users 0-3", selected)
				}
				// between the check and the read: these commit after the run
				tx := begin()
				exec(tx, update, updated)
				late = append(late, tx)
				tx = begin()
				exec(tx, del, deleted)
				late = append(late, tx)
				// and this one before the read
				exec(writer, insert, seenInsert)
			})
			if len(second) != 4 {
				t.Fatalf("second run selected %d users, want 4", len(second))
			}
			for _, tx := range append(late, early) {
				if err := tx.Commit(ctx); err != nil {
					t.Fatal(err)
				}
			}
			third := nightly(t, pool, nil)
			for _, u := range []uuid.UUID{inserted, updated, deleted} {
				if !slices.Contains(third, u) {
					t.Errorf("user %s, changed by a transaction the second run did not see, is not in the next run's %v", u, third)
				}
			}
			if slices.Contains(third, us[4]) {
				t.Errorf("user 4 changed nowhere but was selected")
			}
			if n := count(t, writer, `SELECT count(*) FROM helix_synthesis_state s
				WHERE s.memories <> (SELECT count(*) FROM memories m WHERE m.user_id = s.user_id)`); n != 0 {
				t.Errorf("%d users' states count other memories than they have", n)
			}
			if n := count(t, writer, `SELECT count(*) FROM memory_synthesis ms JOIN LATERAL unnest(ms.memory_ids) id ON true
				WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = id)`); n != 0 {
				t.Errorf("%d synthesis members are deleted memories", n)
			}
			if fourth := nightly(t, pool, nil); len(fourth) != 0 {
				t.Errorf("nothing changed since the third run, yet the fourth selected %v", fourth)
			}
		})
	}
}

// guardMemories replaces memories, for every reader, by a view that raises
// on reaching a row of any of guarded: a query that reads such a row fails.
// (The guard is evaluated last, after every cheaper condition, and rows an
// index condition excludes are never reached.) Writers use memories_base.
func guardMemories(t *testing.T, pool *pgxpool.Pool, guarded []uuid.UUID) {
	t.Helper()
	ctx := context.Background()
	ids := make([]string, len(guarded))
	for i, u := range guarded {
		ids[i] = "'" + u.String() + "'"
	}
	for _, sql := range []string{
		`ALTER TABLE memories RENAME TO memories_base`,
		`CREATE FUNCTION test_guard(u uuid) RETURNS boolean LANGUAGE plpgsql COST 1000000 AS $$
		BEGIN
			IF u = ANY(ARRAY[` + strings.Join(ids, ",") + `]::uuid[]) THEN
				RAISE EXCEPTION 'read a memory of unchanged user %', u;
			END IF;
			RETURN true;
		END $$`,
		`CREATE VIEW memories AS SELECT * FROM memories_base WHERE test_guard(user_id)`,
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// A user whose memories did not change is never read past the change
// check: with every unchanged user's rows raising when read, a run over the
// changed one succeeds; and the guard does bite a read of everyone.
func TestUnchangedUsersNotRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	var us []uuid.UUID
	for i := range 6 {
		u := uuid.NewSHA1(uuid.NameSpaceOID, []byte{'g', byte(i)})
		us = append(us, u)
		if _, err := memories.Insert(ctx, pool, synthesis.Synthetic(u, 20, 16, uint64(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	nightly(t, pool, nil)
	changed := us[2]
	if _, err := pool.Exec(ctx, `UPDATE memories SET emotional_valence = 0.25 WHERE id = (SELECT min(id::text)::uuid FROM memories WHERE user_id = $1)`, changed); err != nil {
		t.Fatal(err)
	}
	guardMemories(t, pool, slices.DeleteFunc(slices.Clone(us), func(u uuid.UUID) bool { return u == changed }))
	if got := nightly(t, pool, nil); !slices.Equal(got, []uuid.UUID{changed}) {
		t.Errorf("the run selected %v, want only %s", got, changed)
	}
	// and with nothing changed, nobody's memories are read at all
	if got := nightly(t, pool, nil); len(got) != 0 {
		t.Errorf("the run selected %v, want nobody", got)
	}

	// The control: a read of every user, as --full does, hits the guard.
	err := Stream(ctx, pool, us, Filter{}, func(int, []synthesis.Memory, error) {})
	if err == nil || !strings.Contains(err.Error(), "read a memory of unchanged user") {
		t.Fatalf("streaming every user: %v, want the guard's error", err)
	}
}

// The migration counts the users who had memories before it as changed
// once: a platform database with memories and no helix gets every such user
// selected by the first run.
func TestInstallMarksExistingUsers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.Platform(t)
	pool := pgtest.Open(t, url)
	m, err := db.NewMigrator(pool)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var want []uuid.UUID
	rows, _ := pool.Query(ctx, `SELECT DISTINCT user_id FROM memories ORDER BY user_id`)
	want, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil || len(want) == 0 {
		t.Fatalf("the platform's users with memories: %v (%v)", want, err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	got, _, _, err := ChangedUsers(ctx, pool, Filter{}, synthesis.DefaultParams(), false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("first run after install selects %v, want every user with memories %v", got, want)
	}
}

// Save of a state older than the recorded one (a nightly run that read
// before a --user-id run saved) leaves the user to be recomputed: the newer
// save deleted markers of changes the older read may have missed.
func TestSaveOlderStateRedoes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	u := uuid.NewSHA1(uuid.NameSpaceOID, []byte("older"))
	if _, err := memories.Insert(ctx, pool, synthesis.Synthetic(u, 5, 4, 1)); err != nil {
		t.Fatal(err)
	}
	p, f := synthesis.DefaultParams(), Filter{}
	old, err := Snapshot(ctx, pool, u, f, p) // the nightly's, before its read
	if err != nil {
		t.Fatal(err)
	}
	// a change, then a --user-id run that reads and saves it
	if _, err := pool.Exec(ctx, `INSERT INTO memories (id, user_id, type, content, created_at) VALUES (gen_random_uuid(), $1, 'episodic', 'x', now())`, u); err != nil {
		t.Fatal(err)
	}
	newer, err := Snapshot(ctx, pool, u, f, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := newer.Save(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	if got, _, _, _ := ChangedUsers(ctx, pool, f, p, false); len(got) != 0 {
		t.Fatalf("after the newer save: %v changed, want none", got)
	}
	if err := old.Save(ctx, pool, nil); err != nil { // the nightly saves last
		t.Fatal(err)
	}
	if got, _, _, _ := ChangedUsers(ctx, pool, f, p, false); !slices.Equal(got, []uuid.UUID{u}) {
		t.Fatalf("after the older save: %v changed, want %s", got, u)
	}
	cur, err := Recorded(ctx, pool, map[uuid.UUID]*State{u: newer})
	if err != nil || cur[u] {
		t.Fatalf("Recorded after the older save: %v (%v), want not current", cur, err)
	}
}

// A user who deleted every memory is selected, and helix's patterns of
// theirs go (they named memories that no longer exist).
func TestAllMemoriesDeleted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	u := uuid.NewSHA1(uuid.NameSpaceOID, []byte("gone"))
	if _, err := memories.Insert(ctx, pool, synthesis.Synthetic(u, 40, 8, 3)); err != nil {
		t.Fatal(err)
	}
	nightly(t, pool, nil)
	if n := count(t, pool, `SELECT count(*) FROM memory_synthesis WHERE user_id = $1 AND generator = 'helix'`, u); n == 0 {
		t.Fatal("no patterns to begin with")
	}
	if _, err := pool.Exec(ctx, `DELETE FROM memories WHERE user_id = $1`, u); err != nil {
		t.Fatal(err)
	}
	if got := nightly(t, pool, nil); !slices.Equal(got, []uuid.UUID{u}) {
		t.Fatalf("after deleting every memory the run selected %v, want %s", got, u)
	}
	if n := count(t, pool, `SELECT count(*) FROM memory_synthesis WHERE user_id = $1 AND generator = 'helix'`, u); n != 0 {
		t.Errorf("%d helix patterns left for a user without memories", n)
	}
	if got := nightly(t, pool, nil); len(got) != 0 {
		t.Errorf("and again: selected %v, want nobody", got)
	}
}

// Recorded reads only the job's users' states, also when the planner's
// statistics are older than the states (the first night: analyzed empty,
// then filled by the night's jobs; or the first night after the settings
// changed). Before, the settings index looked selective to such a planner,
// which then read every state of the settings to check a job's users: a
// read per job that grew with the users done so far (issue 48). At 100,000
// states (on a few thousand, a sequential scan with a hashed ANY is the
// planner's fair choice, and cheap).
func TestRecordedReadsByUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	p, f := synthesis.DefaultParams(), Filter{}
	// autovacuum would analyze the table under the test, at a moment of its choosing
	if _, err := pool.Exec(ctx, `ALTER TABLE helix_synthesis_state SET (autovacuum_enabled = off); ANALYZE helix_synthesis_state`); err != nil {
		t.Fatal(err)
	}
	const states, job = 100000, 500
	if _, err := pool.Exec(ctx, `INSERT INTO helix_synthesis_state (user_id, settings, memories, seen)
		SELECT md5('u' || g)::uuid, $1, 10, pg_current_snapshot() FROM generate_series(1, $2) g`, Settings(p, f), states); err != nil {
		t.Fatal(err)
	}
	var users []uuid.UUID
	rows, err := pool.Query(ctx, `SELECT md5('u' || g)::uuid FROM generate_series(1, $1) g`, job)
	if err != nil {
		t.Fatal(err)
	}
	if users, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID]); err != nil {
		t.Fatal(err)
	}
	st, err := Snapshots(ctx, pool, users, f, p)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	cur, err := Recorded(ctx, tx, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) != job {
		t.Errorf("%d of the job's %d users current, want all", len(cur), job)
	}
	// this transaction's reads of helix_synthesis_state, by index and by seq scan
	var idx, seq int64
	if err := tx.QueryRow(ctx, `SELECT (SELECT sum(pg_stat_get_xact_tuples_returned(indexrelid))::bigint FROM pg_index WHERE indrelid = 'helix_synthesis_state'::regclass),
		coalesce((SELECT seq_tup_read FROM pg_stat_xact_user_tables WHERE relname = 'helix_synthesis_state'), 0)`).Scan(&idx, &seq); err != nil {
		t.Fatal(err)
	}
	if idx+seq > 2*job {
		t.Errorf("Recorded read %d index entries and %d rows of %d states to check %d users", idx, seq, states, job)
	}
}
