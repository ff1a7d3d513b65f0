package synthstore

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/helixhq/helix/internal/memories"
	"github.com/helixhq/helix/internal/pgtest"
	"github.com/helixhq/helix/internal/synthesis"
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
		got := make([][]synthesis.Memory, len(users))
		calls := make([]int, len(users))
		err := Stream(ctx, pool, users, f, func(i int, ms []synthesis.Memory, err error) {
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
			if len(withEmb) > 0 && !backToBack(got[i], withEmb, 384) {
				t.Fatalf("%+v: user %s: embeddings not back to back", f, u)
			}
			if f == (Filter{}) && u == ana {
				a, errA := synthesis.Analyze(ctx, got[i], synthesis.DefaultParams())
				b, errB := synthesis.Analyze(ctx, want, synthesis.DefaultParams())
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
	if err := Stream(ctx, pool, users, Filter{}, func(i int, ms []synthesis.Memory, err error) {
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

// TestDecodeFloat4ArrayKernel: with the AVX2 kernel and without, every
// length from 0 to 70 decodes to pgx's values after what dst held, and an
// element whose length word is not 4, anywhere, is refused with its index.
func TestDecodeFloat4ArrayKernel(t *testing.T) {
	saved := hasFloat4Kernel
	defer func() { hasFloat4Kernel = saved }()
	if !saved {
		t.Log("no AVX2 on this CPU: only the Go loop runs")
	}
	for _, kernel := range []bool{saved, false} {
		hasFloat4Kernel = kernel
		for n := range 71 {
			v := make([]*float32, n)
			for i := range v {
				f := float32(i)*-1.5e-3 + float32(n)
				v[i] = &f
			}
			got, err := decodeFloat4Array(float4ArrayBinary(t, v), []float32{42})
			if err != nil || len(got) != n+1 || got[0] != 42 {
				t.Fatalf("kernel %v, %d elements: %d values, %v", kernel, n, len(got), err)
			}
			for i := range v {
				if math.Float32bits(got[i+1]) != math.Float32bits(*v[i]) {
					t.Fatalf("kernel %v, %d elements: [%d] = %v, want %v", kernel, n, i, got[i+1], *v[i])
				}
			}
			src := float4ArrayBinary(t, v)
			for bad := range n {
				b := slices.Clone(src)
				b[20+8*bad+3] = 5
				_, err := decodeFloat4Array(b, nil)
				if want := fmt.Sprintf("element %d is NULL or not 4 bytes", bad+1); err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("kernel %v, %d elements, a length of 5 at %d: %v, want %q", kernel, n, bad, err, want)
				}
			}
		}
	}
}

// TestEachStreamDroppedMidway: the stream's connection is killed after the
// first user was handed over and while most rows are still on the server.
// Every user is still handed over exactly once: those read before with
// their memories, every later one with the read error (a job is then
// retried, an in-process run reports them failed), none with both.
func TestEachStreamDroppedMidway(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	// 100 users × 30 memories of 1,536 reals: ~18 MB, past what the
	// sockets between server and client can buffer (Linux's tcp_rmem and
	// tcp_wmem allow 6 and 4 MB at most by default)
	var users []uuid.UUID
	var ms []memories.Memory
	for i := range 100 {
		u := uuid.NewSHA1(uuid.NameSpaceOID, []byte{'d', byte(i)})
		users = append(users, u)
		ms = append(ms, synthesis.Synthetic(u, 30, 1536, uint64(i+1))...)
	}
	if _, err := memories.Insert(ctx, pool, ms); err != nil {
		t.Fatal(err)
	}
	states, err := Snapshots(ctx, pool, users, Filter{}, synthesis.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	calls := map[int]int{}
	var ok, failed int
	first := make(chan struct{})
	var once sync.Once
	Each(ctx, pool, users, StateOf(states), Filter{}, 1, func(i int, read *Read) {
		once.Do(func() {
			// the stream is the only other query of this database now
			var n int
			if err := pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%row_number() OVER%'`).Scan(&n); err != nil || n != 1 {
				t.Errorf("terminated %d stream backends (%v), want 1", n, err)
			}
			close(first)
		})
		mu.Lock()
		defer mu.Unlock()
		calls[i]++
		switch {
		case read.Err != nil && read.Memories == nil && strings.Contains(read.Err.Error(), "read memories"):
			failed++
		case read.Err == nil && len(read.Memories) == 30 && read.State != nil:
			ok++
		default:
			t.Errorf("user %d: %d memories, state %v, error %v: want 30 memories and a state, or an error alone", i, len(read.Memories), read.State != nil, read.Err)
		}
	})
	for i := range users {
		if calls[i] != 1 {
			t.Errorf("user %d handed over %d times, want once", i, calls[i])
		}
	}
	if ok == 0 || failed == 0 {
		t.Fatalf("%d users read and %d failed: want some of each (the connection was killed after the first)", ok, failed)
	}
	t.Logf("%d users read before the connection dropped, %d failed with the read error", ok, failed)
}

// TestEachOutlastsStatementTimeout: a run over many users takes longer than
// the server's statement_timeout, because each user's analysis holds the
// stream back; Each reads a window of users a query, so no query lives as
// long as the run and every user is read. The control: the same run in one
// query is cancelled by the timeout. (Scaled down from StreamWindow: windows
// of 8 users, each user's analysis 20 ms, statement_timeout 1 s; a window's
// query lasts ~0.16 s, the run ~4 s.)
func TestEachOutlastsStatementTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := pgtest.URL(t)
	pool := pgtest.Open(t, u)
	// 200 users × 8 memories of 1,536 reals, ~20 MB on the wire: past what
	// the sockets between server and client can buffer (Linux's tcp_wmem and
	// tcp_rmem allow 4 and 6 MB at most by default), so the server waits on
	// the reader, which takes a user every 20 ms (5 MB/s): one query for
	// the whole run would last ~2 s, twice the timeout
	const (
		window  = 8
		pause   = 20 * time.Millisecond
		timeout = time.Second
	)
	users := make([]uuid.UUID, 25*window+1)
	var ms []memories.Memory
	for i := range users {
		users[i] = uuid.NewSHA1(uuid.NameSpaceOID, []byte{'w', byte(i), byte(i >> 8)})
		ms = append(ms, synthesis.Synthetic(users[i], 8, 1536, uint64(i+1))...)
	}
	if _, err := memories.Insert(ctx, pool, ms); err != nil {
		t.Fatal(err)
	}
	states, err := Snapshots(ctx, pool, users, Filter{}, synthesis.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	short := pgtest.Open(t, u+sep+"statement_timeout="+fmt.Sprint(timeout.Milliseconds()))
	run := func(size int) (read int, errs []error, took time.Duration) {
		start := time.Now()
		var mu sync.Mutex
		each(ctx, short, users, StateOf(states), Filter{}, 1, size, func(i int, r *Read) {
			if r.Err != nil {
				mu.Lock()
				defer mu.Unlock()
				errs = append(errs, r.Err)
				return
			}
			time.Sleep(pause)
			mu.Lock()
			defer mu.Unlock()
			if len(r.Memories) != 8 {
				t.Errorf("user %d: %d memories", i, len(r.Memories))
			}
			read++
		})
		return read, errs, time.Since(start)
	}
	read, errs, took := run(window)
	if took <= timeout {
		t.Fatalf("the run took %v, not past the %v statement_timeout: the test shows nothing", took, timeout)
	}
	if read != len(users) || len(errs) > 0 {
		t.Fatalf("%d of %d users read; errors: %v", read, len(users), errs)
	}
	read, errs, _ = run(len(users))
	if len(errs) == 0 || !strings.Contains(errs[0].Error(), "statement timeout") {
		t.Fatalf("one query for the whole run: %d users read, errors %v; want the statement timeout to cut it", read, errs)
	}
}

// TestEachRecyclesEmbeddingArrays: Each reads a user's embeddings into an
// array an earlier user's analysis is done with, never into one still in
// use: every user, listed twice or not, gets what Load reads for it, while
// fn scribbles over its embeddings (as Analyze normalises them in place)
// and takes its time, so that the stream reads ahead; and arrays are
// reused (the first embedding of a later user lies where an earlier one's
// did).
func TestEachRecyclesEmbeddingArrays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	var users []uuid.UUID
	var ms []memories.Memory
	for i := range 40 {
		u := uuid.NewSHA1(uuid.NameSpaceOID, []byte{'r', byte(i)})
		users = append(users, u)
		ms = append(ms, synthesis.Synthetic(u, 20+i%3, 64, uint64(i+1))...)
	}
	if _, err := memories.Insert(ctx, pool, ms); err != nil {
		t.Fatal(err)
	}
	users = append(users, users[3], users[17])
	states, err := Snapshots(ctx, pool, users, Filter{}, synthesis.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	arrays := map[*float32]int{}
	calls := make([]int, len(users))
	each(ctx, pool, users, StateOf(states), Filter{}, 3, 16, func(i int, read *Read) {
		if read.Err != nil {
			t.Errorf("user %d: %v", i, read.Err)
			return
		}
		want, err := Load(ctx, pool, users[i], Filter{})
		if err != nil {
			t.Error(err)
			return
		}
		if !reflect.DeepEqual(read.Memories, want) {
			t.Errorf("user %d: Each's memories differ from Load's", i)
		}
		time.Sleep(5 * time.Millisecond)
		for _, m := range read.Memories {
			for k := range m.Embedding {
				m.Embedding[k] = -1
			}
		}
		mu.Lock()
		defer mu.Unlock()
		calls[i]++
		arrays[&read.Memories[0].Embedding[0]]++
	})
	for i, n := range calls {
		if n != 1 {
			t.Errorf("user %d handed over %d times", i, n)
		}
	}
	if len(arrays) > len(users)/2 {
		t.Errorf("%d users' embeddings in %d arrays: not reused", len(users), len(arrays))
	}
	t.Logf("%d users' embeddings in %d arrays", len(users), len(arrays))
}
