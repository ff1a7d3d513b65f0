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
// (issue 37): a job costs the queue about as much as synthesizing one user
// of 10 memories (fetch, envelope, completion: 114 % of such a user's work
// at one user a job), so a job must carry at least 20 such users for that
// cost to be 5 % of its work. Batches aim at BatchWork: a user weighs its
// memories plus batchUserWeight for its fixed cost (state, transaction,
// write), 100 users of 10 memories, 18 of 100, one user of 2,000 or more
// alone. A job of BatchWork is a second or so of analysis, far from
// `helix worker --job-timeout`.
const (
	BatchWork       = 2000
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
