// Package memories reads and bulk-loads memories: JSON Lines in, validated
// as a whole, then copied into PostgreSQL in one transaction.
package memories

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/textcheck"
)

// Memory is one row of the memories table.
type Memory struct {
	ID               uuid.UUID  `json:"id"`
	UserID           uuid.UUID  `json:"user_id"`
	Type             string     `json:"type"`
	Content          string     `json:"content"`
	Embedding        []float32  `json:"embedding,omitempty"`
	EmotionalValence *float32   `json:"emotional_valence,omitempty"`
	CreatedAt        time.Time  `json:"created_at"`
	LastAccessed     *time.Time `json:"last_accessed,omitempty"`
	AccessCount      int32      `json:"access_count,omitempty"`
}

// Types are the allowed memory types.
var Types = []string{"episodic", "semantic", "procedural"}

// LineError names the line of a JSON Lines file that is wrong.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// idSpace namespaces the ids derived for memories that arrive without one, so
// that importing the same file twice yields the same ids and no duplicates.
var idSpace = uuid.MustParse("6f1c1d0e-3f7a-4c55-9b8e-2a4f3c9d7e01")

type wire struct {
	ID               *string    `json:"id"`
	UserID           string     `json:"user_id"`
	Type             string     `json:"type"`
	Content          string     `json:"content"`
	Embedding        []float64  `json:"embedding"`
	EmotionalValence *float64   `json:"emotional_valence"`
	CreatedAt        *time.Time `json:"created_at"`
	LastAccessed     *time.Time `json:"last_accessed"`
	AccessCount      *int32     `json:"access_count"`
}

// Parse reads every line and validates it; the first bad line is returned as
// a *LineError and nothing is returned with it. Blank lines are skipped.
// now stands in for a missing created_at.
//
// Text is kept byte for byte or refused: a NUL (PostgreSQL text cannot hold
// it), bytes that are not UTF-8 and lone UTF-16 surrogate escapes (which a
// JSON decoder would silently turn into U+FFFD) are errors naming the line.
// Two lines with one id are an error naming both, unless they are the same
// memory (a repeated line), which is loaded once.
func Parse(r io.Reader, now time.Time) ([]Memory, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var out []Memory
	dim, dimLine := 0, 0
	seen := map[uuid.UUID]int{} // id → index in out
	lines := []int{}            // line of each memory in out
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if p := textcheck.Check(line); p != nil {
			return nil, &LineError{Line: n, Err: fmt.Errorf("column %d: %s", p.Col+len(sc.Bytes())-len(bytes.TrimLeft(sc.Bytes(), " \t\r")), p.Msg)}
		}
		m, err := parseLine(line, now)
		if err != nil {
			return nil, &LineError{Line: n, Err: err}
		}
		if i, dup := seen[m.ID]; dup {
			if !sameMemory(&out[i], &m) {
				return nil, &LineError{Line: n, Err: fmt.Errorf("id %s is also the id of line %d, with different data: give each memory its own id", m.ID, lines[i])}
			}
			continue
		}
		seen[m.ID] = len(out)
		lines = append(lines, n)
		if len(m.Embedding) > 0 {
			if dim == 0 {
				dim, dimLine = len(m.Embedding), n
			} else if len(m.Embedding) != dim {
				return nil, &LineError{Line: n, Err: fmt.Errorf("embedding has %d dimensions, line %d has %d: one file holds one embedding model", len(m.Embedding), dimLine, dim)}
			}
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func parseLine(line []byte, now time.Time) (Memory, error) {
	var w wire
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Memory{}, fmt.Errorf("invalid JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return Memory{}, errors.New("more than one JSON value on the line")
	}
	var m Memory
	var err error
	if m.UserID, err = uuid.Parse(w.UserID); err != nil || w.UserID == "" {
		return m, fmt.Errorf("user_id %q is not a UUID", w.UserID)
	}
	if !contains(Types, w.Type) {
		return m, fmt.Errorf("type %q: must be one of %s", w.Type, strings.Join(Types, ", "))
	}
	m.Type = w.Type
	if strings.TrimSpace(w.Content) == "" {
		return m, errors.New("content is empty")
	}
	m.Content = w.Content
	for i, x := range w.Embedding {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
			return m, fmt.Errorf("embedding[%d] is not a finite real", i)
		}
		m.Embedding = append(m.Embedding, float32(x))
	}
	if w.EmotionalValence != nil {
		v := *w.EmotionalValence
		if !(v >= -1 && v <= 1) {
			return m, fmt.Errorf("emotional_valence %v: must be between -1 and 1", v)
		}
		f := float32(v)
		m.EmotionalValence = &f
	}
	created := ""
	m.CreatedAt = now
	if w.CreatedAt != nil {
		m.CreatedAt = *w.CreatedAt
		created = w.CreatedAt.UTC().Format(time.RFC3339Nano)
	}
	if w.LastAccessed != nil {
		if w.LastAccessed.Before(m.CreatedAt) {
			return m, errors.New("last_accessed is before created_at")
		}
		m.LastAccessed = w.LastAccessed
	}
	if w.AccessCount != nil {
		if *w.AccessCount < 0 {
			return m, errors.New("access_count is negative")
		}
		m.AccessCount = *w.AccessCount
	}
	if w.ID != nil {
		if m.ID, err = uuid.Parse(*w.ID); err != nil {
			return m, fmt.Errorf("id %q is not a UUID", *w.ID)
		}
	} else {
		m.ID = uuid.NewSHA1(idSpace, []byte(m.UserID.String()+"\x00"+m.Type+"\x00"+created+"\x00"+m.Content))
	}
	return m, nil
}

// sameMemory reports whether two parsed lines describe the same memory.
func sameMemory(a, b *Memory) bool {
	eqTime := func(x, y *time.Time) bool { return x == nil && y == nil || x != nil && y != nil && x.Equal(*y) }
	eqF := func(x, y *float32) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	if a.UserID != b.UserID || a.Type != b.Type || a.Content != b.Content || !a.CreatedAt.Equal(b.CreatedAt) ||
		!eqTime(a.LastAccessed, b.LastAccessed) || !eqF(a.EmotionalValence, b.EmotionalValence) ||
		a.AccessCount != b.AccessCount || len(a.Embedding) != len(b.Embedding) {
		return false
	}
	for i := range a.Embedding {
		if a.Embedding[i] != b.Embedding[i] {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Result counts what an import did.
type Result struct {
	Read     int `json:"read"`
	Inserted int `json:"inserted"`
	Existing int `json:"existing"` // ids already present: skipped, so a re-run duplicates nothing
}

var columns = []string{"id", "user_id", "type", "content", "embedding", "emotional_valence", "created_at", "last_accessed", "access_count"}

// Insert copies ms into memories in one transaction: COPY into a temporary
// table, then one INSERT … ON CONFLICT DO NOTHING. All or nothing.
func Insert(ctx context.Context, q db.Querier, ms []Memory) (Result, error) {
	res := Result{Read: len(ms)}
	err := db.InTx(ctx, q, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE import_memories (LIKE memories INCLUDING DEFAULTS) ON COMMIT DROP`); err != nil {
			return err
		}
		src := pgx.CopyFromSlice(len(ms), func(i int) ([]any, error) {
			m := ms[i]
			var emb any
			if len(m.Embedding) > 0 {
				emb = m.Embedding
			}
			return []any{m.ID, m.UserID, m.Type, m.Content, emb, m.EmotionalValence, m.CreatedAt, m.LastAccessed, m.AccessCount}, nil
		})
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"import_memories"}, columns, src); err != nil {
			return fmt.Errorf("copy: %w", err)
		}
		tag, err := tx.Exec(ctx, `INSERT INTO memories (`+strings.Join(columns, ", ")+`)
			SELECT DISTINCT ON (id) `+strings.Join(columns, ", ")+` FROM import_memories
			ON CONFLICT (id) DO NOTHING`)
		if err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		res.Inserted = int(tag.RowsAffected())
		return nil
	})
	res.Existing = res.Read - res.Inserted
	return res, err
}
