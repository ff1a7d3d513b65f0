package llmsynth

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
)

// Recommendation statuses: helix writes open; an app sets done or dismissed
// (the user's one write through row-level security, migration 00231).
const (
	RecOpen      = "open"
	RecDone      = "done"
	RecDismissed = "dismissed"
)

// Recommendation is one helix_recommendations row.
type Recommendation struct {
	ID              uuid.UUID  `json:"id"`
	UserID          uuid.UUID  `json:"user_id"`
	PatternType     string     `json:"pattern_type"`
	PatternID       *uuid.UUID `json:"pattern_id,omitempty"`
	LineageID       uuid.UUID  `json:"lineage_id"`
	Layer           *string    `json:"layer,omitempty"`
	Text            string     `json:"text"`
	Status          string     `json:"status"`
	StatusChangedAt *time.Time `json:"status_changed_at,omitempty"`
	CreatedAt       time.Time  `json:"created_at"`
}

// Recommendations lists a user's recommendations of status ("": all),
// newest first.
func Recommendations(ctx context.Context, q db.Querier, user uuid.UUID, status string) ([]Recommendation, error) {
	rows, err := q.Query(ctx, `SELECT id, user_id, pattern_type, pattern_id, lineage_id, layer, text, status, status_changed_at, created_at
		FROM helix_recommendations WHERE user_id = $1 AND ($2 = '' OR status = $2)
		ORDER BY created_at DESC, pattern_type, text, id`, user, status)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[Recommendation])
}
