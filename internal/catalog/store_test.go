package catalog

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
)

func TestStoreDedupesAndPins(t *testing.T) {
	ctx := context.Background()
	tx := pgtest.Tx(t)
	if _, err := Pinned(ctx, tx); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("empty database: Pinned = %v, want ErrNoSnapshot", err)
	}
	oldRaw := testdata(t, "api-2026-06-14.json")
	oldCat, err := Parse(oldRaw)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 6, 14, 8, 0, 0, 0, time.UTC)
	first, err := Store(ctx, tx, Snapshot{Source: "https://models.dev/api.json", FetchedAt: at, ETag: `"v1"`}, oldCat)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created || !first.Snapshot.Pinned || first.Snapshot.Models != oldCat.ModelCount() || len(first.Snapshot.SHA256) != 64 {
		t.Fatalf("first store: %+v", first)
	}
	pinned, err := Pinned(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	if pinned.ID != first.Snapshot.ID || pinned.ETag != `"v1"` || pinned.Providers != len(oldCat) || !pinned.FetchedAt.Equal(at) {
		t.Errorf("pinned = %+v", pinned)
	}

	// Loading back gives the same content, byte for byte in canonical form.
	loaded, err := Load(ctx, tx, pinned.ID)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := oldCat.Canonical()
	b, _ := loaded.Canonical()
	if sum, _ := loaded.Sum(); !reflect.DeepEqual(generic(t, a), generic(t, b)) || sum != pinned.SHA256 {
		t.Fatal("loaded snapshot differs from what was stored")
	}

	some, err := Load(ctx, tx, pinned.ID, "openai", "groq")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(some.ProviderIDs(), []string{"groq", "openai"}) || some.ModelCount() != len(oldCat["openai"].Models)+len(oldCat["groq"].Models) {
		t.Errorf("Load of two providers gave %v, %d models", some.ProviderIDs(), some.ModelCount())
	}

	// Same content again (parsed afresh): no new snapshot.
	again, _ := Parse(oldRaw)
	second, err := Store(ctx, tx, Snapshot{Source: "https://models.dev/api.json", FetchedAt: at.Add(time.Hour)}, again)
	if err != nil {
		t.Fatal(err)
	}
	if second.Created || second.Snapshot.ID != first.Snapshot.ID {
		t.Fatalf("identical content stored twice: %+v", second)
	}

	newCat, err := Parse(testdata(t, "api-2026-07-02.json"))
	if err != nil {
		t.Fatal(err)
	}
	third, err := Store(ctx, tx, Snapshot{Source: "https://models.dev/api.json", FetchedAt: at.Add(48 * time.Hour)}, newCat)
	if err != nil {
		t.Fatal(err)
	}
	if !third.Created || third.Snapshot.ID == first.Snapshot.ID {
		t.Fatalf("new content not stored: %+v", third)
	}
	// Re-fetching the old content pins the old snapshot again.
	if _, err := Store(ctx, tx, Snapshot{Source: "x", FetchedAt: at}, oldCat); err != nil {
		t.Fatal(err)
	}
	var snapshots, pinnedCount, models int
	if err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE pinned), (SELECT count(*) FROM model_catalog_models) FROM model_catalog_snapshots`).
		Scan(&snapshots, &pinnedCount, &models); err != nil {
		t.Fatal(err)
	}
	if snapshots != 2 || pinnedCount != 1 || models != oldCat.ModelCount()+newCat.ModelCount() {
		t.Errorf("%d snapshots, %d pinned, %d model rows", snapshots, pinnedCount, models)
	}
	if p, _ := Pinned(ctx, tx); p.ID != first.Snapshot.ID {
		t.Errorf("pinned %d, want %d", p.ID, first.Snapshot.ID)
	}
}
