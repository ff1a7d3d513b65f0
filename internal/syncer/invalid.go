package syncer

import (
	"context"
	"fmt"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/exitcode"
)

// InvalidError is the outcome of a run (runID) that left counts.Invalid
// changes invalid: a partial error naming the first few with their errors,
// nil when there are none. `sync reconcile` and a worker's partition job
// record it alike; the rest of the run is done (exit 3).
func InvalidError(ctx context.Context, q db.Querier, runID int64, counts Counts) error {
	if counts.Invalid == 0 {
		return nil
	}
	rows, err := q.Query(ctx, `SELECT id, coalesce(error, '') FROM sync_changes WHERE run_id = $1 AND outcome = 'invalid' ORDER BY id LIMIT 10`, runID)
	if err != nil {
		return err
	}
	defer rows.Close()
	pe := &exitcode.PartialError{Total: counts.Total()}
	for rows.Next() {
		var id int64
		var msg string
		if err := rows.Scan(&id, &msg); err != nil {
			return err
		}
		pe.Failed = append(pe.Failed, fmt.Sprintf("change %d: %s", id, msg))
	}
	if more := counts.Invalid - len(pe.Failed); more > 0 {
		pe.Failed = append(pe.Failed, fmt.Sprintf("%d more (SELECT * FROM sync_changes WHERE run_id = %d AND outcome = 'invalid')", more, runID))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return pe
}
