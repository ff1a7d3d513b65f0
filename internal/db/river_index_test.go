package db_test

import (
	"context"
	"testing"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

// TestRiverJobCountsIndex: migration 00280 indexes river_job after River's
// migrations created it (on a database helix never migrated), and migrate
// down removes the index again.
func TestRiverJobCountsIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := open(t, pgtest.Platform(t))
	exists := func() bool {
		t.Helper()
		var ok bool
		if err := pool.QueryRow(ctx, `SELECT to_regclass('helix_river_job_counts') IS NOT NULL AND to_regclass('river_job') IS NOT NULL`).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	migrateTo(t, pool, 0)
	if !exists() {
		t.Fatal("after migrate up: no helix_river_job_counts on river_job")
	}
	m, err := db.NewMigrator(pool)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Down(ctx, 279); err != nil {
		t.Fatal(err)
	}
	var idx bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('helix_river_job_counts') IS NOT NULL`).Scan(&idx); err != nil || idx {
		t.Fatalf("after migrate down to 279: index still there (%v)", err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if !exists() {
		t.Fatal("after migrate up again: no index")
	}
}
