package worker

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/pgtest"
)

// TestReadyzSchema: /readyz on a migrated database is 200; with a
// migration pending (helix's last one rolled back) it is 503 and says so.
func TestReadyzSchema(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	mig, err := db.NewMigrator(pool)
	if err != nil {
		t.Fatal(err)
	}
	defer mig.Close()
	h := &health{pool: pool, pending: mig.Pending, stopped: make(chan struct{})}
	ready := func() (int, string) {
		rec := httptest.NewRecorder()
		h.readyz(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := ready(); code != 503 || !strings.Contains(body, "starting") {
		t.Errorf("before start: %d %s", code, body)
	}
	h.started.Store(true)
	if code, body := ready(); code != 200 {
		t.Fatalf("migrated: %d %s", code, body)
	}
	st, err := mig.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	for _, s := range st {
		if s.Source == "helix" && s.Applied {
			last = s.Version
		}
	}
	var prev int64
	for _, s := range st {
		if s.Source == "helix" && s.Version < last {
			prev = s.Version
		}
	}
	if _, err := mig.Down(context.Background(), prev); err != nil {
		t.Fatal(err)
	}
	h.checked, h.schemaAt = h.checked.AddDate(0, 0, -1), h.schemaAt.AddDate(0, 0, -1) // past the probes' caches
	if code, body := ready(); code != 503 || !strings.Contains(body, "schema: 1 migrations pending") {
		t.Errorf("a migration pending: %d %s", code, body)
	}
	h.draining.Store(true)
	if code, body := ready(); code != 503 || !strings.Contains(body, "draining") {
		t.Errorf("draining: %d %s", code, body)
	}
}
