// Package profile keeps one current profile per user (helix_profiles): the
// integrated summary (the latest full_synthesis), the top lineages with their
// status and age, and the open recommendations. Work follows change: a user
// whose lineages and recommendations are as they were when the profile was
// built is not recomputed (Basis).
package profile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/lineage"
	"github.com/helixhq/helix/internal/llmsynth"
)

// TopLineages is how many live lineages a profile lists.
const TopLineages = 10

// Profile is the helix_profiles.profile document.
type Profile struct {
	UserID          uuid.UUID        `json:"user_id"`
	UpdatedAt       time.Time        `json:"updated_at"`
	Summary         *Summary         `json:"summary"`
	Findings        []Finding        `json:"findings"`
	Lineages        []LineageView    `json:"lineages"`
	Recommendations []Recommendation `json:"recommendations"`
}

// Summary is the integrated summary of the latest full_synthesis.
type Summary struct {
	Text       string     `json:"text"`
	Confidence float64    `json:"confidence"`
	PatternID  uuid.UUID  `json:"pattern_id"`
	LineageID  *uuid.UUID `json:"lineage_id"`
	Model      *string    `json:"model"`
	CreatedAt  time.Time  `json:"created_at"`
}

// Finding is one full_synthesis finding.
type Finding struct {
	Layer       string     `json:"layer"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	Confidence  float64    `json:"confidence"`
	LineageID   *uuid.UUID `json:"lineage_id"`
	Status      *string    `json:"status"`
	FirstSeenAt *time.Time `json:"first_seen_at"`
}

// LineageView is a live lineage as a profile shows it.
type LineageView struct {
	ID          uuid.UUID `json:"id"`
	Source      string    `json:"source"`
	Kind        string    `json:"kind"`
	Status      string    `json:"status"`
	FirstSeenAt time.Time `json:"first_seen_at"`
	LastSeenAt  time.Time `json:"last_seen_at"`
	AgeDays     float64   `json:"age_days"`
	RunsSeen    int       `json:"runs_seen"`
	Size        int       `json:"size"`
	Confidence  *float64  `json:"confidence"`
	Content     *string   `json:"content"`
}

// Recommendation is an open recommendation.
type Recommendation struct {
	ID          uuid.UUID `json:"id"`
	Text        string    `json:"text"`
	Layer       *string   `json:"layer"`
	PatternType string    `json:"pattern_type"`
	LineageID   uuid.UUID `json:"lineage_id"`
	CreatedAt   time.Time `json:"created_at"`
}

// Build assembles user's profile as of now from the stored full_synthesis,
// lineages and recommendations. It reads; it writes nothing.
func Build(ctx context.Context, q db.Querier, user uuid.UUID, now time.Time) (*Profile, error) {
	p := &Profile{UserID: user, UpdatedAt: now, Findings: []Finding{}, Lineages: []LineageView{}, Recommendations: []Recommendation{}}
	rows, err := q.Query(ctx, `SELECT p.id, coalesce(p.content->>'layer', ''), coalesce(p.content->>'title', ''),
			coalesce(p.content->>'description', ''), coalesce(p.confidence, 0), p.model, p.created_at,
			l.id, l.status, l.first_seen_at
		FROM memory_patterns p LEFT JOIN helix_pattern_lineages l ON l.user_id = p.user_id AND l.status <> 'ended' AND l.pattern_id = p.id
		WHERE p.user_id = $1 AND p.generator = $2 AND p.pattern_type = $3
		ORDER BY array_position($4, p.content->>'layer'), p.confidence DESC, p.content->>'title', p.id`,
		user, llmsynth.Generator, llmsynth.FullSynthesis, llmsynth.Layers)
	if err != nil {
		return nil, fmt.Errorf("read full_synthesis: %w", err)
	}
	var (
		id      uuid.UUID
		f       Finding
		model   *string
		created time.Time
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &f.Layer, &f.Title, &f.Description, &f.Confidence, &model, &created, &f.LineageID, &f.Status, &f.FirstSeenAt}, func() error {
		if f.Layer == llmsynth.SummaryLayer {
			p.Summary = &Summary{Text: f.Description, Confidence: f.Confidence, PatternID: id, LineageID: f.LineageID, Model: model, CreatedAt: created}
		} else {
			p.Findings = append(p.Findings, f)
		}
		f = Finding{}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read full_synthesis: %w", err)
	}
	ls, err := lineage.List(ctx, q, user, lineage.ListOptions{Live: true, Limit: TopLineages})
	if err != nil {
		return nil, fmt.Errorf("read lineages: %w", err)
	}
	for _, l := range ls {
		p.Lineages = append(p.Lineages, LineageView{ID: l.ID, Source: l.Source, Kind: l.Kind, Status: l.Status,
			FirstSeenAt: l.FirstSeenAt, LastSeenAt: l.LastSeenAt, AgeDays: math.Round(now.Sub(l.FirstSeenAt).Hours()/24*10) / 10,
			RunsSeen: l.RunsSeen, Size: l.Size, Confidence: l.Confidence, Content: l.Content})
	}
	recs, err := llmsynth.Recommendations(ctx, q, user, llmsynth.RecOpen)
	if err != nil {
		return nil, fmt.Errorf("read recommendations: %w", err)
	}
	for _, r := range recs {
		p.Recommendations = append(p.Recommendations, Recommendation{ID: r.ID, Text: r.Text, Layer: r.Layer,
			PatternType: r.PatternType, LineageID: r.LineageID, CreatedAt: r.CreatedAt})
	}
	return p, nil
}

// basisSQL is a digest of what a profile is built from, per user: every
// lineage's id, status, runs and last sighting, and every recommendation's id
// and status. A run that carries a lineage on, ends or starts one, or a user
// who marks a recommendation done, changes it.
const basisSQL = `SELECT u.user_id, md5(
		coalesce((SELECT string_agg(l.id::text || ':' || l.status || ':' || l.runs_seen || ':' || l.last_seen_at::text, ',' ORDER BY l.id)
			FROM helix_pattern_lineages l WHERE l.user_id = u.user_id), '') || '|' ||
		coalesce((SELECT string_agg(r.id::text || ':' || r.status, ',' ORDER BY r.id)
			FROM helix_recommendations r WHERE r.user_id = u.user_id), '')),
		p.basis
	FROM unnest($1::uuid[]) AS u(user_id) LEFT JOIN helix_profiles p ON p.user_id = u.user_id`

// Changed returns, of users, those whose lineages or recommendations differ
// from what their profile was built from (or who have no profile), in the
// order given. One query.
func Changed(ctx context.Context, q db.Querier, users []uuid.UUID) ([]uuid.UUID, error) {
	rows, err := q.Query(ctx, basisSQL, users)
	if err != nil {
		return nil, err
	}
	changed := map[uuid.UUID]bool{}
	var (
		u      uuid.UUID
		cur    string
		stored *string
	)
	if _, err := pgx.ForEachRow(rows, []any{&u, &cur, &stored}, func() error {
		if stored == nil || *stored != cur {
			changed[u] = true
		}
		return nil
	}); err != nil {
		return nil, err
	}
	out := []uuid.UUID{}
	for _, u := range users {
		if changed[u] {
			out = append(out, u)
			delete(changed, u)
		}
	}
	return out, nil
}

// Users lists the users a profile can be built for: those with lineages or
// recommendations, in id order.
func Users(ctx context.Context, q db.Querier) ([]uuid.UUID, error) {
	rows, err := q.Query(ctx, `SELECT user_id FROM helix_pattern_lineages UNION SELECT user_id FROM helix_recommendations ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
}

// Stored is a helix_profiles row.
type Stored struct {
	UserID    uuid.UUID       `json:"user_id"`
	Profile   json.RawMessage `json:"profile"`
	Model     *string         `json:"model"`
	CostUSD   float64         `json:"cost_usd"`
	JobRunID  *int64          `json:"job_run_id"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// ErrNotFound: the user has no profile.
var ErrNotFound = errors.New("no profile")

// Get reads user's stored profile.
func Get(ctx context.Context, q db.Querier, user uuid.UUID) (*Stored, error) {
	var s Stored
	err := q.QueryRow(ctx, `SELECT user_id, profile, model, cost_usd, job_run_id, updated_at FROM helix_profiles WHERE user_id = $1`, user).
		Scan(&s.UserID, &s.Profile, &s.Model, &s.CostUSD, &s.JobRunID, &s.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	return &s, err
}

// Updater builds profiles. Synth asks for full_synthesis alone.
type Updater struct {
	Synth *llmsynth.Synthesizer
	Now   func() time.Time
}

// Result is one user's outcome.
type Result struct {
	UserID          uuid.UUID `json:"user_id"`
	Unchanged       bool      `json:"unchanged"` // nothing changed since the profile was built: no call, no write
	Reused          bool      `json:"reused"`    // the full_synthesis brief was answered before: no call
	Calls           int       `json:"calls"`
	CostUSD         float64   `json:"cost_usd"`
	Lineages        int       `json:"lineages"`
	Recommendations int       `json:"recommendations"`
	Summary         bool      `json:"summary"`
	Error           string    `json:"error,omitempty"`
}

// User updates user's profile unless nothing changed since it was built:
// the full_synthesis (Synthesizer.User: a model call unless its brief was
// answered before), then, in one transaction, the profile rebuilt with the
// basis it was built from and complete (a worker's job completion; also
// run, alone, when the user is unchanged).
func (u *Updater) User(ctx context.Context, q db.Querier, user uuid.UUID, runID *int64, complete func(context.Context, pgx.Tx) error) (Result, error) {
	r := Result{UserID: user}
	changed, err := Changed(ctx, q, []uuid.UUID{user})
	if err != nil {
		return r, fmt.Errorf("read the profile's basis: %w", err)
	}
	if len(changed) == 0 {
		r.Unchanged = true
		if complete != nil {
			return r, db.InTx(ctx, q, func(tx pgx.Tx) error { return complete(ctx, tx) })
		}
		return r, nil
	}
	sr, err := u.Synth.User(ctx, q, user, runID)
	r.Calls, r.CostUSD, r.Reused = sr.Calls, sr.CostUSD, sr.Reused
	if err != nil {
		return r, fmt.Errorf("full_synthesis: %w", err)
	}
	err = db.InTx(ctx, q, func(tx pgx.Tx) error {
		now := u.Now()
		p, err := Build(ctx, tx, user, now)
		if err != nil {
			return err
		}
		r.Lineages, r.Recommendations, r.Summary = len(p.Lineages), len(p.Recommendations), p.Summary != nil
		var basis string
		if err := tx.QueryRow(ctx, `SELECT b FROM (`+basisSQL+`) x(u, b, s)`, []uuid.UUID{user}).Scan(&basis); err != nil {
			return err
		}
		doc, err := json.Marshal(p)
		if err != nil {
			return err
		}
		var model *string
		if p.Summary != nil {
			model = p.Summary.Model
		}
		if _, err := tx.Exec(ctx, `INSERT INTO helix_profiles (user_id, profile, basis, model, cost_usd, job_run_id, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (user_id) DO UPDATE SET profile = excluded.profile, basis = excluded.basis, model = excluded.model,
				cost_usd = excluded.cost_usd, job_run_id = excluded.job_run_id, updated_at = excluded.updated_at`,
			user, doc, basis, model, r.CostUSD, runID, now); err != nil {
			return err
		}
		if complete != nil {
			return complete(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("write the profile: %w", err)
	}
	return r, nil
}
