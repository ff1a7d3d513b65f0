package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/helixhq/helix/internal/db"
)

// Pending is a change as a device uploads it into sync_changes.
type Pending struct {
	EntityType string
	EntityID   string
	UserID     uuid.UUID
	Change
}

// Enqueue copies changes into sync_changes in one round trip.
func Enqueue(ctx context.Context, q db.Querier, ps []Pending) (int64, error) {
	rows := make([][]any, len(ps))
	for i, p := range ps {
		clock, err := json.Marshal(p.Clock)
		if err != nil {
			return 0, err
		}
		var doc any
		if p.Doc != nil {
			doc = string(p.Doc)
		}
		rows[i] = []any{p.EntityType, p.EntityID, p.UserID, p.Device, string(clock), p.TS, string(p.Op), doc}
	}
	return q.CopyFrom(ctx, pgx.Identifier{"sync_changes"},
		[]string{"entity_type", "entity_id", "user_id", "device_id", "clock", "ts", "op", "doc"},
		pgx.CopyFromRows(rows))
}

// Filter narrows a reconcile run.
type Filter struct {
	EntityType string     // "" for all
	UserID     *uuid.UUID // nil for all
	// Bucket, when set, reconciles only that partition of the entities
	// (0 to Buckets-1), waiting for its lock rather than passing it over:
	// the unit of a `sync reconcile --enqueue` job.
	Bucket *int
}

// Counts is what a reconcile run did.
type Counts struct {
	Applied    int `json:"applied"`
	Discarded  int `json:"discarded"`
	Merged     int `json:"merged"`
	Conflicted int `json:"conflicted"`
	Invalid    int `json:"invalid"`
	Entities   int `json:"entities"` // entity states written (an entity counts once per batch)
	Batches    int `json:"batches"`
}

// Total is the number of changes processed.
func (c Counts) Total() int { return c.Applied + c.Discarded + c.Merged + c.Conflicted + c.Invalid }

func (c *Counts) add(o Counts) {
	c.Applied += o.Applied
	c.Discarded += o.Discarded
	c.Merged += o.Merged
	c.Conflicted += o.Conflicted
	c.Invalid += o.Invalid
	c.Entities += o.Entities
	c.Batches += o.Batches
}

func (c *Counts) count(o Outcome) {
	switch o {
	case Applied:
		c.Applied++
	case Discarded:
		c.Discarded++
	case Merged:
		c.Merged++
	case Conflicted:
		c.Conflicted++
	}
}

// DefaultBatch is how many changes a batch claims unless told otherwise.
// A bucket's changes lie all over the table, so each batch visits a heap
// page per change or so, and a page the batch before updated (its outcome
// UPDATE leaves dead versions there) is pruned again: the cost is per batch
// and page. 100,000 changes took 1.9-2.0 database CPU-s in batches of 1,000
// and 1.3-1.4 in batches of 5,000 (the claims' WAL records fell from
// 54,000 to 14,000 per run at 8,000); one reconciler did ~30 % more
// changes/s, two ~40 % more (scripts/bench/sync.sh, 2026-11-26). A batch of
// 5,000 is ~100 ms of work and a few MB.
const DefaultBatch = 5000

// Reconciler folds pending changes into sync_state, one transaction per batch.
type Reconciler struct {
	Strategies map[string]Strategy // per entity type; field-lww when absent
	Batch      int                 // changes per batch; 0: DefaultBatch
	RunID      int64
	Now        func() time.Time
	// Concurrency is how many batches run at once, each in its own
	// transaction on its own connection, in buckets apart; it needs q to
	// be a pool. 0 or 1: one batch at a time.
	Concurrency int
	// OnBatch is called after each committed batch with its counts, from
	// one goroutine at a time.
	OnBatch func(Counts)
}

// Strategy returns the strategy of an entity type.
func (r *Reconciler) Strategy(entityType string) Strategy {
	if s, ok := r.Strategies[entityType]; ok {
		return s
	}
	return FieldLWW
}

// Run reconciles batch after batch until no unclaimed change matches f.
// Several Runs (in this or other processes) may go at once: each batch
// works in one bucket of entities that no other batch holds at the time
// (see claim.go), locks the state rows it writes, so merges into one entity
// are serialised, and marks its changes processed only if they still are
// pending, else it is rolled back and retried; so every change is processed
// exactly once, and since merging is order-independent, the result is the
// same as a single run's. With Concurrency > 1 and a pool, the run itself
// is that many such walks at once, which keeps the client's merging and the
// server's writing going at the same time.
func (r *Reconciler) Run(ctx context.Context, q db.Querier, f Filter) (Counts, error) {
	n := r.Concurrency
	if _, ok := q.(*pgxpool.Pool); !ok || n < 1 {
		n = 1
	}
	var (
		mu    sync.Mutex
		total Counts
	)
	g, gctx := errgroup.WithContext(ctx)
	for i := range n {
		// Walks start in buckets spread evenly from the run's own start.
		cl := newClaimer(r.RunID)
		cl.cur = (cl.cur + i*Buckets/n) % Buckets
		g.Go(func() error {
			for {
				if err := gctx.Err(); err != nil {
					return err
				}
				c, err := r.runBatch(gctx, q, f, cl)
				if err != nil || c.Total() == 0 && cl.wait < 0 {
					return err
				}
				mu.Lock()
				total.add(c)
				if r.OnBatch != nil {
					r.OnBatch(c)
				}
				mu.Unlock()
			}
		})
	}
	err := g.Wait()
	return total, err
}

// runBatch claims and folds one batch in its own transaction.
func (r *Reconciler) runBatch(ctx context.Context, q db.Querier, f Filter, cl *claimer) (Counts, error) {
	var c Counts
	var cs []claimed
	err := retry(ctx, func() error {
		return db.InTx(ctx, q, func(tx pgx.Tx) error {
			var err error
			c, cs, err = r.batch(ctx, tx, f, cl)
			return err
		})
	})
	if err == nil && len(cs) > 0 {
		cl.advance(cs)
	}
	return c, err
}

// retry repeats fn after a deadlock or serialisation failure: the
// transaction was rolled back whole, so trying again is safe.
func retry(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := fn()
		var pe *pgconn.PgError
		again := errors.Is(err, errRace) || errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
		if attempt < 5 && again && ctx.Err() == nil {
			continue
		}
		return err
	}
}

type entityKey struct {
	Type   string
	UserID uuid.UUID
	ID     string
}

func (k entityKey) less(o entityKey) bool {
	if k.Type != o.Type {
		return k.Type < o.Type
	}
	if c := compareUUID(k.UserID, o.UserID); c != 0 {
		return c < 0
	}
	return k.ID < o.ID
}

func compareUUID(a, b uuid.UUID) int {
	for i := range a {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return 0
}

type claimed struct {
	id     int64
	bucket int
	key    entityKey
	change Change
	write  Write
	err    error
}

func (r *Reconciler) batch(ctx context.Context, tx pgx.Tx, f Filter, cl *claimer) (Counts, []claimed, error) {
	var counts Counts
	n := r.Batch
	if n <= 0 {
		n = DefaultBatch
	}
	cs, err := cl.claim(ctx, tx, f, n)
	if err != nil || len(cs) == 0 {
		return counts, nil, err
	}
	counts, err = r.fold(ctx, tx, cs)
	return counts, cs, err
}

// fold merges the claimed changes cs into their entities' states and
// writes states, conflicts and outcomes in one pipelined round trip.
func (r *Reconciler) fold(ctx context.Context, tx pgx.Tx, cs []claimed) (Counts, error) {
	var counts Counts
	var err error
	outcomes := make([]string, len(cs))
	errs := make([]*string, len(cs))
	byKey := map[entityKey][]int{}
	var keys []entityKey
	for i := range cs {
		c := &cs[i]
		if c.err == nil {
			c.write, c.err = NewWrite(c.change, r.Strategy(c.key.Type))
		}
		if c.err != nil {
			// Invalid changes touch no state: an entity that only has those gets no row.
			msg := c.err.Error()
			errs[i], outcomes[i] = &msg, string(Invalid)
			counts.Invalid++
			continue
		}
		if _, ok := byKey[c.key]; !ok {
			keys = append(keys, c.key)
		}
		byKey[c.key] = append(byKey[c.key], i)
	}
	// Lock the existing state rows; the missing ones are created at the end.
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
	states := map[entityKey]*entityState{}
	if len(keys) > 0 {
		if states, err = lockExisting(ctx, tx, keys); err != nil {
			return counts, err
		}
	}

	var up, ins stateUpdate
	var conflicts conflictUpdate
	for _, k := range keys {
		st := states[k]
		if st == nil {
			st = &entityState{}
		}
		strat := r.Strategy(k.Type)
		for _, i := range byKey[k] {
			o := st.state.ApplyWrite(cs[i].write, strat)
			outcomes[i] = string(o)
			counts.count(o)
			st.version++
		}
		conflicted := strat == Manual && len(st.state.Writes) > 1
		if !conflicted {
			st.doc = st.state.Document()
		}
		to := &up
		if !st.exists {
			to = &ins
		}
		to.add(k, st)
		if strat == Manual {
			if err := conflicts.add(k, &st.state, conflicted); err != nil {
				return counts, err
			}
		}
	}
	counts.Entities = len(keys)
	counts.Batches = 1
	now := r.Now()
	b := &pgx.Batch{}
	// New state rows first: if another transaction created one meanwhile,
	// the batch is rolled back and tried again with that row locked.
	var inserted *pgx.QueuedQuery
	if len(ins.keys) > 0 {
		inserted = ins.queue(b, now, true)
	}
	if len(up.keys) > 0 {
		up.queue(b, now, false)
	}
	conflicts.queue(b, now)
	queueProcessed(b, cs, outcomes, errs, r.RunID, now)
	if inserted != nil {
		inserted.Exec(func(tag pgconn.CommandTag) error {
			if tag.RowsAffected() != int64(len(ins.keys)) {
				return errRace
			}
			return nil
		})
	}
	return counts, tx.SendBatch(ctx, b).Close()
}

// stillPending is "processed_at IS NULL" in a form that does not imply the
// predicate of sync_changes_bucket_idx: a condition that does lets the
// planner AND the primary key's bitmap with a scan of that whole index,
// which it does while the table has no statistics (right after a large
// upload) and which cost as much database CPU as the rest of a batch.
const stillPending = `(processed_at IS NULL) IS TRUE`

// queueProcessed records each change's outcome: one statement per outcome
// with id = ANY, which probes the primary key (a join against unnest would
// be planned as a scan of the whole table once it is large), and the
// invalid ones, with their errors, apart. Each statement sets only changes
// still pending and must set all it names: a change another transaction
// processed since the claim read it fails the batch (errRace), which is
// rolled back whole and tried again. This, not the claim, is what makes
// every change processed exactly once.
func queueProcessed(b *pgx.Batch, cs []claimed, outcomes []string, errs []*string, runID int64, now time.Time) {
	ids := map[string][]int64{}
	var badIDs []int64
	var badErrs []string
	for i, c := range cs {
		if errs[i] != nil {
			badIDs, badErrs = append(badIDs, c.id), append(badErrs, *errs[i])
			continue
		}
		ids[outcomes[i]] = append(ids[outcomes[i]], c.id)
	}
	all := func(n int) func(pgconn.CommandTag) error {
		return func(tag pgconn.CommandTag) error {
			if tag.RowsAffected() != int64(n) {
				return fmt.Errorf("%w: %d of %d claimed changes were processed by another run", errRace, int64(n)-tag.RowsAffected(), n)
			}
			return nil
		}
	}
	for _, o := range []Outcome{Applied, Discarded, Merged, Conflicted} {
		if len(ids[string(o)]) == 0 {
			continue
		}
		b.Queue(`UPDATE sync_changes SET processed_at = $1, run_id = $2, outcome = $3
			WHERE id = ANY($4::bigint[]) AND `+stillPending,
			now, runID, string(o), ids[string(o)]).Exec(all(len(ids[string(o)])))
	}
	if len(badIDs) == 0 {
		return
	}
	b.Queue(`
		UPDATE sync_changes c SET processed_at = $1, run_id = $2, outcome = 'invalid', error = u.error
		FROM unnest($3::bigint[], $4::text[]) AS u(id, error)
		WHERE c.id = u.id AND c.id = ANY($3::bigint[]) AND `+stillPending, now, runID, badIDs, badErrs).Exec(all(len(badIDs)))
}

type entityState struct {
	state   State
	doc     json.RawMessage
	version int64
	exists  bool // the row is in sync_state (and locked)
}

func keyArrays(keys []entityKey) ([]string, []uuid.UUID, []string) {
	ts, us, ids := make([]string, len(keys)), make([]uuid.UUID, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		ts[i], us[i], ids[i] = k.Type, k.UserID, k.ID
	}
	return ts, us, ids
}

// lockStates upserts and locks the state rows of keys (sorted) and loads them.
func lockStates(ctx context.Context, q db.Querier, keys []entityKey) (map[entityKey]*entityState, error) {
	ts, us, ids := keyArrays(keys)
	rows, err := q.Query(ctx, `
		INSERT INTO sync_state AS s (entity_type, user_id, entity_id)
		SELECT t, u, e FROM unnest($1::text[], $2::uuid[], $3::text[]) WITH ORDINALITY AS k(t, u, e, n)
		ORDER BY n
		ON CONFLICT (entity_type, user_id, entity_id) DO UPDATE SET version = s.version
		RETURNING entity_type, user_id, entity_id, merge_state, doc::text, version`, ts, us, ids)
	if err != nil {
		return nil, err
	}
	return scanStates(rows, len(keys), false)
}

// scanStates reads rows of (entity_type, user_id, entity_id, merge_state,
// doc, version) into entity states; exists marks rows that were there before.
func scanStates(rows pgx.Rows, n int, exists bool) (map[entityKey]*entityState, error) {
	defer rows.Close()
	out := make(map[entityKey]*entityState, n)
	for rows.Next() {
		var k entityKey
		var ms string
		var doc *string
		st := &entityState{exists: exists}
		if err := rows.Scan(&k.Type, &k.UserID, &k.ID, &ms, &doc, &st.version); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(ms), &st.state); err != nil {
			return nil, fmt.Errorf("sync_state %s/%s/%s: merge_state: %w", k.Type, k.UserID, k.ID, err)
		}
		if doc != nil {
			st.doc = json.RawMessage(*doc)
		}
		out[k] = st
	}
	return out, rows.Err()
}

type stateUpdate struct {
	keys     []entityKey
	docs     []*string
	clocks   []string
	versions []int64
	states   []string
}

func (u *stateUpdate) add(k entityKey, st *entityState) {
	ms := appendState(nil, &st.state)
	clock := appendClock(nil, st.state.Clock)
	var doc *string
	if st.doc != nil {
		s := string(st.doc)
		doc = &s
	}
	u.keys = append(u.keys, k)
	u.docs = append(u.docs, doc)
	u.clocks = append(u.clocks, string(clock))
	u.versions = append(u.versions, st.version)
	u.states = append(u.states, string(ms))
}

func (u *stateUpdate) exec(ctx context.Context, q db.Querier, now time.Time) error {
	b := &pgx.Batch{}
	qq := u.queue(b, now, false)
	_, err := q.Exec(ctx, qq.SQL, qq.Arguments...)
	return err
}

// queue writes the states: with insert, as new rows (a row that exists by
// now is left alone: RowsAffected tells), else over rows that exist and
// are locked, found through the primary key row by row (an UPDATE ... FROM
// unnest would be planned as a scan of the whole table once it is large).
func (u *stateUpdate) queue(b *pgx.Batch, now time.Time, insert bool) *pgx.QueuedQuery {
	ts, us, ids := keyArrays(u.keys)
	onConflict := `DO UPDATE
		SET doc = excluded.doc, deleted = excluded.deleted, clock = excluded.clock, version = excluded.version,
		    merge_state = excluded.merge_state, updated_at = excluded.updated_at`
	if insert {
		onConflict = `DO NOTHING`
	}
	return b.Queue(`
		INSERT INTO sync_state AS s (entity_type, user_id, entity_id, doc, deleted, clock, version, merge_state, updated_at)
		SELECT t, u, e, doc::jsonb, doc IS NULL, clock::jsonb, version, ms, $1
		FROM unnest($2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[])
		     AS v(t, u, e, doc, clock, version, ms)
		ON CONFLICT (entity_type, user_id, entity_id) `+onConflict,
		now, ts, us, ids, u.docs, u.clocks, u.versions, u.states)
}

// Sibling is one concurrent version of a manually merged entity.
type Sibling struct {
	Label  string          `json:"label"`
	Device string          `json:"device"`
	TS     time.Time       `json:"ts"`
	Clock  Clock           `json:"clock"`
	Doc    json.RawMessage `json:"doc"` // null: the sibling deletes the entity
}

// SiblingsOf lists a state's writes as labelled versions A, B, C, ...
func SiblingsOf(s *State) []Sibling {
	out := make([]Sibling, len(s.Writes))
	for i, w := range s.Writes {
		one := State{Writes: []Write{w}}
		doc := one.Document()
		if doc == nil {
			doc = json.RawMessage("null")
		}
		out[i] = Sibling{Label: label(i), Device: w.Device, TS: time.UnixMicro(w.TS).UTC(), Clock: w.Clock, Doc: doc}
	}
	return out
}

func label(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("S%d", i+1)
}

type conflictUpdate struct {
	open, closed []entityKey
	siblings     []string
}

func (u *conflictUpdate) add(k entityKey, s *State, conflicted bool) error {
	if !conflicted {
		u.closed = append(u.closed, k)
		return nil
	}
	b, err := json.Marshal(SiblingsOf(s))
	if err != nil {
		return err
	}
	u.open = append(u.open, k)
	u.siblings = append(u.siblings, string(b))
	return nil
}

func (u *conflictUpdate) queue(b *pgx.Batch, now time.Time) {
	if len(u.open) > 0 {
		ts, us, ids := keyArrays(u.open)
		b.Queue(`
			INSERT INTO sync_conflicts (entity_type, user_id, entity_id, siblings, created_at, updated_at)
			SELECT t, u, e, s::jsonb, $1, $1 FROM unnest($2::text[], $3::uuid[], $4::text[], $5::text[]) AS v(t, u, e, s)
			ON CONFLICT (entity_type, user_id, entity_id) WHERE status = 'open'
			DO UPDATE SET siblings = excluded.siblings, updated_at = excluded.updated_at`,
			now, ts, us, ids, u.siblings)
	}
	if len(u.closed) > 0 {
		// A device that saw every sibling wrote over them: nothing left to resolve.
		ts, us, ids := keyArrays(u.closed)
		b.Queue(`
			UPDATE sync_conflicts c SET status = 'superseded', resolved_at = $1, updated_at = $1
			FROM unnest($2::text[], $3::uuid[], $4::text[]) AS v(t, u, e)
			WHERE c.status = 'open' AND c.entity_type = v.t AND c.user_id = v.u AND c.entity_id = v.e`,
			now, ts, us, ids)
	}
}
