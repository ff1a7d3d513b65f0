package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/helixhq/helix/internal/embed"
	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/scrub"
)

var (
	ana = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	ben = uuid.MustParse("22222222-2222-4222-8222-222222222222")
)

const dim = 16

// queryVec is what the fake provider answers for every query.
var queryVec = func() []float32 {
	v := make([]float32, dim)
	v[3], v[7] = 1, 1
	return v
}()

type fixedEmbedder struct{ calls int }

func (f *fixedEmbedder) Embed(_ context.Context, in []string) ([][]float32, error) {
	f.calls++
	return [][]float32{queryVec}, nil
}

var words = []string{"meeting", "train", "weather", "coffee", "email", "budget", "walk", "music", "report", "dentist",
	"groceries", "laundry", "football", "cinema", "garden", "holiday", "invoice", "printer", "lunch", "traffic"}

// planted: A matches the query in both text and vector, B only in text, C only in vector.
func planted(t testing.TB) (pool *pgxpool.Pool, a, b, c uuid.UUID) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	randVec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		v[3], v[7] = 0, 0 // far from the query
		return v
	}
	var ms []memories.Memory
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	add := func(user uuid.UUID, content string, emb []float32) uuid.UUID {
		m := memories.Memory{ID: uuid.New(), UserID: user, Type: "episodic", Content: content, Embedding: emb, CreatedAt: at.Add(time.Duration(len(ms)) * time.Minute)}
		ms = append(ms, m)
		return m.ID
	}
	for i := range 300 {
		s := fmt.Sprintf("%s %s %s and %s", words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[i%len(words)])
		add(ana, s, randVec())
	}
	near := func(eps float32) []float32 {
		v := append([]float32(nil), queryVec...)
		v[0] = eps
		return v
	}
	a = add(ana, "Fed the sourdough starter before work; it doubled by noon", near(0.3))
	b = add(ana, "Sourdough starter smelled of acetone, the starter needs feeding twice a day", randVec())
	c = add(ana, "The loaf rose overnight on the kitchen counter", near(0.05))
	// another user's perfect match must never appear
	add(ben, "sourdough starter sourdough starter", near(0))
	// a row of another dimension is skipped, not fatal
	add(ana, "a jar on the shelf", []float32{1, 2, 3})
	pool = pgtest.New(t)
	if _, err := memories.Insert(context.Background(), pool, ms); err != nil {
		t.Fatal(err)
	}
	return pool, a, b, c
}

func top(rep *Report, n int) []uuid.UUID {
	var out []uuid.UUID
	for _, r := range rep.Results[:min(n, len(rep.Results))] {
		out = append(out, r.ID)
	}
	return out
}

func TestPlantedRankFirstInEachMode(t *testing.T) {
	ctx := context.Background()
	pool, a, b, c := planted(t)
	// one memory made by another model: never compared with this model's query
	if _, err := pool.Exec(ctx, `UPDATE memories SET embedding_model = 'other-model' WHERE id = $1`, c); err != nil {
		t.Fatal(err)
	}
	e := &fixedEmbedder{}
	p := Params{User: ana, Query: "How is my sourdough starter doing?", Limit: 5, Model: "m"}

	p.Mode = Text
	rep, err := Search(ctx, pool, e, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := top(rep, 3); len(got) != 2 || !(got[0] == a && got[1] == b || got[0] == b && got[1] == a) || e.calls != 0 {
		t.Fatalf("text: %v, want A and B only; %d provider calls", got, e.calls)
	}
	if rep.Results[0].Vector != nil || rep.Results[0].Text.Score <= rep.Results[1].Text.Score || *rep.Results[0].Content == "" {
		t.Fatalf("text scores %+v", rep.Results[:2])
	}

	p.Mode = Vector
	if rep, err = Search(ctx, pool, e, p); err != nil {
		t.Fatal(err)
	}
	if got := top(rep, 1); got[0] != a || rep.SkippedOtherModel != 1 || rep.SkippedDimension != 1 || rep.VectorMethod != "go" {
		t.Fatalf("vector: top %v (A %v), skipped model %d dim %d", got, a, rep.SkippedOtherModel, rep.SkippedDimension)
	}
	if _, err := pool.Exec(ctx, `UPDATE memories SET embedding_model = NULL WHERE id = $1`, c); err != nil {
		t.Fatal(err)
	}
	if rep, err = Search(ctx, pool, e, p); err != nil {
		t.Fatal(err)
	}
	if got := top(rep, 2); got[0] != c || got[1] != a || rep.Results[0].Vector.Score < 0.99 || rep.Results[0].Text != nil {
		t.Fatalf("vector: top %v, want [C A]", got)
	}

	p.Mode = Hybrid
	if rep, err = Search(ctx, pool, e, p); err != nil {
		t.Fatal(err)
	}
	if got := top(rep, 3); got[0] != a || rep.Results[0].Text == nil || rep.Results[0].Vector == nil {
		t.Fatalf("hybrid: top %v, want A (ranked by both sides) first", got)
	}
	for _, r := range rep.Results {
		if r.ID != a && r.ID != b && r.ID != c && r.Text != nil {
			t.Errorf("filler %v ranked by text", r.ID)
		}
	}

	// no provider: hybrid is text only; vector is an error
	if rep, err = Search(ctx, pool, nil, Params{User: ana, Query: "sourdough", Mode: Hybrid, Limit: 5}); err != nil || rep.Mode != Text || len(rep.Results) != 2 {
		t.Fatalf("hybrid without provider: %+v %v", rep, err)
	}
	if _, err := Search(ctx, pool, nil, Params{User: ana, Query: "sourdough", Mode: Vector}); !errors.Is(err, ErrNoProvider) {
		t.Fatalf("vector without provider: %v", err)
	}
	// nothing matches: no results, no error
	if rep, err = Search(ctx, pool, nil, Params{User: ana, Query: "the and of", Mode: Text}); err != nil || len(rep.Results) != 0 {
		t.Fatalf("stop words only: %+v %v", rep, err)
	}
}

// TestHybridSaysWhenItWasTextOnly: embeddings all made by another model
// leave the vector side empty; hybrid then reports mode text and says why,
// with the fix.
func TestHybridSaysWhenItWasTextOnly(t *testing.T) {
	ctx := context.Background()
	pool, a, b, _ := planted(t)
	if _, err := pool.Exec(ctx, `UPDATE memories SET embedding_model = 'text-embedding-3-small' WHERE embedding IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	p := Params{User: ana, Query: "sourdough starter", Mode: Hybrid, Limit: 5, Model: "nomic-embed-text"}
	rep, err := Search(ctx, pool, &fixedEmbedder{}, p)
	if err != nil {
		t.Fatal(err)
	}
	want := "no embeddings by nomic-embed-text: the user's 304 embeddings were made by another model; run helix embed --user-id " + ana.String() + " --reembed"
	if rep.Mode != Text || len(rep.VectorEmpty) < len(want) || rep.VectorEmpty[:len(want)] != want {
		t.Errorf("mode %q, vector_empty %q; want text and %q", rep.Mode, rep.VectorEmpty, want)
	}
	if got := top(rep, 2); len(got) != 2 || !(got[0] == a || got[0] == b) || rep.Results[0].Vector != nil {
		t.Errorf("results %v", got)
	}
	// a user with no embeddings at all is told to run embed
	if _, err := pool.Exec(ctx, `UPDATE memories SET embedding = NULL, embedding_model = NULL`); err != nil {
		t.Fatal(err)
	}
	p.Mode = Vector
	if rep, err = Search(ctx, pool, &fixedEmbedder{}, p); err != nil || rep.Mode != Vector || len(rep.Results) != 0 ||
		rep.VectorEmpty != "the user has no embeddings yet; run helix embed --user-id "+ana.String() {
		t.Errorf("no embeddings: %+v %v", rep, err)
	}
}

func TestTriggerAndReindex(t *testing.T) {
	ctx := context.Background()
	pool, _, b, _ := planted(t)
	if _, err := pool.Exec(ctx, `UPDATE memories SET content = 'Gatos y perros corriendo' WHERE id = $1`, b); err != nil {
		t.Fatal(err)
	}
	rep, err := Search(ctx, pool, nil, Params{User: ana, Query: "sourdough starter", Mode: Text, Limit: 10})
	if err != nil || len(rep.Results) != 1 {
		t.Fatalf("after the update: %d results, %v", len(rep.Results), err)
	}
	if rep, _ = Search(ctx, pool, nil, Params{User: ana, Query: "corriendo", Mode: Text}); len(rep.Results) != 1 || rep.Language != "english" {
		t.Fatalf("english: %+v", rep)
	}
	n, err := Reindex(ctx, pool, "spanish")
	if err != nil || n < 300 {
		t.Fatalf("reindex: %d %v", n, err)
	}
	// Spanish stems "corriendo" and "corre" alike
	if rep, _ = Search(ctx, pool, nil, Params{User: ana, Query: "corre", Mode: Text}); len(rep.Results) != 1 || rep.Language != "spanish" {
		t.Fatalf("spanish: %+v", rep)
	}
	if _, err := Reindex(ctx, pool, "klingon"); err == nil {
		t.Fatal("an unknown configuration was accepted")
	}
	// a deleted memory leaves the index with it
	if _, err := pool.Exec(ctx, `DELETE FROM memories WHERE id = $1`, b); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM helix_memory_search WHERE memory_id = $1`, b).Scan(&left); err != nil || left != 0 {
		t.Fatalf("index row left behind: %d %v", left, err)
	}
}

func TestFuse(t *testing.T) {
	x, y, z := uuid.New(), uuid.New(), uuid.New()
	rs := Fuse(10, []hit{{id: x, score: 0.9}, {id: y, score: 0.5}}, []hit{{id: y, score: 0.8}, {id: z, score: 0.7}})
	if len(rs) != 3 || rs[0].ID != y || rs[0].Text.Rank != 2 || rs[0].Vector.Rank != 1 {
		t.Fatalf("fused %+v: want y first (ranked by both)", rs)
	}
	want := 1.0/61 + 1.0/62
	if d := rs[0].Score - want; d > 1e-6 || d < -1e-6 {
		t.Fatalf("score %v, want %v", rs[0].Score, want)
	}
	if rs[1].ID != x || rs[2].ID != z || rs[2].Text != nil {
		t.Fatalf("order %v %v", rs[1].ID, rs[2].ID)
	}
	if len(Fuse(1, []hit{{id: x, score: 1}}, nil)) != 1 || len(Fuse(5, nil, nil)) != 0 {
		t.Fatal("limit")
	}
}

// TestPlatformRowWithoutCreatedAt: the platform's memories.created_at is
// nullable; such a row is found, with a null created_at, whether its row is
// read with the text ranking (text mode) or afterwards (hybrid).
func TestPlatformRowWithoutCreatedAt(t *testing.T) {
	ctx := context.Background()
	pool, a, _, _ := planted(t)
	if _, err := pool.Exec(ctx, `ALTER TABLE memories ALTER COLUMN created_at DROP NOT NULL;
		UPDATE memories SET created_at = NULL WHERE id = '`+a.String()+`'`); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{Text, Hybrid} {
		rep, err := Search(ctx, pool, &fixedEmbedder{}, Params{User: ana, Query: "sourdough starter", Mode: mode, Limit: 5, Model: "m"})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		var found bool
		for _, r := range rep.Results {
			switch {
			case r.ID == a:
				found = r.CreatedAt == nil && r.Content != nil
			case r.CreatedAt == nil:
				t.Errorf("%s: %s lost its created_at", mode, r.ID)
			}
		}
		if !found {
			t.Errorf("%s: the row without created_at is missing or wrong: %+v", mode, rep.Results)
		}
	}
}

// providerEmbedder is the embeddings client as helix memory search uses it.
type providerEmbedder struct{ c *embed.Client }

func (p providerEmbedder) Embed(ctx context.Context, in []string) ([][]float32, error) {
	v, _, err := p.c.Embed(ctx, in)
	return v, err
}

// Issue 32, finding 7: the query goes to the embeddings server scrubbed
// with the same scrubber as memory content (scrub.Text): an email and an
// API key typed into a search never leave the machine.
func TestQueryScrubbedBeforeEmbedding(t *testing.T) {
	pool, _, _, c := planted(t)
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Input) != 1 {
			http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
			return
		}
		got = append(got, req.Input...)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model,
			"data": []map[string]any{{"object": "embedding", "index": 0, "embedding": queryVec}}, "usage": map[string]int{"prompt_tokens": 5, "total_tokens": 5}})
	}))
	defer srv.Close()
	e := providerEmbedder{&embed.Client{BaseURL: srv.URL, Model: "m", HTTP: srv.Client()}}
	const email, key = "ana.lopez@example.com", "sk-proj-4f9Kx2LmQ8vT1zR7yW3nB6cD0eH5jA"
	q := "sourdough starter " + email + " " + key
	rep, err := Search(context.Background(), pool, e, Params{User: ana, Query: q, Mode: Vector, Limit: 5, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := scrub.Text(q)
	if len(got) != 1 || got[0] != want || strings.Contains(got[0], email) || strings.Contains(got[0], key) {
		t.Errorf("the provider got %q, want %q", got, want)
	}
	if rep.QueryScrubbed != 2 || len(rep.Results) == 0 || rep.Results[0].ID != c {
		t.Errorf("scrubbed %d, results %v", rep.QueryScrubbed, top(rep, 3))
	}
}

// FuzzQuery: a search query (outside bytes, typed by a user) never fails
// the full-text side: any text without NUL (the CLI refuses those as bad
// input) runs, and finds only the user's own memories.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{"sourdough starter", "it's", `a' | 'b`, "!&|:*()", "don't:* & !x", "ünïcødé 東京", "''''", `\`, "a\tb\nc", "       "} {
		f.Add(s)
	}
	pool, _, _, _ := planted(f)
	f.Fuzz(func(t *testing.T, q string) {
		if err := CheckQuery(q); err != nil {
			return
		}
		rep, err := Search(context.Background(), pool, nil, Params{User: ana, Query: q, Mode: Text, Limit: 5})
		if err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		for _, r := range rep.Results {
			if r.Content == nil {
				t.Fatalf("query %q: result %s without its row", q, r.ID)
			}
		}
	})
}
