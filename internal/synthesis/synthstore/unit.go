package synthstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/synthesis"
)

// Write says where and how a run stores its users' patterns (One, Many).
type Write struct {
	RunID *int64
	Now   time.Time
	// Complete, when set, runs inside the transaction that writes the
	// patterns: a River worker marks its job completed there (JobCompleteTx),
	// so "written" and "done" commit together or not at all.
	Complete func(ctx context.Context, tx pgx.Tx) error
	// LockWait is how long the write waits for the user's lock (UserLock),
	// which another run writing the same user holds.
	LockWait time.Duration
}

// Read is a user's memories read ahead of the analysis (by Stream, for a
// whole --all-users run; by ReadUser for one), with the State taken before
// they were read, or the error reading them gave.
type Read struct {
	Memories []synthesis.Memory
	State    *State
	Err      error
}

// Result is one user's synthesis, ready to be written: its patterns and
// the state they were computed from (nil: none to record).
type Result struct {
	User     uuid.UUID
	Memories int
	Patterns []synthesis.Pattern
	State    *State
}

// ReadUser takes the user's state (Snapshot) and then loads its memories
// (Load), on q: the state is taken before the memories are read, so a
// change landing in between only makes the next --all-users run recompute
// the user once more, never skip a change.
func ReadUser(ctx context.Context, q db.Querier, user uuid.UUID, f Filter, p synthesis.Params) *Read {
	state, err := Snapshot(ctx, q, user, f, p)
	if err != nil {
		return &Read{Err: fmt.Errorf("read memories: %w", err)}
	}
	ms, err := Load(ctx, q, user, f)
	if err != nil {
		return &Read{Err: fmt.Errorf("read memories: %w", err)}
	}
	return &Read{Memories: ms, State: state}
}

// Compute analyses what read holds of user's memories (Analyze). It reads
// and writes nothing: the analysis and the database meet only here and in
// Write.
func Compute(ctx context.Context, user uuid.UUID, read *Read, p synthesis.Params) (Result, error) {
	r := Result{User: user}
	if read.Err != nil {
		return r, read.Err
	}
	r.Memories = len(read.Memories)
	ps, err := synthesis.Analyze(ctx, read.Memories, p)
	if err != nil {
		return r, err
	}
	r.Patterns = ps
	if read.State != nil {
		st := *read.State // a map's, maybe shared by listings of one user
		st.Memories = int64(r.Memories)
		r.State = &st
	}
	return r, nil
}

// One writes r in one transaction that holds the user's lock (waited for
// up to LockWait): it replaces the user's synthesis, records its state and
// runs Complete, all or nothing.
func (w *Write) One(ctx context.Context, q db.Querier, r Result) error {
	err := db.InTx(ctx, q, func(tx pgx.Tx) error {
		if err := db.TryXactLock(ctx, tx, UserLock(r.User), w.LockWait); err != nil {
			return err
		}
		if err := replace(ctx, tx, []Result{r}, w.RunID, w.Now); err != nil {
			return err
		}
		if r.State != nil {
			if err := r.State.Save(ctx, tx, w.RunID); err != nil {
				return fmt.Errorf("record synthesis state: %w", err)
			}
		}
		if w.Complete != nil {
			return w.Complete(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write synthesis: %w", err)
	}
	return nil
}

// Many writes the users of rs (no user twice) in one transaction, as One
// writes one: each user's lock, one DELETE and one COPY of every user's
// patterns, one statement recording every state. A user whose lock another
// run holds is not waited for: it is left out, unwritten, and its index in
// rs returned in held (write it with One, which waits LockWait and names the
// holder). An error means nothing of rs was written (write them with One to
// learn which user fails). Complete is not called.
func (w *Write) Many(ctx context.Context, q db.Querier, rs []Result) (held []int, err error) {
	err = db.InTx(ctx, q, func(tx pgx.Tx) error {
		names := make([]string, len(rs))
		for i, r := range rs {
			names[i] = UserLock(r.User)
		}
		got, err := db.TryXactLocks(ctx, tx, "synthesize", names)
		if err != nil {
			return err
		}
		mine := make([]Result, 0, len(rs))
		var states []*State
		for i, r := range rs {
			if !got[i] {
				held = append(held, i)
				continue
			}
			mine = append(mine, r)
			if r.State != nil {
				states = append(states, r.State)
			}
		}
		if len(mine) == 0 {
			return nil
		}
		if err := replace(ctx, tx, mine, w.RunID, w.Now); err != nil {
			return err
		}
		if len(states) > 0 {
			if err := saveStates(ctx, tx, states, w.RunID); err != nil {
				return fmt.Errorf("record synthesis state: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("write synthesis: %w", err)
	}
	return held, nil
}

// UserLock names the lock one user's synthesis write holds (a transaction
// lock, db.TryXactLock): a run for user U (desktop, nightly or a worker's
// job) never writes U while another does; the loser skips U (exit 5 alone).
func UserLock(user uuid.UUID) string { return "synthesize:" + user.String() }

// StateOf looks states up in a map taken whole before the stream starts.
func StateOf(states map[uuid.UUID]*State) func(context.Context, uuid.UUID) (*State, error) {
	return func(_ context.Context, u uuid.UUID) (*State, error) { return states[u], nil }
}

// StreamWindow is how many users one of Each's queries reads: small enough
// that analysing them fits well inside a statement_timeout, large enough that
// the query's own cost is shared.
const StreamWindow = 256

// Each is the run over many users that `synthesize --all-users` and a
// synthesize_users job share: one query a window of StreamWindow users
// streams their memories (Stream) while n goroutines call fn for each user
// with what was read and the user's state (from state, which must have been taken before the
// stream started: a map's, or SnapshotsAhead's), so reading overlaps
// analysing and writing whatever n is. fn is called once for every user, in
// no set order, unless ctx is cancelled; a user the query failed to deliver,
// or whose state could not be taken, gets a Read with the error. q must not
// be a connection fn writes on: the stream holds it. The memories fn gets
// are its until it returns: their embeddings' array is then read into again.
func Each(ctx context.Context, q db.Querier, users []uuid.UUID, state func(context.Context, uuid.UUID) (*State, error), f Filter, n int, fn func(i int, read *Read)) {
	each(ctx, q, users, state, f, n, StreamWindow, fn)
}

// each is Each with windows of size users.
func each(ctx context.Context, q db.Querier, users []uuid.UUID, state func(context.Context, uuid.UUID) (*State, error), f Filter, n, size int, fn func(i int, read *Read)) {
	if len(users) == 0 {
		return
	}
	type item struct {
		i    int
		read *Read
	}
	items := make(chan item, n)
	bufs := make(buffers, n+1)
	var wg sync.WaitGroup
	for range min(n, len(users)) {
		wg.Go(func() {
			for it := range items {
				fn(it.i, it.read)
				bufs.put(it.read.Memories)
			}
		})
	}
	send := func(it item) bool {
		select {
		case items <- it:
			return true
		case <-ctx.Done():
			return false
		}
	}
	sent := make([]bool, len(users))
	// One query a window of users, not one for the whole run: a query stays
	// open while its users are analysed, and a run over every user would
	// otherwise outlast any statement_timeout.
	for start := 0; start < len(users) && ctx.Err() == nil; start += size {
		window := users[start:min(start+size, len(users))]
		err := stream(ctx, q, window, f, bufs, func(i int, ms []synthesis.Memory, err error) {
			if err == nil && ms == nil {
				ms = []synthesis.Memory{}
			}
			var st *State
			if err == nil {
				if st, err = state(ctx, window[i]); err != nil {
					err = fmt.Errorf("read memories: %w", err)
				}
			}
			sent[start+i] = send(item{i: start + i, read: &Read{Memories: ms, State: st, Err: err}})
		})
		if err != nil && ctx.Err() == nil {
			// the window's users not delivered fail; the next window is a new query
			err = fmt.Errorf("read memories: %w", err)
			for i := range window {
				if !sent[start+i] && !send(item{i: start + i, read: &Read{Err: err}}) {
					break
				}
			}
		}
	}
	close(items)
	wg.Wait()
}
