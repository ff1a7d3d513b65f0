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
	"github.com/helixhq/helix/internal/redact"
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

// Add stores s. With no version, adding code already stored as the latest
// version returns that version; otherwise the next integer version is used.
func Add(ctx context.Context, q db.Querier, s *Skill) (*AddResult, error) {
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
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, db.LockKey("skill:"+s.Name)); err != nil {
			return err
		}
		if s.Version == "" {
			latest, err := Get(ctx, tx, Ref{Name: s.Name})
			switch {
			case errors.Is(err, ErrNotFound):
				s.Version = "1"
			case err != nil:
				return err
			case latest.SHA256 == s.SHA256:
				res = &AddResult{Skill: latest}
				return nil
			default:
				s.Version, err = nextVersion(ctx, tx, s.Name)
				if err != nil {
					return err
				}
			}
		} else if err := ValidateVersion(s.Version); err != nil {
			return usage(err)
		}
		existing, err := Get(ctx, tx, Ref{Name: s.Name, Version: s.Version})
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
INSERT INTO helix_skills (name, version, engine, code, sha256, params, capabilities, timeout_ms, memory_bytes, output_bytes)
VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10)
RETURNING id, created_at`,
			s.Name, s.Version, string(s.Engine), s.Code, s.SHA256, params, s.Capabilities,
			nullPos(s.Limits.Timeout.Milliseconds()), nullPos(s.Limits.MemoryBytes), nullPos(s.Limits.OutputBytes),
		).Scan(&s.ID, &s.CreatedAt)
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

func nextVersion(ctx context.Context, q db.Querier, name string) (string, error) {
	var n int64
	err := q.QueryRow(ctx, `
SELECT coalesce(max(version::bigint), 0) FROM helix_skills WHERE name = $1 AND version ~ '^[0-9]{1,18}$'`, name).Scan(&n)
	return strconv.FormatInt(n+1, 10), err
}

func nullPos(v int64) *int64 {
	if v <= 0 {
		return nil
	}
	return &v
}

const skillColumns = `id, name, version, engine, code, sha256, params::text, capabilities,
	coalesce(timeout_ms, 0), coalesce(memory_bytes, 0), coalesce(output_bytes, 0), created_at`

func scanSkill(row pgx.Row) (*Skill, error) {
	var s Skill
	var engine string
	var params *string
	var timeoutMS int64
	err := row.Scan(&s.ID, &s.Name, &s.Version, &engine, &s.Code, &s.SHA256, &params, &s.Capabilities,
		&timeoutMS, &s.Limits.MemoryBytes, &s.Limits.OutputBytes, &s.CreatedAt)
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

// Get loads NAME@VERSION, or the latest version of NAME.
func Get(ctx context.Context, q db.Querier, r Ref) (*Skill, error) {
	return get(ctx, q, r, skillColumns)
}

// getMeta is Get without the code (Skill.Code is nil).
func getMeta(ctx context.Context, q db.Querier, r Ref) (*Skill, error) {
	return get(ctx, q, r, strings.Replace(skillColumns, "code,", "NULL::bytea,", 1))
}

func get(ctx context.Context, q db.Querier, r Ref, columns string) (*Skill, error) {
	var row pgx.Row
	if r.Version == "" {
		row = q.QueryRow(ctx, `SELECT `+columns+` FROM helix_skills WHERE name = $1 ORDER BY created_at DESC, id DESC LIMIT 1`, r.Name)
	} else {
		row = q.QueryRow(ctx, `SELECT `+columns+` FROM helix_skills WHERE name = $1 AND version = $2`, r.Name, r.Version)
	}
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
// registry by NAME[@VERSION].
func Resolve(ctx context.Context, q db.Querier, nameOrFile string) (*Skill, error) {
	return resolve(ctx, q, nameOrFile, Get)
}

func resolve(ctx context.Context, q db.Querier, nameOrFile string, get func(context.Context, db.Querier, Ref) (*Skill, error)) (*Skill, error) {
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
}

// List returns the latest version of every skill (or every version with all).
func List(ctx context.Context, q db.Querier, all bool) ([]Summary, error) {
	rows, err := q.Query(ctx, `
SELECT name, version, engine, sha256, length(code), capabilities, params IS NOT NULL, created_at,
       count(*) OVER (PARTITION BY name)::int,
       row_number() OVER (PARTITION BY name ORDER BY created_at DESC, id DESC) AS rn
FROM helix_skills ORDER BY name, created_at DESC, id DESC`)
	if err != nil {
		return nil, err
	}
	out := []Summary{}
	for rows.Next() {
		var s Summary
		var rn int64
		if err := rows.Scan(&s.Name, &s.Version, &s.Engine, &s.SHA256, &s.Size, &s.Capabilities, &s.HasParams, &s.CreatedAt, &s.Versions, &rn); err != nil {
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
	rows, err := q.Query(ctx, `
SELECT id, skill_version, coalesce(user_id::text, ''), status, started_at, duration_ms, cpu_ms, peak_rss_bytes,
	coalesce((network->>'requests')::int, 0), coalesce((network->>'refused')::int, 0), coalesce(error, '')
FROM skill_executions WHERE skill_name = $1 AND skill_version IS NOT NULL
ORDER BY started_at DESC, id DESC LIMIT $2`, name, n)
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
	// Errors and logs are stored with every known secret masked (package redact).
	version, user, output, errText, stderr = str(s.Version), str(o.UserID), str(string(r.Output)), str(redact.String(r.Error)), str(redact.String(r.Stderr))
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
	err = q.QueryRow(ctx, `
INSERT INTO skill_executions (skill_id, skill_name, skill_version, skill_sha256, engine, user_id,
	composite_execution_id, input_sha256, status, started_at, duration_ms, output, error, stderr, limits, client,
	cpu_ms, peak_rss_bytes, network)
VALUES ($1, $2, $3, $4, $5, $6::uuid, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
RETURNING id`,
		skillID, s.Name, version, r.SHA256, string(s.Engine), user, composite, r.InputSHA256,
		string(r.Status), r.StartedAt, r.DurationMS, output, errText, stderr, lim, client,
		cpu, peak, network).Scan(&r.ExecutionID)
	return err
}
