package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/exitcode"
)

// Conflict is a row of sync_conflicts.
type Conflict struct {
	ID         int64           `json:"id"`
	EntityType string          `json:"entity_type"`
	UserID     uuid.UUID       `json:"user_id"`
	EntityID   string          `json:"entity_id"`
	Status     string          `json:"status"`
	Siblings   []Sibling       `json:"siblings"`
	CreatedAt  time.Time       `json:"created_at"`
	UpdatedAt  time.Time       `json:"updated_at"`
	ResolvedAt *time.Time      `json:"resolved_at,omitempty"`
	Resolution json.RawMessage `json:"resolution,omitempty"`
}

// ErrNoConflict is returned for an unknown conflict id. It and the two
// below are bad input (exit 2).
var ErrNoConflict = exitcode.AsInput(errors.New("no such conflict"))

// ErrNotOpen is returned when resolving a conflict that is already closed.
var ErrNotOpen = exitcode.AsInput(errors.New("conflict is not open"))

// ErrBadTake is returned when --take names no sibling and is no JSON object.
var ErrBadTake = exitcode.AsInput(errors.New("take must be a sibling label or a JSON object"))

const conflictCols = `id, entity_type, user_id, entity_id, status, siblings::text, created_at, updated_at, resolved_at, resolution::text`

func scanConflict(row pgx.Row) (*Conflict, error) {
	var c Conflict
	var sib string
	var res *string
	if err := row.Scan(&c.ID, &c.EntityType, &c.UserID, &c.EntityID, &c.Status, &sib, &c.CreatedAt, &c.UpdatedAt, &c.ResolvedAt, &res); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(sib), &c.Siblings); err != nil {
		return nil, fmt.Errorf("conflict %d: siblings: %w", c.ID, err)
	}
	if res != nil {
		c.Resolution = json.RawMessage(*res)
	}
	return &c, nil
}

// ListConflicts returns open conflicts (every conflict with all), oldest first.
func ListConflicts(ctx context.Context, q db.Querier, f Filter, all bool) ([]Conflict, error) {
	rows, err := q.Query(ctx, `SELECT `+conflictCols+` FROM sync_conflicts
		WHERE ($1 OR status = 'open') AND ($2 = '' OR entity_type = $2) AND ($3::uuid IS NULL OR user_id = $3)
		ORDER BY id`, all, f.EntityType, f.UserID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Conflict{}
	for rows.Next() {
		c, err := scanConflict(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *c)
	}
	return out, rows.Err()
}

// GetConflict returns one conflict.
func GetConflict(ctx context.Context, q db.Querier, id int64) (*Conflict, error) {
	c, err := scanConflict(q.QueryRow(ctx, `SELECT `+conflictCols+` FROM sync_conflicts WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: %d", ErrNoConflict, id)
	}
	return c, err
}

// Resolution is what resolving a conflict wrote.
type Resolution struct {
	Take     string          `json:"take"` // the sibling label, or "json"
	Doc      json.RawMessage `json:"doc"`  // null: the entity is deleted
	ChangeID int64           `json:"change_id"`
	Clock    Clock           `json:"clock"`
}

// ServerDevice is the device id of changes helix writes itself (resolutions).
const ServerDevice = "helix"

// ResolveConflict settles conflict id with the sibling labelled take, or
// with take as a JSON object. The choice is recorded as a change from
// device "helix" whose clock dominates every sibling, so devices that sync
// it discard their own versions, and it is folded into the state at once.
func ResolveConflict(ctx context.Context, q db.Querier, id int64, take string, now time.Time) (*Resolution, error) {
	var res *Resolution
	err := db.InTx(ctx, q, func(tx pgx.Tx) error {
		// Lock the state row before the conflict row, in the order reconcile
		// takes them, so the two never deadlock.
		c, err := GetConflict(ctx, tx, id)
		if err != nil {
			return err
		}
		k := entityKey{Type: c.EntityType, UserID: c.UserID, ID: c.EntityID}
		states, err := lockStates(ctx, tx, []entityKey{k})
		if err != nil {
			return err
		}
		if c, err = scanConflict(tx.QueryRow(ctx, `SELECT `+conflictCols+` FROM sync_conflicts WHERE id = $1 FOR UPDATE`, id)); err != nil {
			return err
		}
		if c.Status != "open" {
			return fmt.Errorf("%w: %d is %s", ErrNotOpen, id, c.Status)
		}
		res = &Resolution{Take: "json"}
		for _, s := range c.Siblings {
			if strings.EqualFold(s.Label, take) {
				res.Take, res.Doc = s.Label, s.Doc
			}
		}
		if res.Doc == nil {
			var obj map[string]any
			if err := json.Unmarshal([]byte(take), &obj); err != nil || obj == nil {
				labels := make([]string, len(c.Siblings))
				for i, s := range c.Siblings {
					labels[i] = s.Label
				}
				return fmt.Errorf("%w (%s)", ErrBadTake, strings.Join(labels, ", "))
			}
			res.Doc = json.RawMessage(take)
		}
		st := states[k]
		ch := Change{Device: ServerDevice, TS: now, Op: OpPut, Doc: res.Doc,
			Clock: st.state.Clock.Merge(Clock{ServerDevice: st.state.Clock[ServerDevice] + 1})}
		if string(res.Doc) == "null" {
			ch.Op, ch.Doc = OpDelete, nil
		}
		res.Clock = ch.Clock
		o, err := st.state.Apply(ch, Manual)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrBadTake, err)
		}
		st.version++
		st.doc = st.state.Document()
		clock, _ := json.Marshal(ch.Clock)
		var doc any
		if ch.Doc != nil {
			doc = string(ch.Doc)
		}
		if err := tx.QueryRow(ctx, `
			INSERT INTO sync_changes (entity_type, entity_id, user_id, device_id, clock, ts, op, doc, received_at, processed_at, outcome)
			VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8::jsonb, $6, $6, $9) RETURNING id`,
			k.Type, k.ID, k.UserID, ServerDevice, string(clock), now, string(ch.Op), doc, string(o)).Scan(&res.ChangeID); err != nil {
			return err
		}
		var up stateUpdate
		up.add(k, st)
		if err := up.exec(ctx, tx, now); err != nil {
			return err
		}
		rb, _ := json.Marshal(res)
		_, err = tx.Exec(ctx, `UPDATE sync_conflicts SET status = 'resolved', resolved_at = $2, updated_at = $2, resolution = $3::jsonb WHERE id = $1`,
			id, now, string(rb))
		return err
	})
	return res, err
}

// Backlog is the pending work of one entity type.
type Backlog struct {
	EntityType    string     `json:"entity_type"`
	Strategy      Strategy   `json:"strategy"`
	Pending       int64      `json:"pending"`
	Entities      int64      `json:"entities"` // distinct entities with pending changes
	Oldest        *time.Time `json:"oldest_received_at"`
	OpenConflicts int64      `json:"open_conflicts"`
}

// Status lists the backlog of every entity type with pending changes or open conflicts.
func Status(ctx context.Context, q db.Querier, strategies map[string]Strategy) ([]Backlog, error) {
	rows, err := q.Query(ctx, `
		WITH p AS (
			SELECT entity_type, count(*) AS pending, count(DISTINCT (user_id, entity_id)) AS entities, min(received_at) AS oldest
			FROM sync_changes WHERE processed_at IS NULL GROUP BY entity_type
		), c AS (
			SELECT entity_type, count(*) AS open FROM sync_conflicts WHERE status = 'open' GROUP BY entity_type
		)
		SELECT coalesce(p.entity_type, c.entity_type), coalesce(p.pending, 0), coalesce(p.entities, 0), p.oldest, coalesce(c.open, 0)
		FROM p FULL JOIN c ON c.entity_type = p.entity_type
		ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Backlog{}
	r := Reconciler{Strategies: strategies}
	for rows.Next() {
		var b Backlog
		if err := rows.Scan(&b.EntityType, &b.Pending, &b.Entities, &b.Oldest, &b.OpenConflicts); err != nil {
			return nil, err
		}
		b.Strategy = r.Strategy(b.EntityType)
		out = append(out, b)
	}
	return out, rows.Err()
}
