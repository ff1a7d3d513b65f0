// Package patterns reads a user's patterns for the apps and the desktop:
// the statistical ones helix synthesizes (memory_synthesis) and the ones an
// LLM found (memory_patterns), through one query.
package patterns

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/lineage"
)

// Sources of a pattern.
const (
	Statistical = "statistical" // memory_synthesis
	LLM         = "llm"         // memory_patterns
)

// Pattern is one pattern of a user, from either table.
type Pattern struct {
	ID     uuid.UUID `json:"id"`
	UserID uuid.UUID `json:"user_id"`
	Source string    `json:"source"` // statistical or llm
	Type   *string   `json:"type"`
	// Content is the statistical pattern's text, or the LLM pattern's JSON.
	Content    json.RawMessage `json:"content"`
	Confidence *float64        `json:"confidence"`
	// EvidenceIDs are the memories the pattern rests on.
	EvidenceIDs []string `json:"evidence_ids"`
	// Algorithm found it: the clustering (kmeans, dbscan, hdbscan) or the
	// test of a statistical pattern, the model of an LLM one; null for a
	// row another writer inserted without saying.
	Algorithm *string `json:"algorithm"`
	Generator *string `json:"generator"` // helix, or null: the platform's own rows
	RunID     *int64  `json:"run_id"`    // the job_runs row that wrote it
	// CreatedAt is when the row was written: helix rewrites a user's
	// patterns on each synthesis, so it is also when it was last confirmed.
	CreatedAt time.Time `json:"created_at"`
	// Lineage is the pattern's life over the runs (issue 45): the same id
	// while the pattern persists from run to run; null for a row no helix
	// run has followed (the platform's own, or one written before lineages).
	Lineage *Lineage `json:"lineage"`
}

// Lineage is a pattern's place in its lineage.
type Lineage struct {
	ID          uuid.UUID `json:"id"`
	Status      string    `json:"status"` // new, persisting, growing, shrinking
	FirstSeenAt time.Time `json:"first_seen_at"`
	LastSeenAt  time.Time `json:"last_seen_at"`
	RunsSeen    int       `json:"runs_seen"`
}

// Filter selects a user's patterns. The user is required: another user's
// pattern is never returned (it is indistinguishable from a missing one).
type Filter struct {
	UserID uuid.UUID
	Type   string     // "": every type
	Since  time.Time  // zero: any time
	ID     *uuid.UUID // one pattern
	Limit  int        // 0: no limit
}

// ErrNotFound is a pattern id that is not the user's.
var ErrNotFound = errors.New("no such pattern")

// List returns the user's patterns of both sources, newest first. It is the
// one reader of both tables: a column added to patterns (their lineage)
// belongs here.
func List(ctx context.Context, q db.Querier, f Filter) ([]Pattern, error) {
	var since any
	if !f.Since.IsZero() {
		since = f.Since
	}
	var limit any
	if f.Limit > 0 {
		limit = f.Limit
	}
	rows, err := q.Query(ctx, `SELECT * FROM (
		SELECT id, user_id, 'statistical' AS source, pattern_type, to_jsonb(synthesis_content) AS content,
			confidence_score::float8 AS confidence, coalesce(memory_ids::text[], '{}') AS evidence_ids,
			coalesce(evidence->>'algorithm', evidence->>'test') AS algorithm, generator, job_run_id, created_at::timestamptz AS created_at
		FROM memory_synthesis
		WHERE user_id = $1 AND ($2 = '' OR pattern_type = $2) AND ($3::timestamptz IS NULL OR created_at >= $3)
			AND ($4::uuid IS NULL OR id = $4)
		UNION ALL
		SELECT id, user_id, 'llm', pattern_type, content, confidence::float8, coalesce(evidence, '{}'),
			model, generator, job_run_id, created_at::timestamptz
		FROM memory_patterns
		WHERE user_id = $1 AND ($2 = '' OR pattern_type = $2) AND ($3::timestamptz IS NULL OR created_at >= $3)
			AND ($4::uuid IS NULL OR id = $4)
	) p ORDER BY created_at DESC, id LIMIT $5`, f.UserID, f.Type, since, f.ID, limit)
	if err != nil {
		return nil, err
	}
	out := []Pattern{}
	var p Pattern
	_, err = pgx.ForEachRow(rows, []any{&p.ID, &p.UserID, &p.Source, &p.Type, &p.Content, &p.Confidence, &p.EvidenceIDs,
		&p.Algorithm, &p.Generator, &p.RunID, &p.CreatedAt}, func() error {
		p.CreatedAt = p.CreatedAt.UTC()
		if p.Content == nil {
			p.Content = json.RawMessage("null")
		}
		out = append(out, p)
		p = Pattern{}
		return nil
	})
	if err != nil || len(out) == 0 {
		return out, err
	}
	ids := make([]uuid.UUID, len(out))
	for i, p := range out {
		ids[i] = p.ID
	}
	ls, err := lineage.OfPatterns(ctx, q, f.UserID, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if l, ok := ls[out[i].ID]; ok {
			out[i].Lineage = &Lineage{ID: l.ID, Status: l.Status, FirstSeenAt: l.FirstSeenAt.UTC(), LastSeenAt: l.LastSeenAt.UTC(), RunsSeen: l.RunsSeen}
		}
	}
	return out, nil
}

// Get returns the user's pattern id, or ErrNotFound.
func Get(ctx context.Context, q db.Querier, user, id uuid.UUID) (Pattern, error) {
	ps, err := List(ctx, q, Filter{UserID: user, ID: &id, Limit: 1})
	if err != nil {
		return Pattern{}, err
	}
	if len(ps) == 0 {
		return Pattern{}, ErrNotFound
	}
	return ps[0], nil
}
