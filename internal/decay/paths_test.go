package decay

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

// Incremental runs through every connection path (direct, PgBouncer in
// session and in transaction mode) leave what full runs leave on a direct
// connection, in several chunks a table, with a memory of a type the
// platform no longer allows among the due rows (skipped, not failed), and
// with an access committed while the run is under way: stamped before the
// run's instant, it is not in the run (its ids were read before), and the
// next run folds it in.
func TestIncrementalThroughEveryPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, p := range []db.Path{db.PathDirect, db.PathSession, db.PathTransaction} {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			u := pgtest.URL(t)
			url := u
			switch p {
			case db.PathSession:
				url = pgtest.Bouncer(t, pgtest.SessionMode, u)
			case db.PathTransaction:
				url = pgtest.Bouncer(t, pgtest.TransactionMode, u)
			}
			octx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			inc, err := db.Open(octx, url, db.Options{ConnectTimeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(inc.Close)
			if got := db.PathOf(inc); got != p {
				t.Fatalf("path %s, want %s", got, p)
			}
			direct := pgtest.Open(t, u)
			full := pgtest.New(t)
			const n = 120
			seed(t, direct, n)
			seed(t, full, n)
			// A row an old app wrote: no UPDATE can touch it, so it is never
			// decayed and due every night.
			for _, q := range []*pgxpool.Pool{direct, full} {
				if _, err := q.Exec(ctx, `ALTER TABLE memories DROP CONSTRAINT memories_type_check;
					UPDATE memories SET type = 'legacy' WHERE id = (SELECT id FROM memories ORDER BY id LIMIT 1);
					ALTER TABLE memories ADD CONSTRAINT memories_type_check CHECK (type = ANY (ARRAY['episodic', 'semantic', 'procedural'])) NOT VALID`); err != nil {
					t.Fatal(err)
				}
			}
			o := Options{ForgetBelow: 0.8, ChunkSize: 7}
			at := created.Add(30 * 24 * time.Hour)
			for _, q := range []*pgxpool.Pool{inc, full} {
				o.At = at
				if _, err := Run(ctx, q, o); err != nil {
					t.Fatal(err)
				}
			}
			var late string
			for k := 1; k <= 2; k++ {
				prev := at
				at = at.Add(24 * time.Hour)
				night(t, direct, k, prev, at)
				night(t, full, k, prev, at)
				o.At, o.Full = at, false
				chunks := 0
				o.OnChunk = func(string, int64) {
					chunks++
					if k != 1 || chunks != 1 {
						return
					}
					// Committed during the run, stamped before its instant,
					// on a row the run does not have among its due ids.
					err := direct.QueryRow(ctx, `UPDATE memories SET last_accessed = $1 WHERE id = (
						SELECT id FROM memories WHERE type <> 'legacy' AND (last_accessed IS NULL OR last_accessed < $2)
						  AND (forget_at IS NULL OR forget_at > $3) AND decayed_at IS NOT NULL ORDER BY id DESC LIMIT 1)
						RETURNING id::text`, at.Add(-30*time.Minute), prev, at).Scan(&late)
					if err != nil {
						t.Error(err)
					}
				}
				ri, err := Run(ctx, inc, o)
				if err != nil {
					t.Fatal(err)
				}
				o.OnChunk = nil
				if ri.Mode != ModeIncremental || ri.Chunks < 3 || ri.Skipped != 1 {
					t.Fatalf("night %d: %+v, want an incremental run of several chunks with the legacy row skipped", k, ri)
				}
				if k == 1 {
					var reviewed *time.Time
					if err := direct.QueryRow(ctx, `SELECT reviewed_at FROM memories WHERE id = $1`, late).Scan(&reviewed); err != nil {
						t.Fatal(err)
					}
					if reviewed != nil && reviewed.Equal(at.Add(-30*time.Minute)) {
						t.Fatalf("the access committed during night 1's run was folded in by that run")
					}
				}
				o.Full = true
				if _, err := Run(ctx, full, o); err != nil {
					t.Fatal(err)
				}
				a, b := readState(t, direct, at), readState(t, full, at)
				if len(a) != len(b) {
					t.Fatalf("night %d: %d rows and %d", k, len(a), len(b))
				}
				for id, x := range b {
					if k == 1 && id == "m"+late {
						continue // accessed on one database only, so far
					}
					if y := a[id]; !closeTo(x.stability, y.stability) || !closeTo(x.difficulty, y.difficulty) ||
						!closeTo(x.retention, y.retention) || !x.reviewedAt.Equal(y.reviewedAt) || x.forgotten != y.forgotten {
						t.Fatalf("night %d, row %s: incremental through %s %+v, full %+v", k, id, p, y, x)
					}
				}
				if k == 1 {
					// The full database gets the late access before night 2's run.
					if _, err := full.Exec(ctx, `UPDATE memories SET last_accessed = $1 WHERE id = $2`, at.Add(-30*time.Minute), late); err != nil {
						t.Fatal(err)
					}
				}
			}
			var reviewed time.Time
			if err := direct.QueryRow(ctx, `SELECT reviewed_at FROM memories WHERE id = $1`, late).Scan(&reviewed); err != nil {
				t.Fatal(err)
			}
			if want := created.Add(31*24*time.Hour - 30*time.Minute); !reviewed.Equal(want) {
				t.Errorf("the access committed during night 1's run: reviewed_at %s after night 2, want %s", reviewed, want)
			}
		})
	}
}
