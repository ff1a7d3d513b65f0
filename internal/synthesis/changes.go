package synthesis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
)

// Version names the analysis: bump it when a change to Analyze changes its
// output for the same memories, so that every user is recomputed once.
const Version = 2 // 2: the auto algorithm (issue 33), the LSA spectrum knee in evidence.space

// rowHash is a 64-bit hash of what Load reads of a memory. embedding::real[]
// also works for a pgvector column.
const rowHash = `hash_record_extended(ROW(m.id, m.content, m.embedding::real[], m.emotional_valence, m.created_at), 0)`

// Settings is the key of what a synthesis depends on besides the memories:
// the analysis parameters, the per-user limit and Version. Since is not in
// it: the digest covers exactly the memories since Since, and Analyze does
// not depend on the clock.
func Settings(p Params, f Filter) string {
	b, _ := json.Marshal(struct {
		V     int    `json:"v"`
		P     Params `json:"p"`
		Limit int    `json:"limit,omitempty"`
	}{Version, p, f.Limit})
	return string(b)
}

// ChangedUsers lists, in id order, the users with memories matching f whose
// memories (inserted, deleted, or content, embedding, valence or created_at
// edited) or settings changed since their last recorded synthesis, and counts
// the users it left out as unchanged. One scan of memories computes every
// user's digest, and states holds the changed users' states from it (what
// Snapshots would take, taken now: before their memories are read). With
// full it lists every user, like Users, and states is nil.
func ChangedUsers(ctx context.Context, q db.Querier, f Filter, p Params, full bool) (users []uuid.UUID, unchanged int, states map[uuid.UUID]*State, err error) {
	if full {
		users, err = Users(ctx, q, f)
		return users, 0, nil, err
	}
	settings := Settings(p, f)
	rows, err := q.Query(ctx, `SELECT d.user_id, d.n, d.digest::text,
		       s.user_id IS NOT NULL AND s.settings = $2 AND s.memories = d.n AND s.digest = d.digest
		FROM (SELECT m.user_id, count(*) AS n, sum(`+rowHash+`) AS digest FROM memories m
		      WHERE $1::timestamptz IS NULL OR m.created_at >= $1 GROUP BY m.user_id) d
		LEFT JOIN helix_synthesis_state s ON s.user_id = d.user_id
		ORDER BY d.user_id`, since(f), settings)
	if err != nil {
		return nil, 0, nil, err
	}
	users, states = []uuid.UUID{}, map[uuid.UUID]*State{}
	var u uuid.UUID
	var n int64
	var digest string
	var same bool
	_, err = pgx.ForEachRow(rows, []any{&u, &n, &digest, &same}, func() error {
		if same {
			unchanged++
		} else {
			users = append(users, u)
			states[u] = &State{User: u, Settings: settings, Memories: n, digest: digest}
		}
		return nil
	})
	return users, unchanged, states, err
}

// State is the digest of one user's memories at one moment.
type State struct {
	User     uuid.UUID
	Settings string
	Memories int64
	digest   string
}

// Snapshot computes the user's digest now. Take it before Load and Save it
// after Replace: a change that lands in between then only makes the next run
// recompute the user once more, never skip a change.
func Snapshot(ctx context.Context, q db.Querier, user uuid.UUID, f Filter, p Params) (*State, error) {
	s := &State{User: user, Settings: Settings(p, f)}
	err := q.QueryRow(ctx, `SELECT count(*), coalesce(sum(`+rowHash+`), 0)::text FROM memories m
		WHERE m.user_id = $1 AND ($2::timestamptz IS NULL OR m.created_at >= $2)`, user, since(f)).Scan(&s.Memories, &s.digest)
	return s, err
}

// Snapshots is Snapshot for many users in one grouped scan, for a run that
// reads their memories afterwards in one stream (Stream). A user with no
// matching memories gets a state of zero memories.
func Snapshots(ctx context.Context, q db.Querier, users []uuid.UUID, f Filter, p Params) (map[uuid.UUID]*State, error) {
	settings := Settings(p, f)
	out := make(map[uuid.UUID]*State, len(users))
	for _, u := range users {
		out[u] = &State{User: u, Settings: settings, digest: "0"}
	}
	rows, err := q.Query(ctx, `SELECT m.user_id, count(*), coalesce(sum(`+rowHash+`), 0)::text FROM memories m
		WHERE m.user_id = ANY($1) AND ($2::timestamptz IS NULL OR m.created_at >= $2) GROUP BY m.user_id`, users, since(f))
	if err != nil {
		return nil, err
	}
	var u uuid.UUID
	var n int64
	var digest string
	_, err = pgx.ForEachRow(rows, []any{&u, &n, &digest}, func() error {
		if s := out[u]; s != nil {
			s.Memories, s.digest = n, digest
		}
		return nil
	})
	return out, err
}

// Save records that the user's synthesis matches this state.
func (s *State) Save(ctx context.Context, q db.Querier, runID *int64) error {
	if s == nil {
		return errors.New("no synthesis state to save")
	}
	_, err := q.Exec(ctx, `INSERT INTO helix_synthesis_state (user_id, settings, memories, digest, job_run_id, synthesized_at)
		VALUES ($1, $2, $3, $4::numeric, $5, now())
		ON CONFLICT (user_id) DO UPDATE SET settings = $2, memories = $3, digest = $4::numeric, job_run_id = $5, synthesized_at = now()`,
		s.User, s.Settings, s.Memories, s.digest, runID)
	return err
}

// Recorded reports which of states match the state recorded at their user's
// last synthesis: those users' synthesis is current. A batch of users that is
// worked again (a retried job) skips them.
func Recorded(ctx context.Context, q db.Querier, states map[uuid.UUID]*State) (map[uuid.UUID]bool, error) {
	users := make([]uuid.UUID, 0, len(states))
	for u := range states {
		users = append(users, u)
	}
	rows, err := q.Query(ctx, `SELECT user_id, settings, memories, digest::text FROM helix_synthesis_state WHERE user_id = ANY($1)`, users)
	if err != nil {
		return nil, err
	}
	out := map[uuid.UUID]bool{}
	var rec State
	_, err = pgx.ForEachRow(rows, []any{&rec.User, &rec.Settings, &rec.Memories, &rec.digest}, func() error {
		if s := states[rec.User]; s != nil && s.Settings == rec.Settings && s.Memories == rec.Memories && s.digest == rec.digest {
			out[rec.User] = true
		}
		return nil
	})
	return out, err
}

// Ahead is the users' states computed on a connection of their own while
// their memories stream on another: the digest scan reads every row a second
// time and, run before the stream, made a 1,000-user run wait for it (1.8 s
// of 9.5 here) with a core idle.
type Ahead struct {
	chunk  map[uuid.UUID]int // user -> index of the chunk that computes it
	ready  []chan struct{}   // closed when that chunk is done
	mu     sync.Mutex
	states map[uuid.UUID]*State
	err    error
	done   chan struct{}
}

// aheadChunk is how many users one digest query covers; the first is
// smaller, since the stream waits for it.
const aheadChunk = 100

// aheadPause, set by a test, runs before each chunk after the first.
var aheadPause func(chunk int)

// SnapshotsAhead takes the states of users as Snapshots does, in one
// REPEATABLE READ transaction on a connection of pool's, chunk by chunk in
// the order Stream reads users. It returns once the first chunk is done: the
// transaction's snapshot is then taken, so a Stream started after it reads
// the same or later data, and every state is taken before its user's
// memories are read, as Snapshot requires. The other chunks follow in the
// background; State waits for a user's. Call Wait when done with it.
func SnapshotsAhead(ctx context.Context, pool *pgxpool.Pool, users []uuid.UUID, f Filter, p Params) (*Ahead, error) {
	ids := slices.Clone(users)
	slices.SortFunc(ids, compareUUID)
	ids = slices.Compact(ids)
	var chunks [][]uuid.UUID
	for lo, size := 0, aheadChunk/4; lo < len(ids); lo, size = lo+size, aheadChunk {
		chunks = append(chunks, ids[lo:min(lo+size, len(ids))])
	}
	a := &Ahead{chunk: make(map[uuid.UUID]int, len(ids)), ready: make([]chan struct{}, len(chunks)),
		states: make(map[uuid.UUID]*State, len(ids)), done: make(chan struct{})}
	for k, c := range chunks {
		a.ready[k] = make(chan struct{})
		for _, u := range c {
			a.chunk[u] = k
		}
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		conn.Release()
		return nil, err
	}
	run := func(k int) error {
		if a.err == nil {
			st, err := Snapshots(ctx, tx, chunks[k], f, p)
			a.mu.Lock()
			if a.err = err; err == nil {
				maps.Copy(a.states, st)
			}
			a.mu.Unlock()
		}
		close(a.ready[k])
		return a.err
	}
	finish := func() {
		_ = tx.Rollback(context.WithoutCancel(ctx)) // read only: nothing to keep
		conn.Release()
		close(a.done)
	}
	if len(chunks) == 0 {
		finish()
		return a, nil
	}
	if err := run(0); err != nil {
		finish()
		return nil, err
	}
	go func() {
		defer finish()
		for k := 1; k < len(chunks); k++ {
			if aheadPause != nil {
				aheadPause(k)
			}
			_ = run(k) // an error is every later user's: State reports it
		}
	}()
	return a, nil
}

// State waits for user's state and returns it, or the error that kept it
// from being taken.
func (a *Ahead) State(ctx context.Context, user uuid.UUID) (*State, error) {
	k, ok := a.chunk[user]
	if !ok {
		return nil, fmt.Errorf("no state taken for user %s", user)
	}
	select {
	case <-a.ready[k]:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.states[user]; s != nil {
		return s, nil
	}
	return nil, a.err
}

// Wait returns once the background queries are over and the connection is back in the pool.
func (a *Ahead) Wait() { <-a.done }
