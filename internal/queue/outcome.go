package queue

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
)

// RunOutcome is the last run a worked River job recorded in job_runs.
type RunOutcome struct {
	RunID    int64   `json:"run_id"`
	Status   string  `json:"status"`    // ok, partial, failed, interrupted, skipped, running
	ExitCode *int    `json:"exit_code"` // the failure's class (Deps.ExitCode); null if it did not fail
	Error    *string `json:"error"`
}

// RunOutcomes reads the last run of each of the River jobs ids (a job
// retried has one run per attempt); a job that recorded none is absent.
func RunOutcomes(ctx context.Context, q db.Querier, ids []int64) (map[int64]RunOutcome, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT ON ((params->>'river_job_id')::bigint)
			(params->>'river_job_id')::bigint, id, status, exit_code, error
		FROM job_runs
		WHERE params ? 'river_job_id' AND (params->>'river_job_id')::bigint = ANY($1)
		ORDER BY (params->>'river_job_id')::bigint, id DESC`, ids)
	if err != nil {
		return nil, err
	}
	out := map[int64]RunOutcome{}
	var job int64
	var o RunOutcome
	_, err = pgx.ForEachRow(rows, []any{&job, &o.RunID, &o.Status, &o.ExitCode, &o.Error}, func() error {
		out[job] = o
		return nil
	})
	return out, err
}
