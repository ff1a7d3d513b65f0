// Package audit proves helix's audit tables unchanged: each is a hash chain
// (migration 00240 appends it by trigger), which Verify recomputes and an
// Anchor, kept elsewhere, pins against a rewrite of the newest rows.
package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
)

// Chain is one audit table's chain: its settings in helix_audit_chains and
// its head, the newest chained row.
type Chain struct {
	Table         string
	Seq           int64 // rows in the chain: the newest row's chain_seq
	Head          []byte
	TimeColumn    string
	Volatile      []string
	PendingColumn string // rows whose PendingColumn is PendingValue are not finished: not chained yet
	PendingValue  string
}

// Genesis is the hash a table's first row is chained to.
func Genesis(table string) []byte {
	h := sha256.Sum256([]byte("helix audit chain " + table))
	return h[:]
}

// Link is the chain hash of a row whose content digest is digest, after prev.
func Link(prev, digest []byte) []byte {
	h := sha256.New()
	h.Write(prev)
	h.Write(digest)
	return h.Sum(nil)
}

// Chains lists the chained tables, ordered by name, each with its head.
func Chains(ctx context.Context, q db.Querier) ([]Chain, error) {
	chains, err := listChains(ctx, q)
	if err != nil {
		return nil, err
	}
	for i := range chains {
		if err := chains[i].readHead(ctx, q); err != nil {
			return nil, err
		}
	}
	return chains, nil
}

// listChains lists the chained tables, ordered by name, without their heads.
func listChains(ctx context.Context, q db.Querier) ([]Chain, error) {
	rows, err := q.Query(ctx, `
SELECT tbl, time_column, volatile, coalesce(pending_column, ''), coalesce(pending_value, '')
FROM helix_audit_chains ORDER BY tbl`)
	if err != nil {
		return nil, fmt.Errorf("read audit chains: %w", err)
	}
	chains, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Chain, error) {
		var c Chain
		err := r.Scan(&c.Table, &c.TimeColumn, &c.Volatile, &c.PendingColumn, &c.PendingValue)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("read audit chains: %w", err)
	}
	return chains, nil
}

// readHead sets c's head: its newest chained row (the genesis of an empty chain).
func (c *Chain) readHead(ctx context.Context, q db.Querier) error {
	err := q.QueryRow(ctx, fmt.Sprintf(`SELECT chain_seq, chain_hash FROM %s WHERE chain_seq IS NOT NULL ORDER BY chain_seq DESC LIMIT 1`,
		pgx.Identifier{c.Table}.Sanitize())).Scan(&c.Seq, &c.Head)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		c.Seq, c.Head = 0, Genesis(c.Table)
	case err != nil:
		return fmt.Errorf("read the head of %s: %w", c.Table, err)
	}
	return nil
}

// Problem is the first thing found wrong in a chain.
type Problem struct {
	// Kind: changed (a row no longer matches its chain hash: edited, or
	// forged with a made-up hash), deleted (a gap in the chain), unchained
	// (a finished row written past the chain), truncated (the newest rows
	// are gone: an anchor names rows that are not there).
	Kind    string `json:"kind"`
	ID      *int64 `json:"id,omitempty"`
	Seq     int64  `json:"seq,omitempty"`
	Message string `json:"message"`
}

// Result is one table's verification.
type Result struct {
	Table   string   `json:"table"`
	From    int64    `json:"from_seq"` // first chain position checked
	Rows    int64    `json:"rows"`     // rows checked
	Seq     int64    `json:"seq"`      // the chain's length
	Head    string   `json:"head"`     // hex
	Intact  bool     `json:"intact"`
	Problem *Problem `json:"problem,omitempty"`
}

// Options narrow a verification.
type Options struct {
	Table  string    // one table; "" for all
	Since  time.Time // check from the first row at or after this time, trusting the link before it
	Anchor *Anchor   // heads taken earlier: each must still be in the chain
}

// ErrUnknownTable is a --table that is not an audit table.
var ErrUnknownTable = errors.New("not an audit table")

// Verify recomputes the chains. A table's result says where its chain is
// first broken; the error is only for a failure to read.
func Verify(ctx context.Context, q db.Querier, o Options) ([]Result, error) {
	chains, err := listChains(ctx, q)
	if err != nil {
		return nil, err
	}
	if o.Table != "" {
		i := slices.IndexFunc(chains, func(c Chain) bool { return c.Table == o.Table })
		if i < 0 {
			names := make([]string, len(chains))
			for j, c := range chains {
				names[j] = c.Table
			}
			return nil, fmt.Errorf("%q: %w (one of %s)", o.Table, ErrUnknownTable, strings.Join(names, ", "))
		}
		chains = chains[i : i+1]
	}
	for i := range chains {
		if err := chains[i].readHead(ctx, q); err != nil {
			return nil, err
		}
	}
	out := make([]Result, 0, len(chains))
	for _, c := range chains {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r, err := verifyChain(ctx, q, c, o)
		if err != nil {
			return out, fmt.Errorf("verify %s: %w", c.Table, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func verifyChain(ctx context.Context, q db.Querier, c Chain, o Options) (Result, error) {
	tbl := pgx.Identifier{c.Table}.Sanitize()
	res := Result{Table: c.Table, Seq: c.Seq, Head: hex.EncodeToString(c.Head), From: 1}
	prev := Genesis(c.Table)
	if !o.Since.IsZero() {
		// Trust the last link before the first row since then, and walk on from it.
		var base *int64
		var h []byte
		err := q.QueryRow(ctx, fmt.Sprintf(`SELECT chain_seq, chain_hash FROM %[1]s
WHERE chain_seq < coalesce((SELECT min(chain_seq) FROM %[1]s WHERE %[2]s >= $1), $2 + 1)
ORDER BY chain_seq DESC LIMIT 1`, tbl, pgx.Identifier{c.TimeColumn}.Sanitize()), o.Since, c.Seq).Scan(&base, &h)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return res, err
		default:
			res.From, prev = *base+1, h
		}
	}
	var err error
	res.Problem, res.Rows, err = walk(ctx, q, tbl, c, res.From, prev)
	if err != nil {
		return res, err
	}
	if res.Problem == nil {
		p, err := checkUnchained(ctx, q, tbl, c)
		if err != nil {
			return res, err
		}
		res.Problem = p
	}
	if res.Problem == nil && o.Anchor != nil {
		p, err := checkAnchor(ctx, q, tbl, c, o.Anchor)
		if err != nil {
			return res, err
		}
		res.Problem = p
	}
	res.Intact = res.Problem == nil
	return res, nil
}

// walk streams the chain from seq from on and stops at the first broken link.
func walk(ctx context.Context, q db.Querier, tbl string, c Chain, from int64, prev []byte) (*Problem, int64, error) {
	rows, err := q.Query(ctx, fmt.Sprintf(`SELECT chain_seq, id, chain_hash, helix_audit_digest(t, $1) FROM %s t
WHERE chain_seq >= $2 ORDER BY chain_seq`, tbl), c.Volatile, from)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var (
		n, seq, id int64
		hash, dig  []byte
		want       = from
	)
	for rows.Next() {
		if err := rows.Scan(&seq, &id, &hash, &dig); err != nil {
			return nil, n, err
		}
		n++
		switch {
		case seq > want:
			return &Problem{Kind: "deleted", ID: &id, Seq: seq, Message: fmt.Sprintf("%s: %s before row id %d (chain seq %d) deleted",
				c.Table, rowsWord(seq-want, want, seq-1), id, seq)}, n, nil
		case !bytes.Equal(hash, Link(prev, dig)):
			return &Problem{Kind: "changed", ID: &id, Seq: seq, Message: fmt.Sprintf("%s: row id %d (chain seq %d) changed: its content no longer matches its chain hash",
				c.Table, id, seq)}, n, nil
		}
		prev, want = hash, seq+1
	}
	return nil, n, rows.Err()
}

func rowsWord(n, from, to int64) string {
	if n == 1 {
		return fmt.Sprintf("row at chain seq %d", from)
	}
	return fmt.Sprintf("%d rows at chain seq %d–%d", n, from, to)
}

// checkUnchained finds a finished row with no place in the chain.
func checkUnchained(ctx context.Context, q db.Querier, tbl string, c Chain) (*Problem, error) {
	cond := "true"
	args := []any{}
	if c.PendingColumn != "" {
		cond = fmt.Sprintf("%s IS DISTINCT FROM $1", pgx.Identifier{c.PendingColumn}.Sanitize())
		args = append(args, c.PendingValue)
	}
	var id int64
	err := q.QueryRow(ctx, fmt.Sprintf(`SELECT id FROM %s WHERE chain_seq IS NULL AND %s ORDER BY id LIMIT 1`, tbl, cond), args...).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &Problem{Kind: "unchained", ID: &id, Message: fmt.Sprintf("%s: row id %d was inserted out of chain (written past the audit trigger)", c.Table, id)}, nil
}

func checkAnchor(ctx context.Context, q db.Querier, tbl string, c Chain, a *Anchor) (*Problem, error) {
	i := slices.IndexFunc(a.Heads, func(h Head) bool { return h.Table == c.Table })
	if i < 0 || a.Heads[i].Seq == 0 {
		return nil, nil
	}
	h := a.Heads[i]
	var got []byte
	err := q.QueryRow(ctx, fmt.Sprintf(`SELECT chain_hash FROM %s WHERE chain_seq = $1`, tbl), h.Seq).Scan(&got)
	if errors.Is(err, pgx.ErrNoRows) {
		return &Problem{Kind: "truncated", Seq: h.Seq, Message: fmt.Sprintf("%s: the anchor of %s names chain seq %d, which is gone: rows were deleted after the anchor",
			c.Table, cmdTime(a.At), h.Seq)}, nil
	}
	if err != nil {
		return nil, err
	}
	if hex.EncodeToString(got) != h.Hash {
		return &Problem{Kind: "changed", Seq: h.Seq, Message: fmt.Sprintf("%s: chain seq %d differs from the anchor of %s: the chain was rewritten up to there",
			c.Table, h.Seq, cmdTime(a.At))}, nil
	}
	return nil, nil
}

func cmdTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Anchor is every chain's head at one instant, to keep outside the database.
type Anchor struct {
	At    time.Time `json:"at"`
	Heads []Head    `json:"heads"`
}

// Head is one chain's length and last hash.
type Head struct {
	Table string `json:"table"`
	Seq   int64  `json:"seq"`
	Hash  string `json:"hash"` // hex sha256
}

// TakeAnchor reads the heads.
func TakeAnchor(ctx context.Context, q db.Querier, now time.Time) (Anchor, error) {
	chains, err := Chains(ctx, q)
	if err != nil {
		return Anchor{}, err
	}
	a := Anchor{At: now.UTC(), Heads: make([]Head, len(chains))}
	for i, c := range chains {
		a.Heads[i] = Head{Table: c.Table, Seq: c.Seq, Hash: hex.EncodeToString(c.Head)}
	}
	return a, nil
}

// ParseAnchor reads what `helix audit anchor` printed: one JSON object.
func ParseAnchor(b []byte) (*Anchor, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var a Anchor
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("not an audit anchor: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not an audit anchor: more than one JSON value")
	}
	if len(a.Heads) == 0 {
		return nil, errors.New("not an audit anchor: no heads")
	}
	seen := map[string]bool{}
	for _, h := range a.Heads {
		if h.Table == "" || seen[h.Table] {
			return nil, fmt.Errorf("not an audit anchor: table %q missing or twice", h.Table)
		}
		seen[h.Table] = true
		if h.Seq < 0 {
			return nil, fmt.Errorf("not an audit anchor: %s: negative seq", h.Table)
		}
		if b, err := hex.DecodeString(h.Hash); err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("not an audit anchor: %s: hash is not 64 hex digits", h.Table)
		}
	}
	return &a, nil
}
