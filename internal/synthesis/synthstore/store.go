// Package synthstore is synthesis's PostgreSQL side: which users changed
// (change markers and recorded states), reading their memories (one user,
// or a stream of many), writing their patterns and states (one user, or a
// batch in one transaction), and Each, the run over many users that
// `helix synthesize --all-users` and the synthesize jobs share. The
// analysis itself is package synthesis, which touches no database.
package synthstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/lineage"
	"github.com/helixhq/helix/internal/synthesis"
)

// Filter selects the memories a run reads.
type Filter struct {
	Since time.Time // zero: all
	Limit int       // most recent N per user; 0: all
}

// Users lists the users who have memories matching f, in id order.
func Users(ctx context.Context, q db.Querier, f Filter) ([]uuid.UUID, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT user_id FROM memories
		WHERE ($1::timestamptz IS NULL OR created_at >= $1) ORDER BY user_id`, since(f))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
}

func since(f Filter) *time.Time {
	if f.Since.IsZero() {
		return nil
	}
	return &f.Since
}

// Load reads one user's memories matching f, oldest first. Embeddings are
// read as real[] so that a pgvector column works as well, and land in one
// contiguous array (sized by a count first) that Analyze can cluster in
// place: at 50,000 × 1,536 a second copy would cost 300 MB.
func Load(ctx context.Context, q db.Querier, user uuid.UUID, f Filter) ([]synthesis.Memory, error) {
	var limit *int
	if f.Limit > 0 {
		limit = &f.Limit
	}
	var n int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM memories WHERE user_id = $1 AND embedding IS NOT NULL
		AND created_at IS NOT NULL AND ($2::timestamptz IS NULL OR created_at >= $2)`, user, since(f)).Scan(&n); err != nil {
		return nil, err
	}
	if limit != nil {
		n = min(n, *limit)
	}
	// The platform's content and valence are nullable: a memory without text
	// still counts in time patterns and clusters by its embedding. So is
	// created_at (the platform's documents promise no NOT NULL): a memory
	// without it cannot be placed in time, and is left out.
	rows, err := q.Query(ctx, `SELECT id, coalesce(content, ''), embedding::real[], emotional_valence::float8, created_at FROM (
			SELECT * FROM memories WHERE user_id = $1 AND created_at IS NOT NULL AND ($2::timestamptz IS NULL OR created_at >= $2)
			ORDER BY created_at DESC, id DESC LIMIT $3) m
		ORDER BY created_at, id`, user, since(f), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var arena, emb []float32
	var out []synthesis.Memory
	var r memRow
	for rows.Next() {
		if err := r.scan(rows, 0); err != nil {
			return nil, err
		}
		if emb, err = r.embedding(emb[:0]); err != nil {
			return nil, err
		}
		m := r.m
		d := len(emb)
		switch {
		case d == 0:
		case arena == nil || len(arena)+d <= cap(arena) && len(arena)%d == 0:
			if arena == nil {
				arena = make([]float32, 0, max(n, 1)*d)
			}
			arena = append(arena, emb...)
			// The capacity runs to the arena's end so that Analyze can see
			// that rows are adjacent; never append to an embedding.
			m.Embedding = arena[len(arena)-d:]
		default: // another dimension, or more rows than counted
			m.Embedding = append([]float32(nil), emb...)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// memRow decodes one row of id, content, embedding::real[], valence,
// created_at (after offset leading columns): scan all but the embedding,
// which embedding then appends to the caller's buffer, decoded from
// PostgreSQL's binary array format straight into it, without going through
// pgx's per-element scanning (issue 20: 17 % of a many-user run) or a
// copy (issue 50).
type memRow struct {
	m   synthesis.Memory
	raw []byte    // the embedding in binary format: valid until the next row
	txt []float32 // the embedding when it came as text (simple protocol)
	bin bool
}

func (r *memRow) scan(rows pgx.Rows, offset int, lead ...any) error {
	r.m, r.raw = synthesis.Memory{}, nil
	dest := append(lead, &r.m.ID, &r.m.Content, nil, &r.m.Valence, &r.m.CreatedAt)
	r.bin = rows.FieldDescriptions()[offset+2].Format == pgx.BinaryFormatCode
	if !r.bin {
		dest[offset+2] = &r.txt // pgx parses it
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	if r.bin {
		r.raw = rows.RawValues()[offset+2]
	}
	return nil
}

// embedding appends the row's embedding (NULL: none) to dst.
func (r *memRow) embedding(dst []float32) ([]float32, error) {
	if !r.bin {
		return append(dst, r.txt...), nil
	}
	out, err := decodeFloat4Array(r.raw, dst)
	if err != nil {
		return dst, fmt.Errorf("embedding of memory %s: %w", r.m.ID, err)
	}
	return out, nil
}

// decodeFloat4Array appends the elements of a one-dimensional real[] in
// PostgreSQL's binary format (NULL: none) to dst.
func decodeFloat4Array(src []byte, dst []float32) ([]float32, error) {
	if src == nil {
		return dst, nil
	}
	if len(src) < 12 {
		return dst, fmt.Errorf("real[]: %d bytes of header, want 12", len(src))
	}
	ndim := int32(binary.BigEndian.Uint32(src))
	elem := binary.BigEndian.Uint32(src[8:])
	switch {
	case ndim == 0 && len(src) != 12:
		// An empty array is its header alone, as pgx reads it (found by FuzzDecodeFloat4Array).
		return dst, fmt.Errorf("real[]: %d bytes after an empty array's header", len(src)-12)
	case ndim == 0:
		return dst, nil
	case ndim != 1:
		return dst, fmt.Errorf("real[]: %d dimensions, want 1", ndim)
	case elem != pgtype.Float4OID:
		return dst, fmt.Errorf("real[]: element type %d, want real", elem)
	case len(src) < 20:
		return dst, fmt.Errorf("real[]: %d bytes, want a dimension header", len(src))
	}
	n := int(int32(binary.BigEndian.Uint32(src[12:])))
	body := src[20:]
	if n < 0 || len(body) != 8*n {
		return dst, fmt.Errorf("real[]: %d elements in %d bytes", n, len(body))
	}
	// Each element is its length (4, big-endian) and its bits (big-endian):
	// one little-endian load of 8 bytes holds both. The kernel takes eight
	// at a time; where it finds a bad length, the loop finds which.
	const four = 4 << 24 // 0, 0, 0, 4 read little-endian
	all := slices.Grow(dst, n)[:len(dst)+n]
	out := all[len(dst):]
	i := 0
	if hasFloat4Kernel && n >= 8 && !decodeFloat4AVX2(&body[0], &out[0], n&^7) {
		i = n &^ 7
	}
	for ; i < n; i++ {
		e := binary.LittleEndian.Uint64(body[8*i:])
		if uint32(e) != four {
			return dst, fmt.Errorf("real[]: element %d is NULL or not 4 bytes", i+1)
		}
		out[i] = math.Float32frombits(bits.ReverseBytes32(uint32(e >> 32)))
	}
	return all, nil
}

// Stream reads the memories matching f of every user in users with one
// query, in the order of user ids, and calls fn for each user (by its index
// in users) with its memories, oldest first, laid out as Load lays them out;
// users without any get fn(i, nil, nil). A row that cannot be decoded fails
// its user only (fn gets the error). fn runs on the caller's goroutine, so a
// slow fn holds the query back: hand the work to others to overlap reading
// and analysing. The error returned is the query's (users not yet delivered
// when it fails are not called).
func Stream(ctx context.Context, q db.Querier, users []uuid.UUID, f Filter, fn func(i int, ms []synthesis.Memory, err error)) error {
	return stream(ctx, q, users, f, nil, fn)
}

// buffers recycles the arrays Stream reads a user's embeddings into: Each
// hands a user's back once its analysis is over, so a run allocates about
// as many as it has users in flight, not one a user (issue 50: 600 MB at
// 1,000 users × 100 × 1,536, each zeroed, faulted in and collected). nil
// recycles nothing.
type buffers chan []float32

// get returns an empty array of capacity n or more.
func (b buffers) get(n int) []float32 {
	select {
	case buf := <-b: // a nil channel is never ready
		if cap(buf) >= n {
			return buf[:0]
		}
	default:
	}
	return make([]float32, 0, n)
}

// put takes back the array ms's embeddings lie in, as stream laid them
// out: the first embedding starts it. ms must not be used after.
func (b buffers) put(ms []synthesis.Memory) {
	for _, m := range ms {
		if m.Embedding != nil {
			select {
			case b <- m.Embedding[:0]:
			default:
			}
			return
		}
	}
}

// stream is Stream taking its embedding arrays from bufs.
func stream(ctx context.Context, q db.Querier, users []uuid.UUID, f Filter, bufs buffers, fn func(i int, ms []synthesis.Memory, err error)) error {
	order := make([]int, len(users))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareUUID(users[a], users[b]) })
	ids := make([]uuid.UUID, 0, len(users))
	for _, i := range order {
		if len(ids) == 0 || ids[len(ids)-1] != users[i] {
			ids = append(ids, users[i])
		}
	}
	var limit *int
	if f.Limit > 0 {
		limit = &f.Limit
	}
	// As in Load: the platform's content and valence are nullable, and a
	// memory without created_at is left out.
	rows, err := q.Query(ctx, `SELECT user_id, id, coalesce(content, ''), embedding::real[], emotional_valence::float8, created_at FROM (
			SELECT *, CASE WHEN $3::int IS NULL THEN 0
			               ELSE row_number() OVER (PARTITION BY user_id ORDER BY created_at DESC, id DESC) END AS recent
			FROM memories WHERE user_id = ANY($1) AND created_at IS NOT NULL AND ($2::timestamptz IS NULL OR created_at >= $2)) m
		WHERE $3::int IS NULL OR recent <= $3
		ORDER BY user_id, created_at, id`, ids, since(f), limit)
	if err != nil {
		return err
	}
	defer rows.Close()

	var (
		r       memRow
		u       uuid.UUID
		next    int // position in order of the next user to deliver
		ms      []synthesis.Memory
		offs    []int // embedding offsets in buf, -1: none
		buf     []float32
		userErr error
		hint    int
	)
	// deliver hands the user at order[next] (and any duplicates of it) what
	// was read for it, and starts the next one empty.
	deliver := func() {
		id := users[order[next]]
		for k, off := range offs {
			if off >= 0 {
				// capacity to the end of buf, as Load leaves it
				ms[k].Embedding = buf[off : off+dimAt(offs, k, len(buf))]
			}
		}
		// Each listing of the user gets its own copy, made before any is
		// handed over: Analyze normalises embeddings in place.
		copies := [][]synthesis.Memory{ms}
		for k := next + 1; k < len(order) && users[order[k]] == id && userErr == nil; k++ {
			dup, b := slices.Clone(ms), slices.Clone(buf)
			for j, off := range offs {
				if off >= 0 {
					dup[j].Embedding = b[off : off+len(ms[j].Embedding)]
				}
			}
			copies = append(copies, dup)
		}
		for k := 0; next < len(order) && users[order[next]] == id; k++ {
			if userErr != nil {
				fn(order[next], nil, userErr)
			} else {
				fn(order[next], copies[k], nil)
			}
			next++
		}
		hint = max(hint, len(buf))
		ms, offs, buf, userErr = nil, nil, nil, nil
	}
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := r.scan(rows, 1, &u)
		for next < len(order) && users[order[next]] != u {
			deliver() // users before u: done, or without rows
		}
		if next == len(order) {
			return fmt.Errorf("memories of user %s, who was not asked for", u)
		}
		if userErr != nil {
			continue
		}
		if buf == nil && (r.raw != nil || len(r.txt) > 0) {
			buf = bufs.get(hint)
		}
		off := len(buf)
		if err == nil {
			buf, err = r.embedding(buf)
		}
		if err != nil {
			userErr = fmt.Errorf("read memories: %w", err)
			continue
		}
		if len(buf) == off {
			off = -1
		}
		offs = append(offs, off)
		ms = append(ms, r.m)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for next < len(order) {
		deliver()
	}
	return nil
}

// dimAt is the length of the k-th embedding whose offset is offs[k]: up to
// the next embedding's offset, or to end.
func dimAt(offs []int, k, end int) int {
	for _, o := range offs[k+1:] {
		if o >= 0 {
			return o - offs[k]
		}
	}
	return end - offs[k]
}

func compareUUID(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }

// Generator marks the memory_synthesis rows helix writes. Other writers (the
// platform's own LLM synthesis) insert rows there too; helix replaces only its own.
const Generator = "helix"

// Replace swaps the user's previous helix synthesis for patterns in one
// transaction: a failure or cancellation at any point leaves the previous rows,
// and rows another writer inserted are never touched.
func Replace(ctx context.Context, q db.Querier, user uuid.UUID, runID *int64, now time.Time, patterns []synthesis.Pattern) error {
	return db.InTx(ctx, q, func(tx pgx.Tx) error {
		return replace(ctx, tx, []Result{{User: user, Patterns: patterns}}, runID, now)
	})
}

// replace swaps the previous helix synthesis of every user of rs for its
// patterns: one DELETE and one COPY, however many users.
func replace(ctx context.Context, tx pgx.Tx, rs []Result, runID *int64, now time.Time) error {
	users := make([]uuid.UUID, len(rs))
	for i, r := range rs {
		users[i] = r.User
	}
	// The patterns' ids are drawn first: their lineages point at them, and the
	// previous run's lineages are carried on before its rows are deleted (their
	// members are read through them), all in this transaction.
	ids := make([][]uuid.UUID, len(rs))
	runs := make([]lineage.Run, len(rs))
	for k, r := range rs {
		ids[k] = make([]uuid.UUID, len(r.Patterns))
		runs[k] = lineage.Run{User: r.User, Sightings: make([]lineage.Sighting, len(r.Patterns))}
		for j, p := range r.Patterns {
			ids[k][j] = uuid.New()
			runs[k].Sightings[j] = Sighting(ids[k][j], p)
		}
	}
	if _, err := lineage.Advance(ctx, tx, lineage.Statistical, runs, nil, now, runID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM memory_synthesis WHERE user_id = ANY($1) AND generator = $2`, users, Generator); err != nil {
		return err
	}
	u, i := 0, 0 // the next pattern: rs[u].Patterns[i]
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"memory_synthesis"},
		[]string{"id", "user_id", "pattern_type", "memory_ids", "synthesis_content", "confidence_score", "created_at", "fingerprint", "evidence", "job_run_id", "generator"},
		pgx.CopyFromFunc(func() ([]any, error) {
			for u < len(rs) && i == len(rs[u].Patterns) {
				u, i = u+1, 0
			}
			if u == len(rs) {
				return nil, nil
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			p, id := rs[u].Patterns[i], ids[u][i]
			i++
			ev, err := json.Marshal(p.Evidence)
			if err != nil {
				return nil, err
			}
			// the id too: the platform's table promises no default for it
			return []any{id, rs[u].User, p.Type, p.MemoryIDs, p.Content, p.Confidence, now, p.Fingerprint, ev, runID, Generator}, nil
		}))
	return err
}

// Sighting is a statistical pattern as its lineage sees it: its members and,
// for a burst or a shift, its time window (lineage.Score).
func Sighting(id uuid.UUID, p synthesis.Pattern) lineage.Sighting {
	s := lineage.Sighting{PatternID: id, Kind: p.Type, Members: p.MemoryIDs, Confidence: p.Confidence, Content: p.Content}
	switch p.Type {
	case synthesis.TemporalBurst:
		s.From, _ = p.Evidence["from"].(time.Time)
		s.To, _ = p.Evidence["to"].(time.Time)
	case synthesis.EmotionalShift:
		if at, ok := p.Evidence["at"].(time.Time); ok {
			s.From, s.To = at.Add(-lineage.ShiftWindow), at.Add(lineage.ShiftWindow)
		}
	}
	return s
}
