package llmsynth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/lineage"
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
//
// The patterns' lineages (source llm, followed per type — per layer for
// full_synthesis — by their evidence) are carried on before the previous rows
// go, and their recommendations are appended to helix_recommendations: one
// already stored for the same lineage with the same text stays as it is, with
// the status the user gave it, and points at the new pattern row.
func replace(ctx context.Context, q db.Querier, u usageRow, ps []Pattern, now time.Time, complete func(context.Context, pgx.Tx) error) error {
	return db.InTx(ctx, q, func(tx pgx.Tx) error {
		ids := make([]uuid.UUID, len(ps))
		run := lineage.Run{User: u.User, Sightings: make([]lineage.Sighting, len(ps))}
		for i, p := range ps {
			ids[i] = uuid.New()
			run.Sightings[i] = lineage.Sighting{PatternID: ids[i], Kind: p.LineageKind(), Members: p.Evidence,
				Confidence: p.Confidence, Content: p.Title}
		}
		lins, err := lineage.Advance(ctx, tx, lineage.LLM, []lineage.Run{run}, u.Types, now, u.RunID)
		if err != nil {
			return err
		}
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
				SELECT id, $1, t, c::jsonb, conf, ARRAY(SELECT jsonb_array_elements_text(e::jsonb)), $6::timestamptz, $7, $8, $9, $10, $11
				FROM unnest($2::text[], $3::text[], $4::float8[], $5::text[], $12::uuid[]) AS x(t, c, conf, e, id)`,
				u.User, types, contents, confs, evidence, now, Generator, u.Brief, u.Model, share, u.RunID, ids); err != nil {
				return err
			}
			if err := appendRecommendations(ctx, tx, u, ps, ids, lins[0], now); err != nil {
				return fmt.Errorf("record recommendations: %w", err)
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

func appendRecommendations(ctx context.Context, tx pgx.Tx, u usageRow, ps []Pattern, ids, lins []uuid.UUID, now time.Time) error {
	var types, texts []string
	var layers []*string
	var pids, lids []uuid.UUID
	for i, p := range ps {
		var layer *string
		if l := p.Layer(); l != "" {
			layer = &l
		}
		seen := map[string]bool{}
		for _, r := range p.Recommendations {
			r = strings.TrimSpace(r)
			if r == "" || seen[r] {
				continue
			}
			seen[r] = true
			types, texts, layers = append(types, p.Type), append(texts, r), append(layers, layer)
			pids, lids = append(pids, ids[i]), append(lids, lins[i])
		}
	}
	if len(texts) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO helix_recommendations (user_id, pattern_type, pattern_id, lineage_id, layer, text, created_at, job_run_id)
		SELECT $1, t, p, l, y, x, $7, $8 FROM unnest($2::text[], $3::uuid[], $4::uuid[], $5::text[], $6::text[]) AS r(t, p, l, y, x)
		ON CONFLICT (user_id, lineage_id, md5(text)) DO UPDATE SET pattern_id = excluded.pattern_id`,
		u.User, types, pids, lids, layers, texts, now, u.RunID)
	return err
}

// loadGrounding reads what a full_synthesis brief is grounded in: the user's
// live statistical lineages (the 30 strongest) and the helix patterns of the
// four other types with their lineages' status.
func loadGrounding(ctx context.Context, q db.Querier, user uuid.UUID) (*Grounding, error) {
	ls, err := lineage.List(ctx, q, user, lineage.ListOptions{Source: lineage.Statistical, Live: true, Limit: 30})
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, `SELECT p.pattern_type, coalesce(p.content->>'title', ''), coalesce(p.confidence, 0),
			coalesce(l.status, ''), coalesce(l.first_seen_at, '-infinity')
		FROM memory_patterns p LEFT JOIN helix_pattern_lineages l ON l.user_id = p.user_id AND l.status <> 'ended' AND l.pattern_id = p.id
		WHERE p.user_id = $1 AND p.generator = $2 AND p.pattern_type = ANY($3)
		ORDER BY array_position($3, p.pattern_type), p.confidence DESC, p.content->>'title', p.id`, user, Generator, Types)
	if err != nil {
		return nil, err
	}
	g := &Grounding{Lineages: ls}
	var sp StoredPattern
	var first pgtype.Timestamptz
	_, err = pgx.ForEachRow(rows, []any{&sp.Type, &sp.Title, &sp.Confidence, &sp.Status, &first}, func() error {
		sp.FirstSeen = time.Time{}
		if first.Valid && first.InfinityModifier == pgtype.Finite {
			sp.FirstSeen = first.Time
		}
		g.Patterns = append(g.Patterns, sp)
		return nil
	})
	return g, err
}
