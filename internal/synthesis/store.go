package synthesis

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
)

// Filter selects the memories a run reads.
type Filter struct {
	Since time.Time // zero: all
	Limit int       // most recent N per user; 0: all
}

// Users lists the users who have memories matching f, in id order.
func Users(ctx context.Context, q db.Querier, f Filter) ([]uuid.UUID, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT user_id FROM memories
		WHERE ($1::timestamptz IS NULL OR created_at >= $1) ORDER BY user_id`, since(f))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
}

func since(f Filter) *time.Time {
	if f.Since.IsZero() {
		return nil
	}
	return &f.Since
}

// Load reads one user's memories matching f, oldest first. Embeddings are
// read as real[] so that a pgvector column works as well, and land in one
// contiguous array (sized by a count first) that Analyze can cluster in
// place: at 50,000 × 1,536 a second copy would cost 300 MB.
func Load(ctx context.Context, q db.Querier, user uuid.UUID, f Filter) ([]Memory, error) {
	var limit *int
	if f.Limit > 0 {
		limit = &f.Limit
	}
	var n int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM memories WHERE user_id = $1 AND embedding IS NOT NULL
		AND ($2::timestamptz IS NULL OR created_at >= $2)`, user, since(f)).Scan(&n); err != nil {
		return nil, err
	}
	if limit != nil {
		n = min(n, *limit)
	}
	// The platform's content and valence are nullable: a memory without text
	// still counts in time patterns and clusters by its embedding.
	rows, err := q.Query(ctx, `SELECT id, coalesce(content, ''), embedding::real[], emotional_valence::float8, created_at FROM (
			SELECT * FROM memories WHERE user_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2)
			ORDER BY created_at DESC, id DESC LIMIT $3) m
		ORDER BY created_at, id`, user, since(f), limit)
	if err != nil {
		return nil, err
	}
	var arena, emb []float32
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Memory, error) {
		var m Memory
		if err := r.Scan(&m.ID, &m.Content, &emb, &m.Valence, &m.CreatedAt); err != nil {
			return m, err
		}
		d := len(emb)
		switch {
		case d == 0:
		case arena == nil || len(arena)+d <= cap(arena) && len(arena)%d == 0:
			if arena == nil {
				arena = make([]float32, 0, max(n, 1)*d)
			}
			arena = append(arena, emb...)
			// The capacity runs to the arena's end so that Analyze can see
			// that rows are adjacent; never append to an embedding.
			m.Embedding = arena[len(arena)-d:]
		default: // another dimension, or more rows than counted
			m.Embedding = append([]float32(nil), emb...)
		}
		return m, nil
	})
}

// Generator marks the memory_synthesis rows helix writes. Other writers (the
// platform's own LLM synthesis) insert rows there too; helix replaces only its own.
const Generator = "helix"

// Replace swaps the user's previous helix synthesis for patterns in one
// transaction: a failure or cancellation at any point leaves the previous rows,
// and rows another writer inserted are never touched.
func Replace(ctx context.Context, q db.Querier, user uuid.UUID, runID *int64, now time.Time, patterns []Pattern) error {
	return db.InTx(ctx, q, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM memory_synthesis WHERE user_id = $1 AND generator = $2`, user, Generator); err != nil {
			return err
		}
		i := 0
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"memory_synthesis"},
			[]string{"user_id", "pattern_type", "memory_ids", "synthesis_content", "confidence_score", "created_at", "fingerprint", "evidence", "job_run_id", "generator"},
			pgx.CopyFromFunc(func() ([]any, error) {
				if i == len(patterns) {
					return nil, nil
				}
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				p := patterns[i]
				i++
				ev, err := json.Marshal(p.Evidence)
				if err != nil {
					return nil, err
				}
				return []any{user, p.Type, p.MemoryIDs, p.Content, p.Confidence, now, p.Fingerprint, ev, runID, Generator}, nil
			}))
		return err
	})
}
