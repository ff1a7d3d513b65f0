package synthesis

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
)

// Write says where and how User stores its patterns.
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

// Read is a user's memories read ahead of User (by Stream, for a whole
// --all-users run), with the State taken before they were read, or the error
// reading them gave.
type Read struct {
	Memories []Memory
	State    *State
	Err      error
}

// User is the one unit of work of synthesis, shared by `helix synthesize`
// (in-process, one user or a stream of them) and the River worker: take the
// user's state (Snapshot) and load the memories, unless read says they were
// read already; analyze them; and, when w is not nil, replace the user's
// synthesis and record the state in one transaction. The state is taken
// before the memories are read, so a change landing in between only makes
// the next --all-users run recompute the user once more, never skip a change.
func User(ctx context.Context, q db.Querier, user uuid.UUID, f Filter, p Params, w *Write, read *Read) (memories int, patterns []Pattern, err error) {
	var ms []Memory
	var state *State
	if read != nil {
		if read.Err != nil {
			return 0, nil, read.Err
		}
		ms, state = read.Memories, read.State
	} else {
		if state, err = Snapshot(ctx, q, user, f, p); err != nil {
			return 0, nil, fmt.Errorf("read memories: %w", err)
		}
		if ms, err = Load(ctx, q, user, f); err != nil {
			return 0, nil, fmt.Errorf("read memories: %w", err)
		}
	}
	ps, err := Analyze(ctx, ms, p)
	if err != nil {
		return len(ms), nil, err
	}
	if w == nil {
		return len(ms), ps, nil
	}
	err = db.InTx(ctx, q, func(tx pgx.Tx) error {
		if err := db.TryXactLock(ctx, tx, UserLock(user), w.LockWait); err != nil {
			return err
		}
		if err := Replace(ctx, tx, user, w.RunID, w.Now, ps); err != nil {
			return err
		}
		if state != nil {
			st := *state // a map's, maybe shared by listings of one user
			st.Memories = int64(len(ms))
			if err := st.Save(ctx, tx, w.RunID); err != nil {
				return fmt.Errorf("record synthesis state: %w", err)
			}
		}
		if w.Complete != nil {
			return w.Complete(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return len(ms), ps, fmt.Errorf("write synthesis: %w", err)
	}
	return len(ms), ps, nil
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
// be a connection fn writes on: the stream holds it.
func Each(ctx context.Context, q db.Querier, users []uuid.UUID, state func(context.Context, uuid.UUID) (*State, error), f Filter, n int, fn func(i int, read *Read)) {
	if len(users) == 0 {
		return
	}
	type item struct {
		i    int
		read *Read
	}
	items := make(chan item, n)
	var wg sync.WaitGroup
	for range min(n, len(users)) {
		wg.Go(func() {
			for it := range items {
				fn(it.i, it.read)
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
	for start := 0; start < len(users) && ctx.Err() == nil; start += StreamWindow {
		window := users[start:min(start+StreamWindow, len(users))]
		err := Stream(ctx, q, window, f, func(i int, ms []Memory, err error) {
			if err == nil && ms == nil {
				ms = []Memory{}
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
