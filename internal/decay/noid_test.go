package decay

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
)

// Issue 49, item 1: the platform's literal psychology_layers lets id be
// NULL. Such a row cannot be addressed by id: every run (full, then
// incremental, and a one-user run) skips it, counts it and names it in a
// warning, and none fails. Before the fix the incremental run failed with
// "find due rows: cannot scan NULL into *[16]byte". Rows whose other
// columns the documents leave nullable (a layer's layer_number and
// last_updated, a memory's created_at) are decayed without failing the run
// (before, with --forget-below: null value in column "forgotten"), and a
// layer without a number keeps the decay_rate the platform wrote.
func TestLayerWithoutIDIsSkippedAndNamed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.MigratedPlatform(t)
	const user = "a0000000-0000-4000-8000-000000000001" // rows.sql's user A
	if _, err := pool.Exec(ctx, `INSERT INTO psychology_layers (id, user_id, layer_number, layer_name, data, decay_rate, last_updated)
		VALUES (NULL, $1, 3, 'beliefs (copy)', '{}', 0.1, '2026-10-01 00:00Z'),
		       ('c0000000-0000-4000-8000-00000000000c', $1, NULL, 'no number', '{}', 0.3, NULL)`, user); err != nil {
		t.Fatal(err)
	}
	// And a memory without created_at: its retention is unknown, which
	// --forget-below must not turn into a NULL flag.
	if _, err := pool.Exec(ctx, `INSERT INTO memories (id, user_id, type, content, created_at)
		VALUES ('c0000000-0000-4000-8000-0000000000ad', $1, 'semantic', 'no time', NULL)`, user); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	o := Options{Log: slog.New(slog.NewTextHandler(&logs, nil)), ForgetBelow: 0.5}
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i, c := range []struct {
		mode, user string
		legacy     int64 // rows.sql's memories of type 'reflective', one a user
	}{{ModeFull, "", 2}, {ModeIncremental, "", 2}, {ModeIncremental, "", 2}, {ModeFull, user, 1}} {
		logs.Reset()
		o.At, o.UserID = at.Add(time.Duration(i)*24*time.Hour), c.user
		res, err := Run(ctx, pool, o)
		if err != nil {
			t.Fatalf("run %d (%s): %v", i+1, c.mode, err)
		}
		if res.Mode != c.mode || res.NoID != 1 || res.Skipped != 1+c.legacy || res.Layers != 15 && c.mode == ModeFull && c.user == "" {
			t.Errorf("run %d: %+v, want a %s run with the layer without an id skipped and counted", i+1, res, c.mode)
		}
		if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "without an id") ||
			!strings.Contains(logs.String(), "user_id="+user+" layer_number=3") {
			t.Errorf("run %d: no warning naming the row:\n%s", i+1, logs.String())
		}
	}
	var decayed int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM psychology_layers WHERE id IS NULL AND decayed_at IS NOT NULL`).Scan(&decayed); err != nil || decayed != 0 {
		t.Errorf("%d rows without an id decayed (%v)", decayed, err)
	}
	// A layer without a layer_number has no model: decayed, its decay_rate
	// (which the apps read) is left as the platform wrote it.
	var rate float64
	if err := pool.QueryRow(ctx, `SELECT decay_rate FROM psychology_layers WHERE layer_number IS NULL`).Scan(&rate); err != nil || rate != 0.3 {
		t.Errorf("decay_rate of the layer without a number: %v (%v), want 0.3 as written", rate, err)
	}
	var runs int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM job_runs WHERE job = 'decay' AND status = 'ok'`).Scan(&runs); err != nil || runs != 4 {
		t.Errorf("%d decay runs ok (%v), want 4", runs, err)
	}
}
