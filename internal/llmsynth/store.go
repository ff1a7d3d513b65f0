package llmsynth

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
)

// Generator marks the memory_patterns rows helix wrote; helix replaces and
// deletes only those.
const Generator = "helix"

// usageRow is one helix_llm_usage row.
type usageRow struct {
	RunID   *int64
	User    uuid.UUID
	Model   string
	Brief   string
	Types   []string
	Status  string
	Calls   int
	Usage   Usage
	Cost    float64
	Found   int
	Dropped int
	Scrub   any
	Err     *string
}

func insertUsage(ctx context.Context, q db.Querier, r usageRow, now time.Time) error {
	sc, err := json.Marshal(r.Scrub)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `INSERT INTO helix_llm_usage (job_run_id, user_id, model, brief_sha256, pattern_types, status, calls,
		input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, patterns, dropped_evidence, scrubbed, error, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
		r.RunID, r.User, r.Model, r.Brief, r.Types, r.Status, r.Calls, r.Usage.Input, r.Usage.Output,
		r.Usage.CacheRead, r.Usage.CacheWrite, r.Cost, r.Found, r.Dropped, sc, r.Err, now)
	return err
}

// storedResult reports whether a brief with this hash was already answered
// for the user (an ok row), and how many patterns that run stored.
func storedResult(ctx context.Context, q db.Querier, user uuid.UUID, brief string) (bool, int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT patterns FROM helix_llm_usage
		WHERE user_id = $1 AND brief_sha256 = $2 AND status = 'ok' ORDER BY id DESC LIMIT 1`, user, brief).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, 0, nil
	}
	return err == nil, n, err
}

// replace swaps the user's helix rows of the given types for ps and records
// the usage, in one transaction: the platform's own rows and other types are
// untouched, and a failure leaves the previous rows.
func replace(ctx context.Context, q db.Querier, u usageRow, ps []Pattern, now time.Time, complete func(context.Context, pgx.Tx) error) error {
	return db.InTx(ctx, q, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM memory_patterns
			WHERE user_id = $1 AND generator = $2 AND pattern_type = ANY ($3)`, u.User, Generator, u.Types); err != nil {
			return err
		}
		if len(ps) > 0 {
			types := make([]string, len(ps))
			contents := make([]string, len(ps))
			confs := make([]float64, len(ps))
			evidence := make([]string, len(ps)) // one text[] literal per row: unnest cannot take a ragged 2-D array
			for i, p := range ps {
				c, err := json.Marshal(p.Content())
				if err != nil {
					return err
				}
				ids := make([]string, len(p.Evidence))
				for j, id := range p.Evidence {
					ids[j] = id.String()
				}
				ev, err := json.Marshal(ids) // uuids need no escaping beyond JSON's
				if err != nil {
					return err
				}
				types[i], contents[i], confs[i] = p.Type, string(c), p.Confidence
				evidence[i] = string(ev)
			}
			// the per-row cost is the user's cost shared out, so that a sum over rows is the user's
			share := u.Cost / float64(len(ps))
			if _, err := tx.Exec(ctx, `INSERT INTO memory_patterns
				(id, user_id, pattern_type, content, confidence, evidence, created_at, generator, brief_sha256, model, cost_usd, job_run_id)
				SELECT gen_random_uuid(), $1, t, c::jsonb, conf, ARRAY(SELECT jsonb_array_elements_text(e::jsonb)), $6::timestamptz, $7, $8, $9, $10, $11
				FROM unnest($2::text[], $3::text[], $4::float8[], $5::text[]) AS x(t, c, conf, e)`,
				u.User, types, contents, confs, evidence, now, Generator, u.Brief, u.Model, share, u.RunID); err != nil {
				return err
			}
		}
		if err := insertUsage(ctx, tx, u, now); err != nil {
			return err
		}
		if complete != nil {
			return complete(ctx, tx)
		}
		return nil
	})
}
