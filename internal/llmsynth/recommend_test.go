package llmsynth

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/helixhq/helix/internal/pgtest"
)

// TestRecommendationStatusRLS: on the Supabase-shaped database, a signed-in
// user reads their own recommendations and sets their status (open, done,
// dismissed), and nothing else: not another column, not another user's row,
// not a new row, not a delete; anon gets nothing. status_changed_at follows.
func TestRecommendationStatusRLS(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.MigratedPlatform(t)
	a, b := uuid.MustParse("a0000000-0000-4000-8000-000000000001"), uuid.MustParse("b0000000-0000-4000-8000-000000000002")
	recs := map[uuid.UUID]uuid.UUID{}
	for _, u := range []uuid.UUID{a, b} {
		var id uuid.UUID
		if err := pool.QueryRow(ctx, `INSERT INTO helix_recommendations (user_id, pattern_type, lineage_id, layer, text, created_at)
			VALUES ($1, 'full_synthesis', gen_random_uuid(), 'purpose_engine', 'write down what matters', now()) RETURNING id`, u).Scan(&id); err != nil {
			t.Fatal(err)
		}
		recs[u] = id
	}
	denied := func(err error) bool {
		var pe *pgconn.PgError
		return errors.As(err, &pe) && pe.Code == "42501"
	}
	pgtest.AsUser(t, pool, a.String(), func(tx pgx.Tx) {
		own, err := Recommendations(ctx, tx, a, "")
		if err != nil || len(own) != 1 || own[0].ID != recs[a] {
			t.Fatalf("A reads own: %v %v", own, err)
		}
		if others, err := Recommendations(ctx, tx, b, ""); err != nil || len(others) != 0 {
			t.Errorf("A reads B's: %v %v", others, err)
		}
		tag, err := tx.Exec(ctx, `UPDATE helix_recommendations SET status = 'done' WHERE id = $1`, recs[a])
		if err != nil || tag.RowsAffected() != 1 {
			t.Fatalf("A sets own status: %d rows, %v", tag.RowsAffected(), err)
		}
		var status string
		var changed bool
		if err := tx.QueryRow(ctx, `SELECT status, status_changed_at IS NOT NULL FROM helix_recommendations WHERE id = $1`, recs[a]).Scan(&status, &changed); err != nil || status != RecDone || !changed {
			t.Errorf("after A's update: status %q, changed-at set %v, %v", status, changed, err)
		}
		if tag, err := tx.Exec(ctx, `UPDATE helix_recommendations SET status = 'done' WHERE id = $1`, recs[b]); err != nil || tag.RowsAffected() != 0 {
			t.Errorf("A sets B's status: %d rows, %v; want 0", tag.RowsAffected(), err)
		}
	})
	for what, q := range map[string]string{
		"another column": `UPDATE helix_recommendations SET text = 'something else' WHERE id = $1`,
		"status_changed": `UPDATE helix_recommendations SET status_changed_at = now() WHERE id = $1`,
		"owner":          `UPDATE helix_recommendations SET user_id = gen_random_uuid() WHERE id = $1`,
		"delete":         `DELETE FROM helix_recommendations WHERE id = $1`,
		"insert":         `INSERT INTO helix_recommendations (user_id, pattern_type, lineage_id, text, created_at) SELECT user_id, pattern_type, lineage_id, 'x', now() FROM helix_recommendations WHERE id = $1`,
	} {
		pgtest.AsUser(t, pool, a.String(), func(tx pgx.Tx) {
			if _, err := tx.Exec(ctx, q, recs[a]); !denied(err) {
				t.Errorf("A, %s of own row: want permission denied, got %v", what, err)
			}
		})
	}
	pgtest.AsUser(t, pool, a.String(), func(tx pgx.Tx) {
		_, err := tx.Exec(ctx, `UPDATE helix_recommendations SET status = 'finished' WHERE id = $1`, recs[a])
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "23514" {
			t.Errorf("A sets status 'finished': want a check violation, got %v", err)
		}
	})
	pgtest.AsUser(t, pool, "", func(tx pgx.Tx) {
		if _, err := tx.Exec(ctx, `UPDATE helix_recommendations SET status = 'done' WHERE id = $1`, recs[a]); !denied(err) {
			t.Errorf("anon sets a status: want permission denied, got %v", err)
		}
	})
	// nothing above was committed: B's row is untouched
	if rs, err := Recommendations(ctx, pool, b, RecOpen); err != nil || len(rs) != 1 {
		t.Errorf("B's open recommendations %v %v", rs, err)
	}
}
