package composite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/redact"
	"github.com/helixhq/helix/internal/scrub"
)

// ErrNotFound is returned by Load for a composite skill that is not stored.
var ErrNotFound = errors.New("composite skill not found")

// ErrVersionExists is returned by Save when name and version are stored with another definition.
var ErrVersionExists = errors.New("composite skill version already exists with a different definition")

// Stored is a row of composite_skills.
type Stored struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
	// Created is false when the same definition was already stored.
	Created bool `json:"created"`
	// Owner is the user the composite belongs to; null: shared.
	Owner any `json:"owner"`
}

// Save stores d under its name and version. Saving the same definition again
// changes nothing; a different definition under a stored version is refused,
// so that what a version means never changes.
func Save(ctx context.Context, q db.Querier, d *Definition) (Stored, error) {
	return SaveFor(ctx, q, d, owner.Shared)
}

// SaveFor is Save in o's namespace: a user's own composite (its name and
// versions apart from anyone else's), or shared.
func SaveFor(ctx context.Context, q db.Querier, d *Definition, o owner.Owner) (Stored, error) {
	s := Stored{Name: d.Name, Version: d.Version, SHA256: d.SHA256, Owner: o.Ptr()}
	err := q.QueryRow(ctx, `
		INSERT INTO helix_composite_skills (name, version, definition, sha256, user_id) VALUES ($1, $2, $3, $4, $5::uuid)
		ON CONFLICT (user_id, name, version) DO NOTHING RETURNING id`,
		d.Name, d.Version, d.JSON, d.SHA256, o.Arg()).Scan(&s.ID)
	if err == nil {
		s.Created = true
		return s, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return s, err
	}
	var sum string
	if err := q.QueryRow(ctx, `SELECT id, sha256 FROM helix_composite_skills WHERE name = $1 AND version = $2 AND `+owner.Owned("user_id", 3),
		d.Name, d.Version, o.Arg()).Scan(&s.ID, &sum); err != nil {
		return s, err
	}
	if sum != d.SHA256 {
		return s, fmt.Errorf("%s@%s: %w: bump the version", d.Name, d.Version, ErrVersionExists)
	}
	return s, nil
}

// Load reads NAME@VERSION, or the most recently added version of NAME, of
// the shared composites.
func Load(ctx context.Context, q db.Querier, ref string) (*Definition, int64, error) {
	return LoadFor(ctx, q, ref, owner.Shared)
}

// LoadFor is Load for o: the user's own composite of that name, else the
// shared one; another user's is not found, like a missing one.
func LoadFor(ctx context.Context, q db.Querier, ref string, o owner.Owner) (*Definition, int64, error) {
	name, version, _ := strings.Cut(ref, "@")
	var (
		id  int64
		raw []byte
		v   string
	)
	err := q.QueryRow(ctx, `
		SELECT id, version, definition FROM helix_composite_skills
		WHERE name = $1 AND ($2 = '' OR version = $2) AND `+owner.Visible("user_id", 3)+`
		ORDER BY `+owner.OwnFirst("user_id")+`, created_at DESC, id DESC LIMIT 1`, name, version, o.Arg()).Scan(&id, &v, &raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, 0, fmt.Errorf("%w: %s (list them with helix skill list, add one with helix skill add-composite)", ErrNotFound, ref)
	}
	if err != nil {
		return nil, 0, err
	}
	d, err := Parse(raw, "composite_skills:"+name+"@"+v, "")
	if err != nil {
		return nil, 0, err
	}
	return d, id, nil
}

// Start records a running execution of d (stored as compositeID, 0 when it
// comes from a file) and returns its id, which the steps' skill executions
// link to. It is written before the run so that a crash leaves a trace.
// client names the program that asked ("": the helix CLI; "mcp:NAME").
func Start(ctx context.Context, q db.Querier, d *Definition, compositeID int64, userID, client string, input json.RawMessage) (int64, error) {
	var cid *int64
	if compositeID != 0 {
		cid = &compositeID
	}
	if !json.Valid(input) {
		input = nil
	}
	var id int64
	err := q.QueryRow(ctx, `
		INSERT INTO composite_skill_executions (composite_skill_id, name, version, sha256, user_id, status, input, started_at, client)
		VALUES ($1, $2, $3, $4, NULLIF($5, '')::uuid, 'running', COALESCE($6::jsonb, 'null'), clock_timestamp(), NULLIF($7, '')) RETURNING id`,
		cid, d.Name, d.Version, d.SHA256, userID, input, client).Scan(&id)
	return id, err
}

// Finish records how the execution ended, even when ctx was cancelled.
func Finish(ctx context.Context, q db.Querier, rec *Record) error {
	steps, err := json.Marshal(rec.Steps)
	if err != nil {
		return err
	}
	// Errors are stored with every known secret masked (package redact); in
	// the steps' JSON a secret sits inside a string, so masking keeps it valid.
	// The outputs are untrusted too: what looks like a key, token, card,
	// email or phone number is replaced in the strings (package scrub), counted.
	steps, c, _ := scrub.JSON([]byte(redact.String(string(steps))))
	output := rec.Output
	if len(output) > 0 {
		var co scrub.Counts
		output, co, _ = scrub.JSON(output)
		c = c.Add(co)
	}
	var msg *string
	if rec.Error != "" {
		m, cm := scrub.Text(redact.String(rec.Error))
		c = c.Add(cm)
		msg = &m
	}
	var scrubbed *scrub.Counts
	if c.Total() > 0 {
		scrubbed = &c
	}
	_, err = q.Exec(context.WithoutCancel(ctx), `
		UPDATE composite_skill_executions
		SET status = $2, output = $3, steps = $4, error = $5, duration_ms = $6, finished_at = clock_timestamp(), scrubbed = $7
		WHERE id = $1`,
		rec.ID, rec.Status, output, steps, msg, rec.DurationMS, scrubbed)
	return err
}
