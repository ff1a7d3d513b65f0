package lineage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
)

// Lineage is one helix_pattern_lineages row.
type Lineage struct {
	ID          uuid.UUID  `json:"id"`
	UserID      uuid.UUID  `json:"user_id"`
	Source      string     `json:"source"`
	Kind        string     `json:"kind"`
	Status      string     `json:"status"`
	FirstSeenAt time.Time  `json:"first_seen_at"`
	LastSeenAt  time.Time  `json:"last_seen_at"`
	RunsSeen    int        `json:"runs_seen"`
	EndedAt     *time.Time `json:"ended_at,omitempty"`
	PatternID   *uuid.UUID `json:"pattern_id,omitempty"`
	Size        int        `json:"size"`
	Confidence  *float64   `json:"confidence,omitempty"`
	Content     *string    `json:"content,omitempty"`
	WindowStart *time.Time `json:"window_start,omitempty"`
	WindowEnd   *time.Time `json:"window_end,omitempty"`
	JobRunID    *int64     `json:"job_run_id,omitempty"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

// Run is one user's sightings in a run.
type Run struct {
	User      uuid.UUID
	Sightings []Sighting
}

// previousSQL reads the live lineages of some users, each with the members of
// its latest sighting, read through its pattern row (deleted by the caller
// only after this read).
var previousSQL = map[string]string{
	Statistical: `SELECT l.id, l.user_id, l.kind, l.first_seen_at, l.runs_seen, l.size, l.window_start, l.window_end,
			coalesce(s.memory_ids, '{}')
		FROM helix_pattern_lineages l LEFT JOIN memory_synthesis s ON s.id = l.pattern_id
		WHERE l.user_id = ANY($1) AND l.source = $2 AND l.status <> 'ended' AND ($3::text[] IS NULL OR split_part(l.kind, '/', 1) = ANY($3))
		ORDER BY l.user_id, l.first_seen_at, l.id`,
	// helix writes only uuids into its rows' evidence; the cast never meets another writer's row
	LLM: `SELECT l.id, l.user_id, l.kind, l.first_seen_at, l.runs_seen, l.size, l.window_start, l.window_end,
			coalesce(p.evidence::uuid[], '{}')
		FROM helix_pattern_lineages l LEFT JOIN memory_patterns p ON p.id = l.pattern_id
		WHERE l.user_id = ANY($1) AND l.source = $2 AND l.status <> 'ended' AND ($3::text[] IS NULL OR split_part(l.kind, '/', 1) = ANY($3))
		ORDER BY l.user_id, l.first_seen_at, l.id`,
}

type live struct {
	Previous
	user      uuid.UUID
	firstSeen time.Time
	runs      int
	size      int
}

// Advance carries the lineages of source on to a run's sightings, inside tx,
// before the caller deletes the previous run's pattern rows (their members are
// read through them): per user, each sighting is matched (Match) to a live
// lineage of its kind, which it continues (persisting, growing or shrinking;
// runs_seen + 1, last_seen_at now), or starts a new one; a live lineage of the
// kinds covered (nil: every kind; a kind "type/layer" is covered by its type)
// that no sighting took is ended, and kept.
// One read and one write, however many users. It returns each sighting's
// lineage id, in the order of runs and their sightings.
func Advance(ctx context.Context, tx pgx.Tx, source string, runs []Run, kinds []string, now time.Time, runID *int64) ([][]uuid.UUID, error) {
	q, ok := previousSQL[source]
	if !ok {
		return nil, fmt.Errorf("lineage: unknown source %q", source)
	}
	users := make([]uuid.UUID, len(runs))
	for i, r := range runs {
		users[i] = r.User
	}
	rows, err := tx.Query(ctx, q, users, source, kinds)
	if err != nil {
		return nil, fmt.Errorf("read lineages: %w", err)
	}
	byUser := map[uuid.UUID][]live{}
	var (
		l      live
		ws, we *time.Time
	)
	_, err = pgx.ForEachRow(rows, []any{&l.ID, &l.user, &l.Kind, &l.firstSeen, &l.runs, &l.size, &ws, &we, &l.Members}, func() error {
		l.From, l.To = time.Time{}, time.Time{}
		if ws != nil && we != nil {
			l.From, l.To = *ws, *we
		}
		byUser[l.user] = append(byUser[l.user], l)
		l = live{}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read lineages: %w", err)
	}

	var w upsert
	out := make([][]uuid.UUID, len(runs))
	for i, r := range runs {
		prevs := byUser[r.User]
		delete(byUser, r.User) // a user listed twice is advanced once
		prev := make([]Previous, len(prevs))
		for j, p := range prevs {
			prev[j] = p.Previous
		}
		m := Match(source, r.Sightings, prev)
		taken := make([]bool, len(prevs))
		out[i] = make([]uuid.UUID, len(r.Sightings))
		for k, s := range r.Sightings {
			row := lineageRow{user: r.User, kind: s.Kind, pattern: s.PatternID, size: len(s.Members),
				conf: s.Confidence, content: s.Content, from: s.From, to: s.To}
			if j := m[k]; j >= 0 {
				p := prevs[j]
				taken[j] = true
				row.id, row.status, row.firstSeen, row.runs = p.ID, Status(p.size, len(s.Members)), p.firstSeen, p.runs+1
			} else {
				row.id, row.status, row.firstSeen, row.runs, row.fresh = uuid.New(), New, now, 1, true
			}
			out[i][k] = row.id
			w.add(row)
		}
		for j, p := range prevs {
			if !taken[j] {
				w.end(p.ID)
			}
		}
	}
	if err := w.exec(ctx, tx, source, now, runID); err != nil {
		return nil, fmt.Errorf("write lineages: %w", err)
	}
	return out, nil
}

type lineageRow struct {
	id, user, pattern uuid.UUID
	kind, status      string
	firstSeen         time.Time
	runs, size        int
	conf              float64
	content           string
	from, to          time.Time
	fresh             bool // a new lineage: inserted, not updated
}

// upsert gathers a run's lineage writes into columns for one statement.
type upsert struct {
	ids, users, patterns   []uuid.UUID
	kinds, statuses, texts []string
	firstSeen              []time.Time
	runs, sizes            []int32
	confs                  []float64
	windowStart, windowEnd []*time.Time
	fresh                  []bool
	ended                  []uuid.UUID
}

func (w *upsert) add(r lineageRow) {
	w.ids, w.users, w.patterns = append(w.ids, r.id), append(w.users, r.user), append(w.patterns, r.pattern)
	w.kinds, w.statuses, w.texts = append(w.kinds, r.kind), append(w.statuses, r.status), append(w.texts, r.content)
	w.firstSeen, w.fresh = append(w.firstSeen, r.firstSeen), append(w.fresh, r.fresh)
	w.runs, w.sizes, w.confs = append(w.runs, int32(r.runs)), append(w.sizes, int32(r.size)), append(w.confs, r.conf)
	var ws, we *time.Time
	if !r.from.IsZero() && !r.to.IsZero() {
		f, t := r.from, r.to
		ws, we = &f, &t
	}
	w.windowStart, w.windowEnd = append(w.windowStart, ws), append(w.windowEnd, we)
}

func (w *upsert) end(id uuid.UUID) { w.ended = append(w.ended, id) }

// exec writes the run's lineages in one statement: the carried-on ones
// updated in place (a plain UPDATE: cheaper than INSERT … ON CONFLICT, and
// with no indexed column changed an update stays on its page), the new ones
// inserted, the unmatched ones ended.
func (w *upsert) exec(ctx context.Context, tx pgx.Tx, source string, now time.Time, runID *int64) error {
	if len(w.ids) == 0 && len(w.ended) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `WITH x AS (
			SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[], $6::int[], $7::uuid[], $8::int[],
				$9::float8[], $10::text[], $11::timestamptz[], $12::timestamptz[], $13::bool[])
			AS x(id, user_id, kind, status, first_seen_at, runs_seen, pattern_id, size, confidence, content, window_start, window_end, fresh)),
		ended AS (
			UPDATE helix_pattern_lineages SET status = 'ended', ended_at = $15, pattern_id = NULL, updated_at = $15, job_run_id = $16
			WHERE id = ANY($17)),
		carried AS (
			UPDATE helix_pattern_lineages l SET status = x.status, last_seen_at = $15, runs_seen = x.runs_seen, pattern_id = x.pattern_id,
				size = x.size, confidence = x.confidence, content = x.content, window_start = x.window_start, window_end = x.window_end,
				job_run_id = $16, updated_at = $15
			FROM x WHERE NOT x.fresh AND l.id = x.id)
		INSERT INTO helix_pattern_lineages (id, user_id, source, kind, status, first_seen_at, last_seen_at,
			runs_seen, pattern_id, size, confidence, content, window_start, window_end, job_run_id, updated_at)
		SELECT id, user_id, $14, kind, status, first_seen_at, $15, runs_seen, pattern_id, size, confidence, content,
			window_start, window_end, $16, $15
		FROM x WHERE x.fresh`,
		w.ids, w.users, w.kinds, w.statuses, w.firstSeen, w.runs, w.patterns, w.sizes, w.confs, w.texts,
		w.windowStart, w.windowEnd, w.fresh, source, now, runID, w.ended)
	return err
}

const columns = `id, user_id, source, kind, status, first_seen_at, last_seen_at, runs_seen, ended_at, pattern_id,
	size, confidence, content, window_start, window_end, job_run_id, updated_at`

func scan(rows pgx.Rows) ([]Lineage, error) {
	return pgx.CollectRows(rows, pgx.RowToStructByPos[Lineage])
}

// ErrNotFound: no lineage for that pattern (or that user).
var ErrNotFound = errors.New("no lineage")

// Of returns the lineage of one of user's pattern rows (memory_synthesis.id
// or memory_patterns.id of the latest run; older rows are gone), or
// ErrNotFound. For `helix patterns list|show` to show a pattern's lineage
// beside it. The user narrows the search to their live lineages (the table
// has no index on pattern_id: see migration 00230).
func Of(ctx context.Context, q db.Querier, user, patternID uuid.UUID) (*Lineage, error) {
	m, err := OfPatterns(ctx, q, user, []uuid.UUID{patternID})
	if err != nil {
		return nil, err
	}
	l, ok := m[patternID]
	if !ok {
		return nil, ErrNotFound
	}
	return &l, nil
}

// OfPatterns is Of for many of user's pattern rows at once (one query): the
// lineages found, by pattern id.
func OfPatterns(ctx context.Context, q db.Querier, user uuid.UUID, patternIDs []uuid.UUID) (map[uuid.UUID]Lineage, error) {
	rows, err := q.Query(ctx, `SELECT `+columns+` FROM helix_pattern_lineages
		WHERE user_id = $1 AND status <> 'ended' AND pattern_id = ANY($2)`, user, patternIDs)
	if err != nil {
		return nil, err
	}
	ls, err := scan(rows)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]Lineage, len(ls))
	for _, l := range ls {
		out[*l.PatternID] = l
	}
	return out, nil
}

// ListOptions select a user's lineages.
type ListOptions struct {
	Source string // "": both
	Live   bool   // leave ended ones out
	Limit  int    // 0: all
}

// List returns a user's lineages: live ones first, then by confidence, runs
// seen and first sighting.
func List(ctx context.Context, q db.Querier, user uuid.UUID, o ListOptions) ([]Lineage, error) {
	var limit *int
	if o.Limit > 0 {
		limit = &o.Limit
	}
	rows, err := q.Query(ctx, `SELECT `+columns+` FROM helix_pattern_lineages
		WHERE user_id = $1 AND ($2 = '' OR source = $2) AND (NOT $3 OR status <> 'ended')
		ORDER BY status = 'ended', confidence DESC NULLS LAST, runs_seen DESC, first_seen_at, id LIMIT $4`,
		user, o.Source, o.Live, limit)
	if err != nil {
		return nil, err
	}
	return scan(rows)
}
