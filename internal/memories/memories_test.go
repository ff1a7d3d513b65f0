package memories

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/helixhq/helix/internal/pgtest"
)

var now = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func TestDerivedIDsAreStable(t *testing.T) {
	in := `{"user_id":"11111111-1111-4111-8111-111111111111","type":"semantic","content":"Lisbon has trams","created_at":"2026-10-01T07:00:00Z"}`
	a, err := Parse(strings.NewReader(in), now)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(strings.NewReader(in), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if a[0].ID != b[0].ID {
		t.Fatalf("same line, different ids: %s %s", a[0].ID, b[0].ID)
	}
	c, _ := Parse(strings.NewReader(strings.Replace(in, "trams", "hills", 1)), now)
	if c[0].ID == a[0].ID {
		t.Fatal("different content, same id")
	}
	if !a[0].CreatedAt.Equal(time.Date(2026, 10, 1, 7, 0, 0, 0, time.UTC)) {
		t.Fatalf("created_at = %v", a[0].CreatedAt)
	}
}

func TestMissingCreatedAtIsNow(t *testing.T) {
	ms, err := Parse(strings.NewReader(`{"user_id":"11111111-1111-4111-8111-111111111111","type":"episodic","content":"x"}`), now)
	if err != nil || !ms[0].CreatedAt.Equal(now) {
		t.Fatalf("%v %v", ms, err)
	}
}

func TestInsertInsideCallersTransaction(t *testing.T) {
	tx := pgtest.Tx(t)
	ctx := context.Background()
	ms, err := Parse(strings.NewReader(
		`{"id":"aaaaaaaa-1111-4111-8111-111111111111","user_id":"11111111-1111-4111-8111-111111111111","type":"episodic","content":"a","embedding":[0.5,-0.25],"emotional_valence":-0.5}
{"id":"aaaaaaaa-1111-4111-8111-111111111111","user_id":"11111111-1111-4111-8111-111111111111","type":"episodic","content":"a again, same id"}
{"user_id":"11111111-1111-4111-8111-111111111111","type":"procedural","content":"b"}`), now)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Insert(ctx, tx, ms)
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != 3 || res.Inserted != 2 || res.Existing != 1 {
		t.Fatalf("result %+v", res)
	}
	var emb []float32
	var val float32
	if err := tx.QueryRow(ctx, `SELECT embedding, emotional_valence FROM memories WHERE id = 'aaaaaaaa-1111-4111-8111-111111111111'`).Scan(&emb, &val); err != nil {
		t.Fatal(err)
	}
	if len(emb) != 2 || emb[0] != 0.5 || emb[1] != -0.25 || val != -0.5 {
		t.Fatalf("stored embedding %v valence %v", emb, val)
	}
}
