package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/netguard"
)

// UpdateOptions are the inputs of Update.
type UpdateOptions struct {
	Source    string
	Providers []string // sorted, without duplicates; nil keeps every provider
	Fetch     FetchOptions
	Now       time.Time
	// Complete, when set, runs inside the transaction that stores and pins
	// the snapshot, before it commits (a queue worker completes its job
	// there). A 304 stores nothing and does not call it.
	Complete func(ctx context.Context, tx pgx.Tx) error
}

// UpdateResult is what Update did. Catalog is the stored catalog, nil after a 304.
type UpdateResult struct {
	StoreResult
	// NotModified is true when the source answered 304 to the pinned snapshot's ETag.
	NotModified bool    `json:"not_modified"`
	Catalog     Catalog `json:"-"`
}

// SourceError is a failure of the source: Permanent when trying again cannot
// help (a refused address, a 4xx, a missing file, malformed JSON, a missing
// provider), else the source is unavailable for now (5xx, 429, timeout).
type SourceError struct {
	Err       error
	Permanent bool
}

func (e *SourceError) Error() string { return e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// sourceError carries its exit class: bad input (2) when permanent, else
// unavailable (4).
func sourceError(permanent bool, err error) *SourceError {
	if permanent {
		return &SourceError{Err: exitcode.AsInput(err), Permanent: true}
	}
	return &SourceError{Err: exitcode.AsUnavailable(err)}
}

// Update downloads the catalog from o.Source, keeps o.Providers, stores it
// as a snapshot and pins it: the unit of `catalog fetch`, in-process and on
// a queue worker. When the pinned snapshot came from the same source with the
// same providers its ETag is sent, and a 304 changes nothing.
func Update(ctx context.Context, q db.Querier, o UpdateOptions) (*UpdateResult, error) {
	pinned, err := Pinned(ctx, q)
	if err != nil && !errors.Is(err, ErrNoSnapshot) {
		return nil, err
	}
	if err == nil && pinned.Source == o.Source && slices.Equal(pinned.ProviderFilter, o.Providers) {
		o.Fetch.ETag = pinned.ETag
	}
	fetched, err := Fetch(ctx, o.Source, o.Fetch)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		if netguard.Permanent(err) {
			return nil, sourceError(true, fmt.Errorf("fetch catalog: %w", err))
		}
		return nil, sourceError(false, fmt.Errorf("fetch catalog (retry later): %w", err))
	}
	if fetched.NotModified {
		return &UpdateResult{StoreResult: StoreResult{Snapshot: pinned}, NotModified: true}, nil
	}
	cat, err := Parse(fetched.Body)
	if err != nil {
		return nil, sourceError(true, fmt.Errorf("parse catalog from %s: %w", o.Source, err))
	}
	all := len(cat) // before the filter keeps only the providers asked for
	cat, missing := cat.Filter(o.Providers)
	if len(missing) > 0 {
		return nil, sourceError(true, fmt.Errorf("%s has no provider %s (it has %d providers: see helix catalog show)",
			o.Source, strings.Join(missing, ", "), all))
	}
	snap := Snapshot{Source: o.Source, FetchedAt: o.Now, ProviderFilter: o.Providers, ETag: fetched.ETag}
	var st StoreResult
	err = db.InTx(ctx, q, func(tx pgx.Tx) error {
		var err error
		if st, err = Store(ctx, tx, snap, cat); err != nil {
			return err
		}
		if o.Complete != nil {
			return o.Complete(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store catalog snapshot: %w", err)
	}
	return &UpdateResult{StoreResult: st, Catalog: cat}, nil
}
