package skill

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/owner"
	"github.com/helixhq/helix/internal/redact"
	"github.com/helixhq/helix/internal/scrub"
)

// ErrNotFound is returned when no stored skill matches a reference.
var ErrNotFound error = &UsageError{Err: errors.New("skill not found")}

// ErrExists is returned when NAME@VERSION is already stored with other code.
var ErrExists error = &UsageError{Err: errors.New("skill version already exists")}

// AddResult says what Add did.
type AddResult struct {
	Skill   *Skill
	Created bool // false: the same code was already stored under this name and version
}

// Add stores s in the namespace of s.Owner (a user's own, or nil: shared).
// With no version, adding code already stored as the latest version returns
// that version; otherwise the next integer version is used. Versions count
// per owner: a user's first `summary` is version 1 whatever else is stored.
func Add(ctx context.Context, q db.Querier, s *Skill) (*AddResult, error) {
	o := owner.FromPtr(s.Owner)
	if err := ValidateName(s.Name); err != nil {
		return nil, usage(err)
	}
	c, caps, err := ParseCapabilities(s.Capabilities)
	if err != nil {
		return nil, usage(err)
	}
	if c.FSRead != "" && s.Engine != EngineWasm {
		return nil, usage(fmt.Errorf("capability fs:read is for wasm skills only: JavaScript skills have no I/O"))
	}
	s.Capabilities = caps
	s.SHA256 = Sum(s.Code)
	var res *AddResult
	err = db.InTx(ctx, q, func(tx pgx.Tx) error {
		// Serialise adds of one name so "next version" cannot be taken twice.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, db.LockKey("skill:"+o.LockKey(s.Name))); err != nil {
			return err
		}
		if s.Version == "" {
			latest, err := getOwned(ctx, tx, Ref{Name: s.Name, Owner: o})
			switch {
			case errors.Is(err, ErrNotFound):
				s.Version = "1"
			case err != nil:
				return err
			case latest.SHA256 == s.SHA256:
				res = &AddResult{Skill: latest}
				return nil
			default:
				s.Version, err = nextVersion(ctx, tx, s.Name, o)
				if err != nil {
					return err
				}
			}
		} else if err := ValidateVersion(s.Version); err != nil {
			return usage(err)
		}
		existing, err := getOwned(ctx, tx, Ref{Name: s.Name, Version: s.Version, Owner: o})
		if err == nil {
			if existing.SHA256 == s.SHA256 {
				res = &AddResult{Skill: existing}
				return nil
			}
			return fmt.Errorf("%w: %s@%s holds other code (sha256 %s…); add it under a new --version", ErrExists, s.Name, s.Version, existing.SHA256[:12])
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		var params any
		if len(s.Params) > 0 {
			params = string(s.Params)
		}
		err = tx.QueryRow(ctx, `
INSERT INTO helix_skills (name, version, engine, code, sha256, params, capabilities, timeout_ms, memory_bytes, output_bytes, user_id)
VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11::uuid)
RETURNING id, created_at`,
			s.Name, s.Version, string(s.Engine), s.Code, s.SHA256, params, s.Capabilities,
			nullPos(s.Limits.Timeout.Milliseconds()), nullPos(s.Limits.MemoryBytes), nullPos(s.Limits.OutputBytes), o.Arg(),
		).Scan(&s.ID, &s.CreatedAt)
		s.Owner = o.Ptr()
		if err != nil {
			return err
		}
		res = &AddResult{Skill: s, Created: true}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func nextVersion(ctx context.Context, q db.Querier, name string, o owner.Owner) (string, error) {
	var n int64
	err := q.QueryRow(ctx, `
SELECT coalesce(max(version::bigint), 0) FROM helix_skills WHERE name = $1 AND version ~ '^[0-9]{1,18}$' AND `+owner.Owned("user_id", 2), name, o.Arg()).Scan(&n)
	return strconv.FormatInt(n+1, 10), err
}

func nullPos(v int64) *int64 {
	if v <= 0 {
		return nil
	}
	return &v
}

const skillColumns = `id, name, version, engine, code, sha256, params::text, capabilities,
	coalesce(timeout_ms, 0), coalesce(memory_bytes, 0), coalesce(output_bytes, 0), created_at,
	user_id, NOT enabled, usage_count, last_used_at`

func scanSkill(row pgx.Row) (*Skill, error) {
	var s Skill
	var engine string
	var params *string
	var timeoutMS int64
	err := row.Scan(&s.ID, &s.Name, &s.Version, &engine, &s.Code, &s.SHA256, &params, &s.Capabilities,
		&timeoutMS, &s.Limits.MemoryBytes, &s.Limits.OutputBytes, &s.CreatedAt,
		&s.Owner, &s.Disabled, &s.UsageCount, &s.LastUsedAt)
	if err != nil {
		return nil, err
	}
	s.Engine = Engine(engine)
	s.Limits.Timeout = time.Duration(timeoutMS) * time.Millisecond
	if params != nil {
		s.Params = []byte(*params)
	}
	return &s, nil
}

// Get loads NAME@VERSION, or the latest version of NAME, for r.Owner: the
// user's own skill of that name, else a shared one, else ErrNotFound (another
// user's skill is not found, exactly like one that does not exist).
func Get(ctx context.Context, q db.Querier, r Ref) (*Skill, error) {
	return get(ctx, q, r, skillColumns)
}

// getOwned is Get in r.Owner's own namespace only (no shared fallback): what
// Add, enable, disable and remove work on.
func getOwned(ctx context.Context, q db.Querier, r Ref) (*Skill, error) {
	return query(ctx, q, r, skillColumns, owner.Owned("user_id", 3))
}

// getMeta is Get without the code (Skill.Code is nil).
func getMeta(ctx context.Context, q db.Querier, r Ref) (*Skill, error) {
	return get(ctx, q, r, strings.Replace(skillColumns, "code,", "NULL::bytea,", 1))
}

func get(ctx context.Context, q db.Querier, r Ref, columns string) (*Skill, error) {
	return query(ctx, q, r, columns, owner.Visible("user_id", 3))
}

func query(ctx context.Context, q db.Querier, r Ref, columns, whose string) (*Skill, error) {
	// $2 is NULL for the latest version: the user's own name wins over a
	// shared one as a whole, never mixing versions of the two.
	var version any
	if r.Version != "" {
		version = r.Version
	}
	row := q.QueryRow(ctx, `SELECT `+columns+` FROM helix_skills
		WHERE name = $1 AND ($2::text IS NULL OR version = $2) AND `+whose+`
		ORDER BY `+owner.OwnFirst("user_id")+`, created_at DESC, id DESC LIMIT 1`, r.Name, version, r.Owner.Arg())
	s, err := scanSkill(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound(r)
	}
	return s, err
}

func notFound(r Ref) error {
	return fmt.Errorf("%w: %s (list stored skills with helix skill list)", ErrNotFound, r)
}

// Resolve loads a skill from a file path when one exists there, else, for a
// uuid, the platform's own skills row (its wasm_bytecode), else from helix's
// shared registry by NAME[@VERSION].
func Resolve(ctx context.Context, q db.Querier, nameOrFile string) (*Skill, error) {
	return ResolveFor(ctx, q, nameOrFile, owner.Shared)
}

// ResolveFor is Resolve for o: the user's own stored skill, then a shared one.
func ResolveFor(ctx context.Context, q db.Querier, nameOrFile string, o owner.Owner) (*Skill, error) {
	return resolve(ctx, q, nameOrFile, o, Get)
}

func resolve(ctx context.Context, q db.Querier, nameOrFile string, o owner.Owner, get func(context.Context, db.Querier, Ref) (*Skill, error)) (*Skill, error) {
	if st, err := os.Stat(nameOrFile); err == nil && st.Mode().IsRegular() {
		s, err := LoadFile(nameOrFile)
		if err != nil {
			return nil, usage(err)
		}
		return s, nil
	}
	if id, err := uuid.Parse(nameOrFile); err == nil {
		return platformSkill(ctx, q, id)
	}
	r, err := ParseRef(nameOrFile)
	if err != nil {
		return nil, usage(fmt.Errorf("%q is neither a file nor a skill name: %w", nameOrFile, err))
	}
	r.Owner = o
	return get(ctx, q, r)
}

// platformSkill loads a row of the platform's skills table: WebAssembly in
// wasm_bytecode, run with no capabilities and the default limits (the row
// declares none helix can trust).
func platformSkill(ctx context.Context, q db.Querier, id uuid.UUID) (*Skill, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('public.skills') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("%w: %s (this database has no platform skills table; helix's own skills run by NAME[@VERSION])", ErrNotFound, id)
	}
	var code []byte
	var created *time.Time
	err := q.QueryRow(ctx, `SELECT wasm_bytecode, created_at::timestamptz FROM skills WHERE id = $1`, id).Scan(&code, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: platform skill %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	if len(code) == 0 {
		return nil, usage(fmt.Errorf("platform skill %s has no wasm_bytecode", id))
	}
	sum := sha256.Sum256(code)
	s := &Skill{Name: "skills/" + id.String(), Engine: EngineWasm, Code: code, SHA256: hex.EncodeToString(sum[:])}
	if created != nil {
		s.CreatedAt = *created
	}
	return s, nil
}

// Summary is one row of List.
type Summary struct {
	Name         string    `json:"name"`
	Version      string    `json:"version"`
	Engine       Engine    `json:"engine"`
	SHA256       string    `json:"sha256"`
	Size         int       `json:"size"`
	Capabilities []string  `json:"capabilities"`
	HasParams    bool      `json:"has_params"`
	CreatedAt    time.Time `json:"created_at"`
	Versions     int       `json:"versions"`
	// Owner is the user the skill belongs to; null: shared.
	Owner      *uuid.UUID `json:"owner"`
	Enabled    bool       `json:"enabled"`
	UsageCount int64      `json:"usage_count"`
	LastUsedAt *time.Time `json:"last_used_at"`
}

// List returns the latest version of every shared skill (or every version with all).
func List(ctx context.Context, q db.Querier, all bool) ([]Summary, error) {
	return ListFor(ctx, q, all, owner.Shared)
}

// ListFor is List for o: o's own skills and the shared ones, the own first.
func ListFor(ctx context.Context, q db.Querier, all bool, o owner.Owner) ([]Summary, error) {
	rows, err := q.Query(ctx, `
SELECT name, version, engine, sha256, length(code), capabilities, params IS NOT NULL, created_at,
       count(*) OVER (PARTITION BY user_id, name)::int,
       row_number() OVER (PARTITION BY user_id, name ORDER BY created_at DESC, id DESC) AS rn,
       user_id, enabled, usage_count, last_used_at
FROM helix_skills WHERE `+owner.Visible("user_id", 1)+`
ORDER BY name, `+owner.OwnFirst("user_id")+`, created_at DESC, id DESC`, o.Arg())
	if err != nil {
		return nil, err
	}
	out := []Summary{}
	for rows.Next() {
		var s Summary
		var rn int64
		if err := rows.Scan(&s.Name, &s.Version, &s.Engine, &s.SHA256, &s.Size, &s.Capabilities, &s.HasParams, &s.CreatedAt, &s.Versions, &rn,
			&s.Owner, &s.Enabled, &s.UsageCount, &s.LastUsedAt); err != nil {
			rows.Close()
			return nil, err
		}
		if all || rn == 1 {
			out = append(out, s)
		}
	}
	return out, rows.Err()
}

// Execution is one row of skill_executions, as shown by `skill show`.
type Execution struct {
	ID         int64     `json:"id"`
	Version    string    `json:"version"`
	UserID     string    `json:"user_id,omitempty"`
	Status     Status    `json:"status"`
	StartedAt  time.Time `json:"started_at"`
	DurationMS float64   `json:"duration_ms"`
	// CPUMS and PeakRSSBytes are nil for runs recorded before helix measured them.
	CPUMS        *float64 `json:"cpu_ms"`
	PeakRSSBytes *int64   `json:"peak_rss_bytes"`
	// Requests is how many requests the run sent (refused ones apart).
	Requests int    `json:"requests,omitempty"`
	Refused  int    `json:"refused,omitempty"`
	Error    string `json:"error,omitempty"`
}

// RecentExecutions returns the last n executions of a registry skill, newest
// first. Runs of a skill file (skill exec ./hello.js: no version) are kept
// apart: a file named like a registry skill is not that skill.
func RecentExecutions(ctx context.Context, q db.Querier, name string, n int) ([]Execution, error) {
	return RecentExecutionsOf(ctx, q, name, nil, owner.Shared, n)
}

// RecentExecutionsOf is RecentExecutions of the skill of that name owned by
// skillOwner (nil: shared), as viewer sees them: another user's `summary` is
// another skill, and a user sees only their own runs (the operator all).
func RecentExecutionsOf(ctx context.Context, q db.Querier, name string, skillOwner *uuid.UUID, viewer owner.Owner, n int) ([]Execution, error) {
	rows, err := q.Query(ctx, `
SELECT e.id, e.skill_version, coalesce(e.user_id::text, ''), e.status, e.started_at, e.duration_ms, e.cpu_ms, e.peak_rss_bytes,
	coalesce((e.network->>'requests')::int, 0), coalesce((e.network->>'refused')::int, 0), coalesce(e.error, '')
FROM skill_executions e
WHERE e.skill_name = $1 AND e.skill_version IS NOT NULL
  AND (e.skill_id IS NULL OR e.skill_id IN (SELECT id FROM helix_skills WHERE name = $1 AND user_id IS NOT DISTINCT FROM $3::uuid))
  AND ($4::uuid IS NULL OR e.user_id = $4::uuid)
ORDER BY e.started_at DESC, e.id DESC LIMIT $2`, name, n, skillOwner, viewer.Arg())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Execution, error) {
		var e Execution
		err := r.Scan(&e.ID, &e.Version, &e.UserID, &e.Status, &e.StartedAt, &e.DurationMS, &e.CPUMS, &e.PeakRSSBytes, &e.Requests, &e.Refused, &e.Error)
		return e, err
	})
}

func recordExecution(ctx context.Context, q db.Querier, s *Skill, o ExecOptions, r *Result) error {
	lim, err := json.Marshal(r.Limits)
	if err != nil {
		return err
	}
	var skillID, composite *int64
	if s.ID > 0 {
		skillID = &s.ID
	}
	if o.CompositeExecutionID > 0 {
		composite = &o.CompositeExecutionID
	}
	var version, user, output, errText, stderr, client *string
	str := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	// What the skill printed is untrusted: it is stored with every known
	// secret masked (package redact) and everything that looks like a key,
	// token, card, email or phone number replaced (package scrub), counted.
	out, c1, _ := scrub.JSON(r.Output)
	errScrubbed, c2 := scrub.Text(redact.String(r.Error))
	stderrScrubbed, c3 := scrub.Text(redact.String(r.Stderr))
	r.StoredOutput = out
	var scrubbed *scrub.Counts
	if c := c1.Add(c2).Add(c3); c.Total() > 0 {
		scrubbed, r.Scrubbed = &c, &c
	}
	version, user, output, errText, stderr = str(s.Version), str(o.UserID), str(string(out)), str(errScrubbed), str(stderrScrubbed)
	client = str(o.Client)
	// Nothing ran (invalid input): no cost to record, rather than a zero.
	var cpu *float64
	var peak *int64
	if r.CPUMS > 0 || r.PeakRSSBytes > 0 {
		cpu, peak = &r.CPUMS, &r.PeakRSSBytes
	}
	var network []byte
	if r.Network != nil {
		if network, err = json.Marshal(r.Network); err != nil {
			return err
		}
		network = []byte(redact.String(string(network))) // a refusal's reason quotes a host name
	}
	// every run of a stored skill counts, as the platform's custom_tools
	// does: in the statement that records it, so the two never disagree
	err = q.QueryRow(ctx, `
WITH e AS (
INSERT INTO skill_executions (skill_id, skill_name, skill_version, skill_sha256, engine, user_id,
	composite_execution_id, input_sha256, status, started_at, duration_ms, output, error, stderr, limits, client, scrubbed,
	cpu_ms, peak_rss_bytes, network)
VALUES ($1, $2, $3, $4, $5, $6::uuid, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
RETURNING id, skill_id, started_at
), used AS (
UPDATE helix_skills s SET usage_count = s.usage_count + 1, last_used_at = greatest(s.last_used_at, e.started_at)
FROM e WHERE s.id = e.skill_id
)
SELECT id FROM e`,
		skillID, s.Name, version, r.SHA256, string(s.Engine), user, composite, r.InputSHA256,
		string(r.Status), r.StartedAt, r.DurationMS, output, errText, stderr, lim, client, scrubbed,
		cpu, peak, network).Scan(&r.ExecutionID)
	return err
}

// ErrDisabled is an exec of a disabled skill.
var ErrDisabled error = &UsageError{Err: errors.New("skill is disabled")}

// SetEnabled enables or disables r (every version of the name, or the one
// @VERSION) in r.Owner's own namespace: a user cannot switch a shared skill
// off for everyone, nor touch another user's.
func SetEnabled(ctx context.Context, q db.Querier, r Ref, enabled bool) (int64, error) {
	tag, err := q.Exec(ctx, `UPDATE helix_skills SET enabled = $4
		WHERE name = $1 AND ($2::text IS NULL OR version = $2) AND `+owner.Owned("user_id", 3), r.Name, nullText(r.Version), r.Owner.Arg(), enabled)
	if err != nil {
		return 0, err
	}
	if tag.RowsAffected() == 0 {
		return 0, notOwned(ctx, q, r)
	}
	return tag.RowsAffected(), nil
}

// Remove deletes r (every version, or the one @VERSION) from r.Owner's own
// namespace. Its executions stay, without the link to the skill.
func Remove(ctx context.Context, q db.Querier, r Ref) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM helix_skills
		WHERE name = $1 AND ($2::text IS NULL OR version = $2) AND `+owner.Owned("user_id", 3), r.Name, nullText(r.Version), r.Owner.Arg())
	if err != nil {
		return 0, err
	}
	if tag.RowsAffected() == 0 {
		return 0, notOwned(ctx, q, r)
	}
	return tag.RowsAffected(), nil
}

// notOwned says why a change found nothing: a shared skill a user may use
// but not change, or (the same for missing and another user's) not found.
func notOwned(ctx context.Context, q db.Querier, r Ref) error {
	if r.Owner.Set {
		if s, err := get(ctx, q, r, strings.Replace(skillColumns, "code,", "NULL::bytea,", 1)); err == nil && s.Owner == nil {
			return usage(fmt.Errorf("skill %s is shared (the operator's): a user cannot change it; add your own under the same name to use yours instead", r))
		}
	}
	return notFound(r)
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}
