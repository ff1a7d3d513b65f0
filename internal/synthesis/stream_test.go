package synthesis

import (
	"context"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/helixhq/helix/internal/memories"
)

// TestStreamEqualsLoad: one streamed query hands every user exactly what
// Load reads for that user (same memories, order, embeddings, layout), for
// users given out of order, listed twice or without memories, with every
// filter; and Analyze finds the same patterns in both.
func TestStreamEqualsLoad(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	ctx := context.Background()
	// A user with embeddings of two dimensions, one without any, a NULL content.
	odd := uuid.MustParse("55555555-5555-4555-8555-555555555555")
	var extra []memories.Memory
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 12 {
		m := memories.Memory{ID: uuid.NewSHA1(odd, []byte{byte(i)}), UserID: odd, Type: "episodic",
			Content: "odd memory", CreatedAt: start.Add(time.Duration(i) * time.Hour)}
		switch i % 3 {
		case 0:
			m.Embedding = []float32{1, 2, 3, float32(i)}
		case 1:
			m.Embedding = []float32{float32(i), 1}
		}
		extra = append(extra, m)
	}
	if _, err := memories.Insert(ctx, pool, extra); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ALTER TABLE memories ALTER content DROP NOT NULL`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE memories SET content = NULL WHERE id = $1`, extra[4].ID); err != nil {
		t.Fatal(err)
	}
	all, err := Users(ctx, pool, Filter{})
	if err != nil || len(all) != 5 {
		t.Fatalf("users %v, %v", all, err)
	}
	nobody := uuid.MustParse("00000000-0000-4000-8000-000000000000")
	last := uuid.MustParse("ffffffff-ffff-4fff-bfff-ffffffffffff")
	users := append([]uuid.UUID{last, all[2], nobody}, all...)
	users = append(users, all[0])
	ref, _ := Load(ctx, pool, ana, Filter{})
	for _, f := range []Filter{{}, {Limit: 7}, {Since: ref[150].CreatedAt}, {Since: ref[150].CreatedAt, Limit: 20}} {
		got := make([][]Memory, len(users))
		calls := make([]int, len(users))
		err := Stream(ctx, pool, users, f, func(i int, ms []Memory, err error) {
			if err != nil {
				t.Fatalf("user %s: %v", users[i], err)
			}
			got[i] = ms
			calls[i]++
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, u := range users {
			want, err := Load(ctx, pool, u, f)
			if err != nil {
				t.Fatal(err)
			}
			if calls[i] != 1 {
				t.Fatalf("%+v: user %s delivered %d times", f, u, calls[i])
			}
			if !reflect.DeepEqual(got[i], want) {
				for k := range min(len(got[i]), len(want)) {
					if !reflect.DeepEqual(got[i][k], want[k]) {
						t.Logf("memory %d: stream %+v\nLoad %+v", k, got[i][k], want[k])
						break
					}
				}
				t.Fatalf("%+v: user %s: stream gave %d memories, Load %d (or they differ)", f, u, len(got[i]), len(want))
			}
			var withEmb []int
			for k, m := range got[i] {
				if len(m.Embedding) == 384 {
					withEmb = append(withEmb, k)
				}
			}
			if len(withEmb) > 0 && contiguous(got[i], withEmb, 384) == nil {
				t.Fatalf("%+v: user %s: embeddings not back to back", f, u)
			}
			if f == (Filter{}) && u == ana {
				a, errA := Analyze(ctx, got[i], DefaultParams())
				b, errB := Analyze(ctx, want, DefaultParams())
				if errA != nil || errB != nil || len(a) < 10 || !reflect.DeepEqual(a, b) {
					t.Fatalf("Analyze: %d patterns from the stream, %d from Load (%v, %v)", len(a), len(b), errA, errB)
				}
			}
		}
	}
}

// TestStreamBadEmbeddingFailsOneUser: an embedding with a NULL element fails
// its user; the users after it are still read.
func TestStreamBadEmbeddingFailsOneUser(t *testing.T) {
	t.Parallel()
	pool := demoDB(t)
	ctx := context.Background()
	users, err := Users(ctx, pool, Filter{})
	if err != nil || len(users) < 3 {
		t.Fatalf("users %v, %v", users, err)
	}
	if _, err := pool.Exec(ctx, `UPDATE memories SET embedding[2] = NULL
		WHERE id = (SELECT id FROM memories WHERE user_id = $1 AND embedding IS NOT NULL LIMIT 1)`, users[1]); err != nil {
		t.Fatal(err)
	}
	var failed []int
	read := map[int]int{}
	if err := Stream(ctx, pool, users, Filter{}, func(i int, ms []Memory, err error) {
		if err != nil {
			failed = append(failed, i)
		}
		read[i] = len(ms)
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(failed, []int{1}) || read[0] == 0 || read[2] == 0 {
		t.Fatalf("failed users %v, memories read %v", failed, read)
	}
}

func float4ArrayBinary(t testing.TB, v any) []byte {
	t.Helper()
	b, err := pgtype.NewMap().Encode(pgtype.Float4ArrayOID, pgtype.BinaryFormatCode, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzDecodeFloat4Array: the hand-written decoder of real[]'s binary format
// agrees with pgx's own decoding on any bytes: same values, or both refuse
// (pgx may accept more: multi-dimensional arrays, which the decoder refuses).
func FuzzDecodeFloat4Array(f *testing.F) {
	f.Add(float4ArrayBinary(f, []float32{1, -2.5, float32(math.Inf(1)), 3e-38}))
	f.Add(float4ArrayBinary(f, []float32{}))
	f.Add(float4ArrayBinary(f, []*float32{nil}))
	f.Add(float4ArrayBinary(f, [][]float32{{1, 2}, {3, 4}}))
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 188, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 4, 63, 128, 0})
	f.Fuzz(func(t *testing.T, src []byte) {
		got, err := decodeFloat4Array(src, nil)
		var want []float32
		werr := pgtype.NewMap().Scan(pgtype.Float4ArrayOID, pgtype.BinaryFormatCode, src, &want)
		if err != nil {
			return // refusing is always safe: the user fails with the error
		}
		if werr != nil {
			t.Fatalf("decoded %v where pgx refuses: %v", got, werr)
		}
		if len(got) != len(want) {
			t.Fatalf("decoded %d elements, pgx %d", len(got), len(want))
		}
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("element %d: %v, pgx %v", i, got[i], want[i])
			}
		}
	})
}

func TestDecodeFloat4ArrayErrors(t *testing.T) {
	for name, src := range map[string][]byte{
		"short":     {0, 0, 0, 1},
		"null elem": float4ArrayBinary(t, []*float32{nil}),
		"2-d":       float4ArrayBinary(t, [][]float32{{1}, {2}}),
		"truncated": float4ArrayBinary(t, []float32{1, 2})[:25],
	} {
		if _, err := decodeFloat4Array(src, nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if got, err := decodeFloat4Array(nil, []float32{9}); err != nil || !slices.Equal(got, []float32{9}) {
		t.Errorf("NULL array: %v %v", got, err)
	}
}
