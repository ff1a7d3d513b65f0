package syncer

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
)

// Claiming. Pending changes fall into buckets by a hash of their entity
// (see migrations/00070_sync_claim_buckets.sql). A batch takes a
// transaction-level advisory lock on one bucket and reads up to Batch
// pending changes of it, so two reconcilers work on different entities and
// never wait on each other's state rows. The rows are not locked when read
// (a row lock costs a write per change): exactly-once rests on the batch's
// final UPDATE, which sets only changes still pending and rolls the batch
// back when one is not (queueProcessed), so it holds even for a reconciler
// that knows nothing of buckets. Within a bucket a run keeps a cursor (the
// last entity and id it read) and walks the index on from there.
const (
	// Buckets is how many partitions the pending changes fall into.
	Buckets    = 64
	bucketExpr = `((hashtext(entity_id) # uuid_hash(user_id)) & 63)`
	// lockSpace is the first key of the buckets' advisory locks (the second
	// is the bucket): "SYNC" in ASCII.
	lockSpace = 0x53594e43
)

// claimKey is a position in a bucket's index order.
type claimKey struct {
	key entityKey
	id  int64
}

// claimer is one run's walk over the buckets.
type claimer struct {
	cur    int         // the bucket the last batch ended in
	cursor []*claimKey // per bucket: the last change claimed, nil from the start
	done   []bool      // per bucket: found empty in this run
	wait   int         // a bucket another reconciler held when only it had work, or -1
}

func newClaimer(runID int64) *claimer {
	// Runs start in different buckets, so that concurrent ones spread out
	// from the first batch on.
	start := int((uint64(runID) * 0x9e3779b97f4a7c15) >> 58)
	return &claimer{cur: start % Buckets, cursor: make([]*claimKey, Buckets), done: make([]bool, Buckets), wait: -1}
}

// claim reads up to limit pending changes matching f, bucket after bucket:
// it locks a bucket, takes what the bucket has past its cursor, and moves
// on to the next while the batch has room. Buckets held by another
// reconciler are passed over. When only held buckets can have work left,
// it returns nothing and sets cl.wait to one of them: the next batch waits
// for that bucket first, in a new transaction that holds no other bucket
// (so waits never form a cycle), and the run helps with the last buckets
// instead of leaving them to whoever holds them. Nothing with cl.wait < 0
// means every bucket is empty.
func (cl *claimer) claim(ctx context.Context, tx pgx.Tx, f Filter, limit int) ([]claimed, error) {
	var out []claimed
	var held []int
	first := cl.wait
	if first >= 0 {
		cl.wait = -1
		cs, _, err := cl.take(ctx, tx, f, first, limit, true)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	for i := 0; i < Buckets && len(out) < limit; i++ {
		b := (cl.cur + i) % Buckets
		if cl.done[b] || b == first || f.Bucket != nil && b != *f.Bucket {
			continue
		}
		// One partition (f.Bucket): wait for a reconciler that holds it.
		cs, ok, err := cl.take(ctx, tx, f, b, limit-len(out), f.Bucket != nil)
		if err != nil {
			return nil, err
		}
		if !ok {
			held = append(held, b)
		}
		out = append(out, cs...)
	}
	if len(out) == 0 && len(held) > 0 {
		cl.wait = held[0]
	}
	return out, nil
}

// take locks bucket b and claims up to limit of its changes, marking it
// done when empty. With wait it waits for another transaction that holds
// the bucket; without, it reports !ok and claims nothing.
func (cl *claimer) take(ctx context.Context, tx pgx.Tx, f Filter, b, limit int, wait bool) (cs []claimed, ok bool, err error) {
	if wait {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, int32(lockSpace), int32(b)); err != nil {
			return nil, false, err
		}
	} else if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1, $2)`, int32(lockSpace), int32(b)).Scan(&ok); err != nil || !ok {
		return nil, false, err
	}
	if cs, err = claimRows(ctx, tx, f, b, cl.cursor[b], limit); err != nil {
		return nil, false, err
	}
	if len(cs) == 0 && cl.cursor[b] != nil {
		// Past the cursor it is empty; changes before it may have
		// arrived since, or have been left by a batch that was rolled back.
		if cs, err = claimRows(ctx, tx, f, b, nil, limit); err != nil {
			return nil, false, err
		}
	}
	if len(cs) == 0 {
		cl.done[b] = true
	}
	for j := range cs {
		cs[j].bucket = b
	}
	return cs, true, nil
}

// PendingBuckets lists the partitions that have pending changes matching f
// (f.Bucket is ignored): `sync reconcile --enqueue` queues one job per partition.
func PendingBuckets(ctx context.Context, q db.Querier, f Filter) ([]int, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT `+bucketExpr+` FROM sync_changes
		WHERE processed_at IS NULL AND ($1 = '' OR entity_type = $1) AND ($2::uuid IS NULL OR user_id = $2) ORDER BY 1`, f.EntityType, f.UserID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int])
}

// advance moves the cursors of the buckets of cs past them, once their
// batch committed, and the walk to the last of those buckets.
func (cl *claimer) advance(cs []claimed) {
	for _, c := range cs { // in bucket order, each bucket's in index order
		cl.cursor[c.bucket] = &claimKey{key: c.key, id: c.id}
		cl.cur = c.bucket
	}
}

// claimRows claims up to limit pending changes of bucket b after cursor
// (nil: from the start), in the bucket index's order.
func claimRows(ctx context.Context, tx pgx.Tx, f Filter, b int, after *claimKey, limit int) ([]claimed, error) {
	var at *string
	var au *uuid.UUID
	var ae *string
	var ai *int64
	if after != nil {
		at, au, ae, ai = &after.key.Type, &after.key.UserID, &after.key.ID, &after.id
	}
	rows, err := tx.Query(ctx, `
		SELECT id, entity_type, user_id, entity_id, device_id, clock::text, ts, op, doc::text
		FROM sync_changes
		WHERE processed_at IS NULL AND `+bucketExpr+` = $1
		  AND ($2::text IS NULL OR (entity_type, user_id, entity_id, id) > ($2, $3::uuid, $4::text, $5::bigint))
		  AND ($6 = '' OR entity_type = $6)
		  AND ($7::uuid IS NULL OR user_id = $7)
		ORDER BY entity_type, user_id, entity_id, id
		LIMIT $8`, b, at, au, ae, ai, f.EntityType, f.UserID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cs []claimed
	var op string
	for rows.Next() {
		if cs == nil {
			cs = make([]claimed, 0, limit)
		}
		var c claimed
		var doc []byte // a new slice per row (nil for NULL): the change keeps it
		clock := clockScanner{c: &c}
		if err := rows.Scan(&c.id, &c.key.Type, &c.key.UserID, &c.key.ID, &c.change.Device, clock, &c.change.TS, &op, &doc); err != nil {
			return nil, err
		}
		c.change.Op = Op(op)
		c.change.Doc = doc
		cs = append(cs, c)
	}
	return cs, rows.Err()
}

// clockScanner reads a change's clock from the row's bytes as pgx hands
// them over, without a copy; a bad clock makes the change invalid.
type clockScanner struct{ c *claimed }

func (s clockScanner) ScanBytes(b []byte) error {
	var err error
	if s.c.change.Clock, err = parseClock(b); err != nil {
		s.c.err = fmt.Errorf("%w: clock must map device ids to counters: %v", ErrInvalidChange, err)
	}
	return nil
}

// errRace: another transaction processed a claimed change, or created a
// state row the batch meant to create, since the batch read them; the batch
// is rolled back and tried again.
var errRace = errors.New("sync state changed concurrently")

// lockExisting locks the existing state rows of keys (sorted) and loads them;
// keys without a row are missing from the map.
func lockExisting(ctx context.Context, q db.Querier, keys []entityKey) (map[entityKey]*entityState, error) {
	ts, us, ids := keyArrays(keys)
	// ORDER BY under FOR UPDATE locks the rows in that order, so concurrent
	// batches never deadlock on them.
	rows, err := q.Query(ctx, `
		SELECT s.entity_type, s.user_id, s.entity_id, s.merge_state, s.doc::text, s.version
		FROM unnest($1::text[], $2::uuid[], $3::text[]) AS k(t, u, e)
		JOIN LATERAL (SELECT * FROM sync_state s WHERE s.entity_type = k.t AND s.user_id = k.u AND s.entity_id = k.e) s ON true
		ORDER BY s.entity_type, s.user_id, s.entity_id
		FOR UPDATE OF s`, ts, us, ids)
	if err != nil {
		return nil, err
	}
	return scanStates(rows, len(keys), true)
}
