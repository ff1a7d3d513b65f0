package decay

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/pgtest"
)

// rowState is what a reader can see of one row after a run: the folded
// state, the flag, and retention through helix_retention at the instant.
type rowState struct {
	stability, difficulty, retention, decayRate float64
	reviewedAt                                  time.Time
	forgotten                                   bool
}

func readState(t *testing.T, pool *pgxpool.Pool, at time.Time) map[string]rowState {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		SELECT 'm' || id, coalesce(stability, 0), coalesce(difficulty, 0), helix_retention(m, $1), 0,
		       coalesce(reviewed_at, 'epoch'), forgotten FROM memories m
		UNION ALL
		SELECT 'l' || id, coalesce(stability, 0), 0, helix_retention(l, $1), coalesce(decay_rate, -1),
		       'epoch', forgotten FROM psychology_layers l`, at)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]rowState{}
	for rows.Next() {
		var id string
		var r rowState
		if err := rows.Scan(&id, &r.stability, &r.difficulty, &r.retention, &r.decayRate, &r.reviewedAt, &r.forgotten); err != nil {
			t.Fatal(err)
		}
		out[id] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// night is what the platform does between two runs, the same on both databases:
// recalls some memories (one of them stamped before the previous run but
// committed after it), touches some layers, adds memories and a user's layers.
func night(t *testing.T, pool *pgxpool.Pool, k int, prev, at time.Time) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{
		`UPDATE memories SET last_accessed = $2::timestamptz + (abs(hashtext(id::text || $1::text)) % 1000) * ($3::timestamptz - $2::timestamptz) / 1000
		WHERE abs(hashtext(id::text || $1::text)) % 20 = 0 AND $4::uuid IS NOT NULL`,
		`UPDATE memories SET last_accessed = $2::timestamptz - interval '10 minutes'
		WHERE id = (SELECT id FROM memories WHERE last_accessed IS NULL OR last_accessed < $2::timestamptz - interval '1 day' ORDER BY md5(id::text || $1::text) LIMIT 1)
		AND $3::timestamptz IS NOT NULL AND $4::uuid IS NOT NULL`,
		`UPDATE psychology_layers SET last_updated = $2::timestamptz + interval '1 hour'
		WHERE abs(hashtext(id::text || $1::text)) % 5 = 0 AND $3::timestamptz IS NOT NULL AND $4::uuid IS NOT NULL`,
		`INSERT INTO memories (id, user_id, type, content, created_at)
		SELECT md5('new' || $1::text || g)::uuid, $4::uuid, 'semantic', 'new ' || g, $2::timestamptz + g * interval '1 hour'
		FROM generate_series(1, 5) g WHERE $3::timestamptz IS NOT NULL`,
		`INSERT INTO psychology_layers (id, user_id, layer_number, layer_name, last_updated)
		SELECT md5('layer' || $1::text || n)::uuid, md5('user' || $1::text)::uuid, n, 'layer ' || n, $2::timestamptz FROM generate_series(1, 7) n
		WHERE $3::timestamptz IS NOT NULL AND $4::uuid IS NOT NULL`,
	} {
		if _, err := pool.Exec(ctx, q, fmt.Sprint(k), prev, at, userA); err != nil {
			t.Fatal(err)
		}
	}
}

// Night after night, an incremental run leaves what a full run leaves: the
// same state, flags and retention (read through helix_retention) row for row,
// while writing only the rows that changed or crossed --forget-below.
func TestIncrementalMatchesFull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	inc, full := pgtest.New(t), pgtest.New(t)
	const n = 150
	for _, p := range []*pgxpool.Pool{inc, full} {
		seed(t, p, n)
	}
	o := Options{ForgetBelow: 0.8, ChunkSize: 40}
	at := created.Add(30 * 24 * time.Hour)
	for _, p := range []*pgxpool.Pool{inc, full} {
		o.At, o.Full = at, false
		res, err := Run(ctx, p, o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Mode != ModeFull || res.FullReason == "" {
			t.Fatalf("first run: %+v, want a full run with its reason", res)
		}
	}
	total := int64(2*n + 14)
	var written int64
	for k := 1; k <= 4; k++ {
		prev := at
		at = at.Add(24 * time.Hour)
		night(t, inc, k, prev, at)
		night(t, full, k, prev, at)
		total += 5 + 7

		o.At, o.Full = at, false
		ri, err := Run(ctx, inc, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Full = true
		rf, err := Run(ctx, full, o)
		if err != nil {
			t.Fatal(err)
		}
		if ri.Mode != ModeIncremental || rf.Mode != ModeFull {
			t.Fatalf("night %d: modes %q and %q", k, ri.Mode, rf.Mode)
		}
		if rf.Memories+rf.Layers != total || ri.Memories+ri.Layers >= total/2 || ri.Memories+ri.Layers == 0 {
			t.Errorf("night %d: incremental wrote %d+%d rows, full %d+%d of %d", k, ri.Memories, ri.Layers, rf.Memories, rf.Layers, total)
		}
		if ri.Forgotten > rf.Forgotten {
			t.Errorf("night %d: incremental flagged %d, full %d", k, ri.Forgotten, rf.Forgotten)
		}
		written += ri.Memories + ri.Layers

		a, b := readState(t, inc, at), readState(t, full, at)
		if len(a) != len(b) || int64(len(a)) != total {
			t.Fatalf("night %d: %d and %d rows, want %d", k, len(a), len(b), total)
		}
		flagged := 0
		for id, x := range b {
			y := a[id]
			if !closeTo(x.stability, y.stability) || !closeTo(x.difficulty, y.difficulty) || !closeTo(x.retention, y.retention) ||
				!x.reviewedAt.Equal(y.reviewedAt) || x.forgotten != y.forgotten || !closeTo(x.decayRate, y.decayRate) {
				t.Fatalf("night %d, row %s: incremental %+v, full %+v", k, id, y, x)
			}
			if x.forgotten {
				flagged++
			}
		}
		if flagged == 0 || flagged == len(b) {
			t.Errorf("night %d: %d of %d rows below the threshold; the test needs both kinds", k, flagged, len(b))
		}
	}
	t.Logf("4 nights: incremental runs wrote %d rows in all, full runs %d each night at the end", written, total)

	// After a full run the stored retention is helix_retention at its instant.
	var worst float64
	if err := full.QueryRow(ctx, `SELECT max(d) FROM (
		SELECT abs(retention - helix_retention(m, decayed_at)) AS d FROM memories m
		UNION ALL SELECT abs(retention - helix_retention(l, decayed_at)) FROM psychology_layers l) x`).Scan(&worst); err != nil {
		t.Fatal(err)
	}
	if worst > 1e-12 {
		t.Errorf("helix_retention differs from a full run's retention by up to %g", worst)
	}

	// Nothing accessed and nothing due: an immediate re-run writes nothing.
	o.Full = false
	res, err := Run(ctx, inc, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != ModeIncremental || res.Memories != 0 || res.Layers != 0 {
		t.Errorf("re-run at the same instant: %+v, want an incremental run writing nothing", res)
	}
}

// Changing --forget-below, --at going back, --full and --user-id all make the run full.
func TestIncrementalFallsBackToFull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	seed(t, pool, 10)
	at := created.Add(10 * 24 * time.Hour)
	run := func(o Options) *Result {
		t.Helper()
		o.ChunkSize = 100
		res, err := Run(ctx, pool, o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	run(Options{At: at, ForgetBelow: 0.5})
	for _, c := range []struct {
		o    Options
		mode string
	}{
		{Options{At: at.Add(time.Hour), ForgetBelow: 0.5}, ModeIncremental},
		{Options{At: at.Add(2 * time.Hour), ForgetBelow: 0.6}, ModeFull},
		{Options{At: at.Add(3 * time.Hour), ForgetBelow: 0.6}, ModeIncremental},
		{Options{At: at, ForgetBelow: 0.6}, ModeFull},
		{Options{At: at.Add(4 * time.Hour), ForgetBelow: 0.6, Full: true}, ModeFull},
		{Options{At: at.Add(5 * time.Hour), ForgetBelow: 0.6, UserID: userA}, ModeFull},
		{Options{At: at.Add(6 * time.Hour), ForgetBelow: 0.6}, ModeIncremental},
		{Options{At: at.Add(7 * time.Hour), ForgetBelow: 0.7, UserID: userA}, ModeFull},
		{Options{At: at.Add(8 * time.Hour), ForgetBelow: 0.6}, ModeFull}, // user A's rows have other forget_at values
	} {
		if res := run(c.o); res.Mode != c.mode {
			t.Errorf("%+v: mode %s (%s), want %s", c.o, res.Mode, res.FullReason, c.mode)
		}
	}
}

// forget_at is the instant retention reaches the threshold: just before it the
// row is above, just after it below, for memories and every layer model.
func TestForgetAtIsTheCrossing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	seed(t, pool, 40)
	ls := DefaultLayers()
	ls[4] = Model{Kind: FSRS, Param: 300}
	if _, err := Run(ctx, pool, Options{At: created.Add(24 * time.Hour), ForgetBelow: 0.7, Layers: ls}); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `
		SELECT forget_at, helix_retention(m, forget_at - interval '2 milliseconds'), helix_retention(m, forget_at + interval '2 milliseconds')
		FROM memories m WHERE forget_at IS NOT NULL AND forget_at < 'infinity'
			AND (last_accessed IS NULL OR last_accessed <= decayed_at) -- a later access moves the crossing
		UNION ALL
		SELECT forget_at, helix_retention(l, forget_at - interval '2 milliseconds'), helix_retention(l, forget_at + interval '2 milliseconds')
		FROM psychology_layers l WHERE forget_at IS NOT NULL AND forget_at < 'infinity'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	checked := 0
	for rows.Next() {
		var at time.Time
		var before, after float64
		if err := rows.Scan(&at, &before, &after); err != nil {
			t.Fatal(err)
		}
		if !(before >= 0.7 && after < 0.7) {
			t.Errorf("forget_at %s: retention %v just before, %v just after; want the crossing of 0.7", at, before, after)
		}
		checked++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if checked < 40 {
		t.Errorf("only %d rows had a finite forget_at", checked)
	}
}
