package queue

import (
	"context"
	"slices"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/synthesis/synthstore"
)

// How `synthesize --all-users --enqueue` sizes its batches by default
// (issue 37): a job costs the queue a fixed amount of helix CPU (fetch,
// envelope, completion: ~2.7 ms a job measured with scripts/bench/worker.sh
// at 10,000 users × 10 memories), and a user of 10 memories costs ~0.19 ms
// of work since the analysis became cheap (i37an), ~0.01 ms a unit of
// weight. For the queue's cost to stay under 5 % of a job's work, a job must
// carry ~5,700 units or more: batches aim at BatchWork. A user weighs its
// memories plus batchUserWeight for its fixed cost (state, transaction,
// write): 500 users of 10 memories, 90 of 100, one user of 10,000 or more
// alone. A job of BatchWork is well under a second of analysis, far from
// `helix worker --job-timeout`.
const (
	BatchWork       = 10000
	batchUserWeight = 10
	// MaxUsersPerJob bounds a batch of users with no memories in the window.
	MaxUsersPerJob = 1000
)

// SynthesizeBatches splits users (in their order) into the user lists of
// synthesize_users jobs: perJob users each, or, with perJob 0, batches of
// about BatchWork by the users' memories matching f (one grouped count over
// the users' rows). The same users and memories give the same batches, so
// enqueuing again while they are pending queues nothing twice.
func SynthesizeBatches(ctx context.Context, q db.Querier, users []uuid.UUID, f synthstore.Filter, perJob int) ([][]uuid.UUID, error) {
	if perJob > 0 {
		return slices.Collect(slices.Chunk(users, perJob)), nil
	}
	var since any
	if !f.Since.IsZero() {
		since = f.Since
	}
	rows, err := q.Query(ctx, `SELECT user_id, count(*) FROM memories
		WHERE user_id = ANY($1) AND ($2::timestamptz IS NULL OR created_at >= $2) GROUP BY user_id`, users, since)
	if err != nil {
		return nil, err
	}
	n := make(map[uuid.UUID]int, len(users))
	var u uuid.UUID
	var c int
	if _, err := pgx.ForEachRow(rows, []any{&u, &c}, func() error { n[u] = c; return nil }); err != nil {
		return nil, err
	}
	var out [][]uuid.UUID
	var cur []uuid.UUID
	work := 0
	for _, u := range users {
		m := n[u]
		if f.Limit > 0 {
			m = min(m, f.Limit)
		}
		cur = append(cur, u)
		work += m + batchUserWeight
		if work >= BatchWork || len(cur) == MaxUsersPerJob {
			out, cur, work = append(out, cur), nil, 0
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out, nil
}
