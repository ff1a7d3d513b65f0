package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
)

// Snapshot is one stored copy of the catalog.
type Snapshot struct {
	ID             int64     `json:"id"`
	Source         string    `json:"source"`
	SHA256         string    `json:"sha256"`
	FetchedAt      time.Time `json:"fetched_at"`
	ProviderFilter []string  `json:"provider_filter"`
	ETag           string    `json:"etag,omitempty"`
	Providers      int       `json:"providers"`
	Models         int       `json:"models"`
	Pinned         bool      `json:"pinned"`
}

// ErrNoSnapshot is returned when no snapshot is pinned.
var ErrNoSnapshot = errors.New("no catalog snapshot is pinned: run helix catalog fetch")

// encoded is a catalog rendered for storage: provider heads, model
// descriptors, and the sha256 over all of them in sorted order.
type encoded struct {
	heads map[string]json.RawMessage
	rows  []modelRow
	sum   string
}

type modelRow struct {
	provider, model string
	desc            []byte
}

func encode(cat Catalog) (*encoded, error) {
	e := &encoded{heads: make(map[string]json.RawMessage, len(cat)), rows: make([]modelRow, 0, cat.ModelCount())}
	h := sha256.New()
	for _, pid := range cat.ProviderIDs() {
		p := cat[pid]
		head, err := providerHead(p)
		if err != nil {
			return nil, err
		}
		e.heads[pid] = head
		fmt.Fprintf(h, "%s\x00%s\x00", pid, head)
		mids := make([]string, 0, len(p.Models))
		for mid := range p.Models {
			mids = append(mids, mid)
		}
		sort.Strings(mids)
		for _, mid := range mids {
			d, err := json.Marshal(p.Models[mid])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", Key(pid, mid), err)
			}
			fmt.Fprintf(h, "%s\x00%s\x00", mid, d)
			e.rows = append(e.rows, modelRow{pid, mid, d})
		}
	}
	e.sum = hex.EncodeToString(h.Sum(nil))
	return e, nil
}

// Sum is the sha256 of the catalog's content (providers and models in sorted
// order, each in canonical JSON), in hex: equal content, equal sum.
func (c Catalog) Sum() (string, error) {
	e, err := encode(c)
	if err != nil {
		return "", err
	}
	return e.sum, nil
}

// StoreResult tells what Store did.
type StoreResult struct {
	Snapshot Snapshot `json:"snapshot"`
	// Created is false when a snapshot with the same content already existed.
	Created bool `json:"created"`
}

// Store saves cat as a snapshot and pins it, in one transaction. Content
// already stored (same sha256) is not stored again: that snapshot is pinned
// instead, and its ETag refreshed.
func Store(ctx context.Context, q db.Querier, snap Snapshot, cat Catalog) (StoreResult, error) {
	enc, err := encode(cat)
	if err != nil {
		return StoreResult{}, err
	}
	snap.SHA256 = enc.sum
	snap.Providers = len(cat)
	snap.Models = cat.ModelCount()
	if snap.ProviderFilter == nil {
		snap.ProviderFilter = []string{}
	}
	res := StoreResult{Snapshot: snap}
	err = db.InTx(ctx, q, func(tx pgx.Tx) error {
		var existing Snapshot
		err := tx.QueryRow(ctx, `SELECT `+snapshotCols+` FROM model_catalog_snapshots WHERE sha256 = $1`, snap.SHA256).
			Scan(existing.scanDest()...)
		switch {
		case err == nil:
			res.Snapshot = existing
			if snap.ETag != "" && snap.Source == existing.Source {
				if _, err := tx.Exec(ctx, `UPDATE model_catalog_snapshots SET etag = $2 WHERE id = $1`, existing.ID, snap.ETag); err != nil {
					return err
				}
				res.Snapshot.ETag = snap.ETag
			}
		case errors.Is(err, pgx.ErrNoRows):
			res.Created = true
			res.Snapshot.ID, err = insert(ctx, tx, snap, enc)
			if err != nil {
				return err
			}
		default:
			return err
		}
		if err := pin(ctx, tx, res.Snapshot.ID, snap.FetchedAt); err != nil {
			return err
		}
		res.Snapshot.Pinned = true
		return nil
	})
	return res, err
}

func insert(ctx context.Context, tx pgx.Tx, snap Snapshot, enc *encoded) (int64, error) {
	rows := enc.rows
	hb, err := json.Marshal(enc.heads)
	if err != nil {
		return 0, err
	}
	var id int64
	var etag *string
	if snap.ETag != "" {
		etag = &snap.ETag
	}
	err = tx.QueryRow(ctx, `
		INSERT INTO model_catalog_snapshots (source, sha256, fetched_at, provider_filter, etag, providers, model_count)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		snap.Source, snap.SHA256, snap.FetchedAt, snap.ProviderFilter, etag, hb, len(rows)).Scan(&id)
	if err != nil {
		return 0, err
	}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"model_catalog_models"}, []string{"snapshot_id", "provider", "model_id", "descriptor"},
		pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
			return []any{id, rows[i].provider, rows[i].model, rows[i].desc}, nil
		}))
	return id, err
}

// providerHead is a provider's descriptor without its models.
func providerHead(p *Provider) (json.RawMessage, error) {
	head := *p
	head.Models = nil
	b, err := json.Marshal(&head)
	if err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	delete(all, "models")
	return json.Marshal(all)
}

// pin makes id the one pinned snapshot; the partial unique index guarantees there is never a second.
func pin(ctx context.Context, tx pgx.Tx, id int64, at time.Time) error {
	if _, err := tx.Exec(ctx, `UPDATE model_catalog_snapshots SET pinned = false WHERE pinned AND id <> $1`, id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE model_catalog_snapshots SET pinned = true, pinned_at = $2 WHERE id = $1 AND NOT pinned`, id, at)
	return err
}

const snapshotCols = `id, source, sha256, fetched_at, provider_filter, coalesce(etag, ''),
	(SELECT count(*) FROM jsonb_object_keys(providers)), model_count, pinned`

func (s *Snapshot) scanDest() []any {
	return []any{&s.ID, &s.Source, &s.SHA256, &s.FetchedAt, &s.ProviderFilter, &s.ETag, &s.Providers, &s.Models, &s.Pinned}
}

// Pinned returns the pinned snapshot, or ErrNoSnapshot.
func Pinned(ctx context.Context, q db.Querier) (Snapshot, error) {
	var s Snapshot
	err := q.QueryRow(ctx, `SELECT `+snapshotCols+` FROM model_catalog_snapshots WHERE pinned`).Scan(s.scanDest()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, ErrNoSnapshot
	}
	return s, err
}

// Load reads a snapshot's catalog back: the listed providers only, or all
// of them when the list is empty.
func Load(ctx context.Context, q db.Querier, id int64, providers ...string) (Catalog, error) {
	var heads map[string]json.RawMessage
	if err := q.QueryRow(ctx, `SELECT providers FROM model_catalog_snapshots WHERE id = $1`, id).Scan(&heads); err != nil {
		return nil, fmt.Errorf("load snapshot %d: %w", id, err)
	}
	cat := make(Catalog, len(heads))
	for pid, h := range heads {
		if len(providers) > 0 && !slices.Contains(providers, pid) {
			continue
		}
		p := new(Provider)
		if err := json.Unmarshal(h, p); err != nil {
			return nil, fmt.Errorf("snapshot %d provider %s: %w", id, pid, err)
		}
		cat[pid] = p
	}
	var filter []string // NULL: every provider
	if len(providers) > 0 {
		filter = providers
	}
	rows, err := q.Query(ctx, `SELECT provider, model_id, descriptor FROM model_catalog_models
		WHERE snapshot_id = $1 AND ($2::text[] IS NULL OR provider = ANY ($2))`, id, filter)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var pid, mid string
	var desc []byte
	for rows.Next() {
		if err := rows.Scan(&pid, &mid, &desc); err != nil {
			return nil, err
		}
		m := new(Model)
		if err := json.Unmarshal(desc, m); err != nil {
			return nil, fmt.Errorf("snapshot %d model %s: %w", id, Key(pid, mid), err)
		}
		p := cat[pid]
		if p == nil {
			return nil, fmt.Errorf("snapshot %d: model %s has no provider row", id, Key(pid, mid))
		}
		p.Models[mid] = m
	}
	return cat, rows.Err()
}
