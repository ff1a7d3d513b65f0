package synthesis

import (
	"context"
	"fmt"
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
}

// User is the one unit of work of synthesis, shared by `helix synthesize`
// (in-process) and the River worker: load one user's memories, analyze them
// and, when w is not nil, replace the user's synthesis.
func User(ctx context.Context, q db.Querier, user uuid.UUID, f Filter, p Params, w *Write) (memories int, patterns []Pattern, err error) {
	ms, err := Load(ctx, q, user, f)
	if err != nil {
		return 0, nil, fmt.Errorf("read memories: %w", err)
	}
	ps, err := Analyze(ctx, ms, p)
	if err != nil {
		return len(ms), nil, err
	}
	if w == nil {
		return len(ms), ps, nil
	}
	err = db.InTx(ctx, q, func(tx pgx.Tx) error {
		if err := Replace(ctx, tx, user, w.RunID, w.Now, ps); err != nil {
			return err
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

// UserLock names the advisory lock one user's synthesis holds: a run for
// user U (desktop, nightly or a worker's job) never overlaps another for U.
func UserLock(user uuid.UUID) string { return "synthesize:" + user.String() }
