package synthstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/synthesis"
)

// Settings is the key of what a synthesis depends on besides the memories:
// the analysis parameters, the per-user limit and Version. Since is not in
// it: a state records the window it read, and a later window differs only
// by the memories between the two (see ChangedUsers).
func Settings(p synthesis.Params, f Filter) string {
	b, _ := json.Marshal(struct {
		V     int              `json:"v"`
		P     synthesis.Params `json:"p"`
		Limit int              `json:"limit,omitempty"`
	}{synthesis.Version, p, f.Limit})
	return string(b)
}

// snapshot is the snapshot of transactions now: a read that starts after
// it is taken sees every write of a transaction visible in it, and a write
// it may miss is of a transaction not visible in it, whose marker in
// helix_memory_changes (the triggers of migration 00170) says so. It is
// server-wide, not the session's: taken on one connection, it holds for a
// read on any other, through any pooler.
const snapshot = `pg_current_snapshot()::text`

// unseen is true for a change marker c of a transaction the state s did not see.
const unseen = `(s.seen IS NULL OR NOT pg_visible_in_snapshot(c.xid, s.seen))`

// ChangedUsers lists, in id order, the users whose memories changed
// (inserted, deleted, or id, user, content, embedding, valence or created_at
// edited) since their last recorded synthesis, or whose settings or window
// changed, and counts the users with a recorded synthesis it left out as
// unchanged. It reads the change markers and recorded states, never a
// memory, except to check, for users whose --since window moved, whether
// any memory lies between the two windows (an index probe per such user).
// states holds the changed users' states, taken now: before their memories
// are read. With full it lists every user with memories, like Users, and
// states is nil.
func ChangedUsers(ctx context.Context, q db.Querier, f Filter, p synthesis.Params, full bool) (users []uuid.UUID, unchanged int, states map[uuid.UUID]*State, err error) {
	if full {
		users, err = Users(ctx, q, f)
		return users, 0, nil, err
	}
	settings := Settings(p, f)
	// Each branch is an index scan of what differs: the markers not yet
	// covered by their user's snapshot (a synthesis deletes those it covers,
	// so the table holds little else), the states of other settings (two ranges
	// of helix_synthesis_state_settings_idx), and the states of another
	// window (ranges of the same index).
	window := `since IS NOT NULL`
	if !f.Since.IsZero() {
		window = `(since IS NULL OR since < $2 OR since > $2)`
	}
	rows, err := q.Query(ctx, `WITH changed AS (
			SELECT c.user_id, s.user_id IS NOT NULL AS recorded FROM helix_memory_changes c
			LEFT JOIN helix_synthesis_state s ON s.user_id = c.user_id
			WHERE `+unseen+`
			UNION
			SELECT user_id, true FROM helix_synthesis_state WHERE settings < $1 OR settings > $1
			UNION
			SELECT s.user_id, true FROM helix_synthesis_state s WHERE s.settings = $1 AND `+window+` AND (
				s.since IS NULL OR $2::timestamptz IS NULL OR EXISTS (
					SELECT 1 FROM memories m WHERE m.user_id = s.user_id
					AND m.created_at >= least(s.since, $2) AND m.created_at < greatest(s.since, $2))))
		SELECT user_id, bool_or(recorded), `+snapshot+`, (SELECT count(*) FROM helix_synthesis_state)
		FROM changed GROUP BY user_id ORDER BY user_id`, settings, since(f))
	if err != nil {
		return nil, 0, nil, err
	}
	users, states = []uuid.UUID{}, map[uuid.UUID]*State{}
	var (
		u          uuid.UUID
		recorded   bool
		seen       string
		n, withRec int64
	)
	_, err = pgx.ForEachRow(rows, []any{&u, &recorded, &seen, &n}, func() error {
		users = append(users, u)
		states[u] = &State{User: u, Settings: settings, seen: seen, since: since(f)}
		if recorded {
			withRec++
		}
		return nil
	})
	if err != nil {
		return nil, 0, nil, err
	}
	if len(users) == 0 {
		// no row carried the count
		if err := q.QueryRow(ctx, `SELECT count(*) FROM helix_synthesis_state`).Scan(&n); err != nil {
			return nil, 0, nil, err
		}
	}
	return users, int(n - withRec), states, nil
}

// State is what a user's synthesis was computed from: the settings, the
// --since window, and the snapshot of transactions taken before the
// memories were read. Memories is how many were read, filled in by User.
type State struct {
	User     uuid.UUID
	Settings string
	Memories int64
	seen     string     // pg_snapshot, as text
	since    *time.Time // nil: all memories
}

// Snapshot takes the user's state now: the snapshot before the memories
// are read. Take it before Load and Save it after Replace: a change that lands
// in between then only makes the next run recompute the user once more,
// never skip a change. It reads no memory.
func Snapshot(ctx context.Context, q db.Querier, user uuid.UUID, f Filter, p synthesis.Params) (*State, error) {
	s := &State{User: user, Settings: Settings(p, f), since: since(f)}
	return s, q.QueryRow(ctx, `SELECT `+snapshot).Scan(&s.seen)
}

// Snapshots is Snapshot for many users, from one snapshot: one query,
// whatever the number of users.
func Snapshots(ctx context.Context, q db.Querier, users []uuid.UUID, f Filter, p synthesis.Params) (map[uuid.UUID]*State, error) {
	var seen string
	if err := q.QueryRow(ctx, `SELECT `+snapshot).Scan(&seen); err != nil {
		return nil, err
	}
	settings := Settings(p, f)
	out := make(map[uuid.UUID]*State, len(users))
	for _, u := range users {
		out[u] = &State{User: u, Settings: settings, seen: seen, since: since(f)}
	}
	return out, nil
}

// Save records that the user's synthesis matches this state, and deletes
// the user's change markers its snapshot covers: what the synthesis read. A
// state whose snapshot does not see all that the recorded one saw (a run
// that read before another that saved first: that save deleted markers of
// changes this one's read may have missed) leaves a marker the state does
// not cover, so the next run recomputes the user. (A later snapshot sees
// all an earlier one saw: its xmax is no lower, and a transaction it finds
// still running below the earlier xmax was running at the earlier one too.)
func (s *State) Save(ctx context.Context, q db.Querier, runID *int64) error {
	if s == nil {
		return errors.New("no synthesis state to save")
	}
	return saveStates(ctx, q, []*State{s}, runID)
}

// saveStates is Save for many users' states in one statement (no user twice).
func saveStates(ctx context.Context, q db.Querier, states []*State, runID *int64) error {
	n := len(states)
	users, settings, memories, seen, since := make([]uuid.UUID, n), make([]string, n), make([]int64, n), make([]string, n), make([]*time.Time, n)
	for i, s := range states {
		users[i], settings[i], memories[i], seen[i], since[i] = s.User, s.Settings, s.Memories, s.seen, s.since
	}
	// was reads the recorded rows as they were before this statement (the
	// statement's snapshot), whenever PostgreSQL runs the CTE; a concurrent
	// save of the same user is held off by the user's lock (UserLock).
	_, err := q.Exec(ctx, `WITH s AS (
			SELECT user_id, settings, memories, seen::pg_snapshot AS seen, since
			FROM unnest($1::uuid[], $2::text[], $3::int8[], $4::text[], $5::timestamptz[]) AS s(user_id, settings, memories, seen, since)),
		was AS (
			SELECT s.user_id, s.seen, h.seen AS prev FROM helix_synthesis_state h JOIN s ON s.user_id = h.user_id),
		redo AS (
			INSERT INTO helix_memory_changes (user_id, xid)
			SELECT user_id, pg_snapshot_xmax(seen) FROM was
			WHERE NOT (pg_snapshot_xmax(seen) >= pg_snapshot_xmax(prev) AND NOT EXISTS (
				SELECT 1 FROM pg_snapshot_xip(seen) x WHERE pg_visible_in_snapshot(x, prev)))
			ON CONFLICT DO NOTHING),
		covered AS (
			DELETE FROM helix_memory_changes c USING s WHERE c.user_id = s.user_id AND pg_visible_in_snapshot(c.xid, s.seen))
		INSERT INTO helix_synthesis_state (user_id, settings, memories, seen, since, job_run_id, synthesized_at)
		SELECT user_id, settings, memories, seen, since, $6, now() FROM s
		ON CONFLICT (user_id) DO UPDATE SET settings = excluded.settings, memories = excluded.memories, digest = NULL,
			seen = excluded.seen, since = excluded.since, job_run_id = excluded.job_run_id, synthesized_at = excluded.synthesized_at`,
		users, settings, memories, seen, since, runID)
	return err
}

// Recorded reports which of states' users have a recorded synthesis that is
// current: same settings, no change marker its snapshot did not see, and the
// same window or no memory between the two. A batch of users that is worked
// again (a retried job) skips them. It reads no memory but, for a user whose
// window moved, an index probe between the two windows.
func Recorded(ctx context.Context, q db.Querier, states map[uuid.UUID]*State) (map[uuid.UUID]bool, error) {
	type key struct {
		settings string
		since    time.Time
	}
	groups := map[key][]uuid.UUID{}
	for u, s := range states {
		k := key{settings: s.Settings}
		if s.since != nil {
			k.since = *s.since
		}
		groups[k] = append(groups[k], u)
	}
	out := map[uuid.UUID]bool{}
	for k, users := range groups {
		// The users' states are read by primary key first (MATERIALIZED):
		// given the settings in the same WHERE, a planner whose statistics
		// are older than the night's writes (the first night, or the first
		// after the settings changed: the new settings look rare) scans
		// every state of these settings through helix_synthesis_state_settings_idx
		// and filters the job's users out of them, a read that grows with
		// the users done so far: 1.5 s a job of 500 at 100,000 states.
		rows, err := q.Query(ctx, `WITH s AS MATERIALIZED (
				SELECT user_id, settings, seen, since FROM helix_synthesis_state WHERE user_id = ANY($1))
			SELECT s.user_id FROM s
			WHERE s.settings = $2 AND s.seen IS NOT NULL
			AND NOT EXISTS (SELECT 1 FROM helix_memory_changes c WHERE c.user_id = s.user_id AND `+unseen+`)
			AND (s.since IS NOT DISTINCT FROM $3 OR s.since IS NOT NULL AND $3::timestamptz IS NOT NULL AND NOT EXISTS (
				SELECT 1 FROM memories m WHERE m.user_id = s.user_id
				AND m.created_at >= least(s.since, $3) AND m.created_at < greatest(s.since, $3)))`,
			users, k.settings, since(Filter{Since: k.since}))
		if err != nil {
			return nil, err
		}
		var u uuid.UUID
		if _, err := pgx.ForEachRow(rows, []any{&u}, func() error { out[u] = true; return nil }); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Ahead is the users' states for a run that reads their memories in one
// stream (Each): SnapshotsAhead takes them before the stream starts. (Before
// change markers, a state was a digest of every memory, computed on a
// connection of its own beside the stream; now it is one snapshot, so Ahead
// only keeps the callers' shape.)
type Ahead struct {
	states map[uuid.UUID]*State
}

// SnapshotsAhead takes the states of users as Snapshots does. Call it
// before the stream starts, so that every state is taken before its user's
// memories are read, as Snapshot requires; call Wait when done with it.
func SnapshotsAhead(ctx context.Context, pool *pgxpool.Pool, users []uuid.UUID, f Filter, p synthesis.Params) (*Ahead, error) {
	states, err := Snapshots(ctx, pool, users, f, p)
	if err != nil {
		return nil, err
	}
	return &Ahead{states: states}, nil
}

// State returns user's state.
func (a *Ahead) State(_ context.Context, user uuid.UUID) (*State, error) {
	if s := a.states[user]; s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("no state taken for user %s", user)
}

// Wait returns at once: nothing runs in the background.
func (a *Ahead) Wait() {}
