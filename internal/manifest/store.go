package manifest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/notify"
	"github.com/helixhq/helix/internal/owner"
)

// Lifecycle states.
const (
	Discovered = "discovered"
	Proposed   = "proposed"
	Approved   = "approved"
	Revoked    = "revoked"
	Superseded = "superseded"
)

// States lists every state in lifecycle order.
var States = []string{Discovered, Proposed, Approved, Revoked, Superseded}

// Candidate is a manifest about to be recorded, with where it came from.
type Candidate struct {
	Manifest *Manifest
	Source   string // file or URL, with a JSON pointer for OpenAPI operations
}

// ImportOptions steer Record.
type ImportOptions struct {
	Actor               string
	AutoApproveNarrower bool
	Now                 time.Time
	// Complete, when set, runs inside the transaction that records the
	// tools, before it commits (a queue worker completes its job there).
	Complete func(ctx context.Context, tx pgx.Tx) error
	// Owner is whose tools these are: a user's own (names and versions apart
	// from anyone else's), or shared (the zero Owner).
	Owner owner.Owner
}

// Change is what Record did with one candidate.
type Change struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Action  string `json:"action"` // created, unchanged
	State   string `json:"state"`
	Reason  string `json:"reason,omitempty"`
}

// ConflictError is a name@version already recorded (or given twice) with other content.
type ConflictError struct {
	exitcode.InputClass
	Name, Version, Source string
	Twice                 bool // twice in the same import
}

func (e *ConflictError) Error() string {
	if e.Twice {
		return fmt.Sprintf("%s@%s comes twice in this import (also from %s): import one of them, or rename", e.Name, e.Version, e.Source)
	}
	return fmt.Sprintf("%s@%s is already recorded with different content (from %s): give the new manifest a new version, or import its OpenAPI document under another --namespace", e.Name, e.Version, e.Source)
}

// NotFoundError is a tool (version) that is not recorded.
type NotFoundError struct {
	exitcode.InputClass
	Ref string
}

func (e *NotFoundError) Error() string { return "no tool " + e.Ref + ": see helix tool list" }

// StateError is a transition the lifecycle does not allow.
type StateError struct {
	exitcode.InputClass
	Ref, State, Want string
}

func (e *StateError) Error() string {
	return fmt.Sprintf("%s is %s; only a %s tool can be %s", e.Ref, e.State, e.Want, map[string]string{Approved: "approved", Revoked: "revoked"}[e.Want])
}

// Digest is the sha256 of a manifest's canonical JSON.
func Digest(m *Manifest) (string, []byte, error) {
	b, err := encode(m, m.sh)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), b, nil
}

// digested is a candidate's Digest.
type digested struct {
	sha string
	doc []byte
	err error
}

// digestAll runs Digest over the candidates on every core: the canonical
// JSON of a large document's expanded schemas is most of Record's own work.
func digestAll(ctx context.Context, cands []Candidate) ([]digested, error) {
	out := make([]digested, len(cands))
	err := InParallel(ctx, len(cands), func(i int) {
		d := &out[i]
		d.sha, d.doc, d.err = Digest(cands[i].Manifest)
		if cands[i].Manifest.sh != nil {
			// Encoded again, cheaply, row by row while COPY sends them:
			// holding every tool's JSON at once was most of the memory.
			d.doc = nil
		}
	})
	return out, err
}

type existing struct {
	id              int64
	name, version   string
	sha, state, src string
	limits          Limits
}

// lockKey serialises writers of the tool tables.
var lockKey = db.LockKey("tool-manifests")

// Record writes candidates in one transaction: new versions land proposed
// (or approved, with AutoApproveNarrower, when an approved version exists and
// the permissions do not widen), identical ones are no-ops, and a known
// name@version with other content fails the whole import.
func Record(ctx context.Context, q db.Querier, cands []Candidate, o ImportOptions) ([]Change, error) {
	digests, err := digestAll(ctx, cands) // before the transaction: nothing is locked meanwhile
	if err != nil {
		return nil, err
	}
	var changes []Change
	err = db.InTx(ctx, q, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey); err != nil {
			return err
		}
		p, err := planRecord(ctx, tx, cands, digests, o)
		if err != nil {
			return err
		}
		changes = p.changes
		if err := writeReRecords(ctx, tx, p.reRecords, o); err != nil {
			return err
		}
		if err := insertNew(ctx, tx, p.rows, o); err != nil {
			return err
		}
		for _, r := range p.rows {
			if len(r.widens) > 0 {
				notify.FromContext(ctx).InsertTx(ctx, tx, notify.New(notify.KindWideningProposed, "tool "+r.c.Manifest.Name+"@"+r.c.Manifest.Version,
					"proposed with wider permissions: "+strings.Join(r.widens, ", "), o.Now))
			}
		}
		return complete(ctx, tx, o)
	})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr // the server's own words for it (COPY failed) hide what happened
		}
		return nil, err
	}
	return changes, nil
}

// newRow is a candidate to record as a new tool_manifests row.
type newRow struct {
	c      Candidate
	sha    string
	doc    []byte
	limits Limits
	state  string
	reason string
	widens []string // how it widens the latest approved version's permissions
}

// recordPlan is what Record does with each candidate: a new row, a
// re-record of an older format's row in place, or nothing (unchanged).
type recordPlan struct {
	rows      []newRow
	reRecords []reRecord
	changes   []Change
}

// planRecord decides each candidate's fate against the recorded versions
// of its name, inside Record's transaction.
func planRecord(ctx context.Context, tx pgx.Tx, cands []Candidate, digests []digested, o ImportOptions) (*recordPlan, error) {
	names := make([]string, 0, len(cands))
	for _, c := range cands {
		names = append(names, c.Manifest.Name)
	}
	byName, err := loadExisting(ctx, tx, names, o.Owner)
	if err != nil {
		return nil, err
	}
	// The recorded manifests that a candidate of a newer format differs
	// from, read at once (see upgrade.go).
	var stale []int64
	for i, c := range cands {
		for _, e := range byName[c.Manifest.Name] {
			if e.version == c.Manifest.Version && e.sha != digests[i].sha && c.Manifest.Format > 0 {
				stale = append(stale, e.id)
			}
		}
	}
	stored, err := storedManifests(ctx, tx, stale)
	if err != nil {
		return nil, err
	}
	p := &recordPlan{changes: make([]Change, 0, len(cands))}
	seen := map[string]string{}
	// once refuses a name@version that two candidates of this import give.
	once := func(m *Manifest, source string) error {
		ref := m.Name + "@" + m.Version
		if src, dup := seen[ref]; dup {
			return &ConflictError{Name: m.Name, Version: m.Version, Source: src, Twice: true}
		}
		seen[ref] = source
		return nil
	}
	for i, c := range cands {
		m := c.Manifest
		sha, doc, err := digests[i].sha, digests[i].doc, digests[i].err
		if err != nil {
			return nil, err
		}
		if err := once(m, c.Source); err != nil {
			return nil, err
		}
		prev := findVersion(byName[m.Name], m.Version)
		if prev != nil && prev.sha != sha {
			up, err := upgradeOf(stored[prev.id], prev, c, doc)
			if err != nil {
				return nil, err
			}
			if up.re != nil {
				p.reRecords = append(p.reRecords, *up.re)
				p.changes = append(p.changes, Change{Name: m.Name, Version: m.Version, Action: ActionReRecorded, State: prev.state, Reason: up.re.reason})
				continue
			}
			// Another contract: recorded beside the old one, for review.
			m, sha, doc = up.m, up.sha, up.doc
			c.Manifest = m
			if err := once(m, c.Source); err != nil {
				return nil, err
			}
			prev = findVersion(byName[m.Name], m.Version)
		}
		if prev != nil {
			if prev.sha != sha {
				return nil, &ConflictError{Name: m.Name, Version: m.Version, Source: prev.src}
			}
			p.changes = append(p.changes, Change{Name: m.Name, Version: m.Version, Action: "unchanged", State: prev.state})
			continue
		}
		r, err := proposed(c, sha, doc, latestApproved(byName[m.Name]), o)
		if err != nil {
			return nil, err
		}
		p.rows = append(p.rows, r)
		p.changes = append(p.changes, Change{Name: m.Name, Version: m.Version, Action: "created", State: r.state, Reason: r.reason})
	}
	return p, nil
}

// proposed is a new version's row: proposed for review, with why (a format
// upgrade, widened permissions), or approved when AutoApproveNarrower holds
// and ap, the latest approved version, is not widened.
func proposed(c Candidate, sha string, doc []byte, ap *existing, o ImportOptions) (newRow, error) {
	m := c.Manifest
	lim, err := m.Permissions.Limits()
	if err != nil {
		return newRow{}, fmt.Errorf("%s@%s: %w", m.Name, m.Version, err)
	}
	r := newRow{c: c, sha: sha, doc: doc, limits: lim, state: Proposed, reason: "imported from " + c.Source}
	if f := formatOf(m.Version); f > 0 && m.Format == f {
		r.reason += fmt.Sprintf("; helix's OpenAPI conversion format %d gives %s another executable contract than the recorded %s: review it",
			f, m.Name, strings.TrimSuffix(m.Version, "+helix."+strconv.Itoa(f)))
	}
	if ap != nil {
		if w := Widening(ap.limits, lim); len(w) > 0 {
			r.reason += fmt.Sprintf("; permissions widen beyond %s@%s: %s", ap.name, ap.version, strings.Join(w, ", "))
			r.widens = w
		} else if o.AutoApproveNarrower && newer(m.Version, ap.version) {
			r.state = Approved
			r.reason = fmt.Sprintf("permissions do not widen beyond approved %s@%s: auto-approved", ap.name, ap.version)
		}
	}
	return r, nil
}

// insertNew writes the new rows, their permissions and audit rows, each
// table in one COPY, and supersedes what an auto-approved row replaces.
func insertNew(ctx context.Context, tx pgx.Tx, rows []newRow, o ImportOptions) error {
	if len(rows) == 0 {
		return nil
	}
	// Compressing the large manifests with pglz (the default) was most of
	// the server's time storing them; lz4, where the server has it, is
	// about twice as fast and is read back the same way. Transaction-local.
	if _, err := tx.Exec(ctx, `
		SELECT set_config('default_toast_compression', 'lz4', true) FROM pg_settings
		WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)`); err != nil {
		return err
	}
	// The ids are taken first so that the manifests, 8 MB for a large
	// document, go in one COPY rather than as query parameters.
	idRows, err := tx.Query(ctx, `SELECT nextval(pg_get_serial_sequence('tool_manifests', 'id')) FROM generate_series(1, $1)`, len(rows))
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(idRows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	next := 0
	manifestRows := pgx.CopyFromFunc(func() ([]any, error) {
		if next == len(rows) {
			return nil, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err // the transaction rolls back: nothing is written
		}
		r := rows[next]
		m := r.c.Manifest
		doc := r.doc
		if doc == nil {
			var err error
			if doc, err = encode(m, m.sh); err != nil {
				return nil, err
			}
		}
		row := []any{ids[next], m.Name, m.Version, r.c.Source, r.sha, json.RawMessage(doc), r.state, o.Now, o.Now, o.Owner.Ptr()}
		next++
		return row, nil
	})
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"tool_manifests"}, []string{"id", "name", "version", "source", "sha256", "manifest", "state", "created_at", "updated_at", "user_id"}, manifestRows); err != nil {
		return err
	}
	var perms, audit [][]any
	for i, r := range rows {
		m := r.c.Manifest
		id := ids[i]
		perms = append(perms, permissionRows(id, r.limits, m.Credentials)...)
		if r.state == Approved {
			audit = append(audit, []any{id, o.Actor, o.Now, Discovered, Proposed, "imported from " + r.c.Source})
			audit = append(audit, []any{id, o.Actor, o.Now, Proposed, Approved, r.reason})
		} else {
			audit = append(audit, []any{id, o.Actor, o.Now, Discovered, Proposed, r.reason})
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"tool_permissions"}, []string{"tool_id", "kind", "value", "amount"}, pgx.CopyFromRows(perms)); err != nil {
		return err
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"tool_audit"}, []string{"tool_id", "actor", "at", "from_state", "to_state", "reason"}, pgx.CopyFromRows(audit)); err != nil {
		return err
	}
	for _, r := range rows {
		if r.state == Approved {
			if err := supersedeOlder(ctx, tx, r.c.Manifest.Name, r.c.Manifest.Version, o.Owner, o.Actor, o.Now); err != nil {
				return err
			}
		}
	}
	return nil
}

func permissionRows(id int64, l Limits, creds [][]Credential) [][]any {
	var out [][]any
	for _, h := range l.Hosts {
		out = append(out, []any{id, "host", h, int64(0)})
	}
	for _, q := range []struct {
		kind string
		v    int64
	}{{"storage_bytes", l.StorageBytes}, {"memory_bytes", l.MemoryBytes}, {"cpu_millis", l.CPUMillis}, {"timeout_ms", l.TimeoutMS}} {
		if q.v > 0 {
			out = append(out, []any{id, q.kind, "", q.v})
		}
	}
	seen := map[string]bool{}
	for _, set := range creds {
		for _, c := range set {
			if !seen[c.Scheme] {
				seen[c.Scheme] = true
				out = append(out, []any{id, "credential", c.Scheme + " (" + c.Type + ")", int64(0)})
			}
		}
	}
	return out
}

func loadExisting(ctx context.Context, q db.Querier, names []string, o owner.Owner) (map[string][]existing, error) {
	rows, err := q.Query(ctx, `
		SELECT m.id, m.name, m.version, m.sha256, m.state, m.source,
		       coalesce(array_agg(p.value ORDER BY p.value) FILTER (WHERE p.kind = 'host'), '{}'),
		       coalesce(max(p.amount) FILTER (WHERE p.kind = 'storage_bytes'), 0),
		       coalesce(max(p.amount) FILTER (WHERE p.kind = 'cpu_millis'), 0),
		       coalesce(max(p.amount) FILTER (WHERE p.kind = 'memory_bytes'), 0),
		       coalesce(max(p.amount) FILTER (WHERE p.kind = 'timeout_ms'), 0)
		FROM tool_manifests m LEFT JOIN tool_permissions p ON p.tool_id = m.id
		WHERE m.name = ANY($1) AND `+owner.Owned("m.user_id", 2)+`
		GROUP BY m.id`, names, o.Arg())
	if err != nil {
		return nil, err
	}
	out := map[string][]existing{}
	for rows.Next() {
		var e existing
		if err := rows.Scan(&e.id, &e.name, &e.version, &e.sha, &e.state, &e.src, &e.limits.Hosts,
			&e.limits.StorageBytes, &e.limits.CPUMillis, &e.limits.MemoryBytes, &e.limits.TimeoutMS); err != nil {
			return nil, err
		}
		out[e.name] = append(out[e.name], e)
	}
	return out, rows.Err()
}

func latestApproved(es []existing) *existing {
	var best *existing
	for i := range es {
		if es[i].state == Approved && (best == nil || newer(es[i].version, best.version)) {
			best = &es[i]
		}
	}
	return best
}

// supersedeOlder marks approved versions of name below version as superseded.
func supersedeOlder(ctx context.Context, tx pgx.Tx, name, version string, o owner.Owner, actor string, now time.Time) error {
	rows, err := tx.Query(ctx, `SELECT id, version FROM tool_manifests WHERE name = $1 AND state = 'approved' AND version <> $2 AND `+owner.Owned("user_id", 3), name, version, o.Arg())
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			return err
		}
		if newer(version, v) {
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	return transition(ctx, tx, ids, Approved, Superseded, actor, "superseded by "+name+"@"+version, now)
}

// transition moves rows from one state to another and audits each move.
func transition(ctx context.Context, tx pgx.Tx, ids []int64, from, to, actor, reason string, now time.Time) error {
	_, err := tx.Exec(ctx, `
		WITH moved AS (
			UPDATE tool_manifests SET state = $3, updated_at = $5
			WHERE id = ANY($1) AND state = $2
			RETURNING id
		)
		INSERT INTO tool_audit (tool_id, actor, at, from_state, to_state, reason)
		SELECT id, $4, $5, $2, $3, $6 FROM moved`, ids, from, to, actor, now, reason)
	return err
}

// ParseRef splits NAME[@VERSION].
func ParseRef(ref string) (name, version string) {
	name, version, _ = strings.Cut(ref, "@")
	return name, version
}

// Approve moves a proposed name@version to approved and supersedes older approved versions.
func Approve(ctx context.Context, q db.Querier, name, version, actor, reason string, now time.Time) (*Tool, error) {
	return ApproveFor(ctx, q, name, version, owner.Shared, actor, reason, now)
}

// ApproveFor is Approve of o's own tool: a user approves their own (it runs
// only for them); shared tools are the operator's to approve. Another
// user's tool, and a shared one for a user, is not found.
func ApproveFor(ctx context.Context, q db.Querier, name, version string, o owner.Owner, actor, reason string, now time.Time) (*Tool, error) {
	ref := name + "@" + version
	err := db.InTx(ctx, q, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey); err != nil {
			return err
		}
		var id int64
		var state string
		err := tx.QueryRow(ctx, `SELECT id, state FROM tool_manifests WHERE name = $1 AND version = $2 AND `+owner.Owned("user_id", 3), name, version, o.Arg()).Scan(&id, &state)
		if errors.Is(err, pgx.ErrNoRows) {
			return &NotFoundError{Ref: ref}
		}
		if err != nil {
			return err
		}
		if state != Proposed {
			return &StateError{Ref: ref, State: state, Want: Proposed}
		}
		if reason == "" {
			reason = "approved"
		}
		if err := transition(ctx, tx, []int64{id}, Proposed, Approved, actor, reason, now); err != nil {
			return err
		}
		return supersedeOlder(ctx, tx, name, version, o, actor, now)
	})
	if err != nil {
		return nil, err
	}
	return ShowFor(ctx, q, name, version, o)
}

// Revoke moves the proposed or approved versions of name (only version, when
// given) to revoked and returns the versions it revoked.
func Revoke(ctx context.Context, q db.Querier, name, version, actor, reason string, now time.Time) ([]Change, error) {
	return RevokeFor(ctx, q, name, version, owner.Shared, actor, reason, now)
}

// RevokeFor is Revoke of o's own tool (see ApproveFor).
func RevokeFor(ctx context.Context, q db.Querier, name, version string, o owner.Owner, actor, reason string, now time.Time) ([]Change, error) {
	var out []Change
	err := db.InTx(ctx, q, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT id, version, state FROM tool_manifests WHERE name = $1 AND ($2 = '' OR version = $2) AND `+owner.Owned("user_id", 3)+` ORDER BY id`, name, version, o.Arg())
		if err != nil {
			return err
		}
		type cur struct {
			id           int64
			version, was string
		}
		var all []cur
		for rows.Next() {
			var c cur
			if err := rows.Scan(&c.id, &c.version, &c.was); err != nil {
				return err
			}
			all = append(all, c)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		ref := name
		if version != "" {
			ref += "@" + version
		}
		if len(all) == 0 {
			return &NotFoundError{Ref: ref}
		}
		for _, c := range all {
			if c.was != Proposed && c.was != Approved {
				continue
			}
			if err := transition(ctx, tx, []int64{c.id}, c.was, Revoked, actor, reason, now); err != nil {
				return err
			}
			out = append(out, Change{Name: name, Version: c.version, Action: "revoked", State: Revoked, Reason: reason})
			notify.FromContext(ctx).InsertTx(ctx, tx, notify.New(notify.KindToolRevoked, "tool "+name+"@"+c.version,
				fmt.Sprintf("revoked by %s: %s", actor, reason), now))
		}
		if len(out) == 0 {
			return &StateError{Ref: ref, State: all[len(all)-1].was, Want: Revoked}
		}
		return nil
	})
	return out, err
}

// Tool is one recorded name@version.
type Tool struct {
	ID        int64      `json:"-"`
	Owner     *uuid.UUID `json:"owner"` // the user the tool belongs to; null: shared
	Name      string     `json:"name"`
	Version   string     `json:"version"`
	State     string     `json:"state"`
	Source    string     `json:"source"`
	SHA256    string     `json:"sha256"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	Manifest  *Manifest  `json:"manifest,omitempty"`
	Audit     []AuditRow `json:"audit,omitempty"`
	Hosts     []string   `json:"hosts"`
}

// AuditRow is one lifecycle transition.
type AuditRow struct {
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	From   string    `json:"from"`
	To     string    `json:"to"`
	Reason string    `json:"reason"`
}

// List returns every recorded version, by name then version (newest first),
// only those in state when it is not "".
func List(ctx context.Context, q db.Querier, state string) ([]Tool, error) {
	return ListFor(ctx, q, state, owner.Shared)
}

// ListFor is List for o: o's own tools and the shared ones (the own first
// within a name), never another user's.
func ListFor(ctx context.Context, q db.Querier, state string, o owner.Owner) ([]Tool, error) {
	rows, err := q.Query(ctx, `
		SELECT m.id, m.user_id, m.name, m.version, m.state, m.source, m.sha256, m.created_at, m.updated_at,
		       coalesce((SELECT array_agg(p.value ORDER BY p.value) FROM tool_permissions p WHERE p.tool_id = m.id AND p.kind = 'host'), '{}')
		FROM tool_manifests m
		WHERE ($1 = '' OR m.state = $1) AND `+owner.Visible("m.user_id", 2), state, o.Arg())
	if err != nil {
		return nil, err
	}
	var out []Tool
	for rows.Next() {
		var t Tool
		if err := rows.Scan(&t.ID, &t.Owner, &t.Name, &t.Version, &t.State, &t.Source, &t.SHA256, &t.CreatedAt, &t.UpdatedAt, &t.Hosts); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		if (out[i].Owner == nil) != (out[j].Owner == nil) {
			return out[j].Owner == nil // the user's own first
		}
		return newer(out[i].Version, out[j].Version)
	})
	return out, nil
}

// Show returns one version with its manifest and audit trail; without a
// version, the newest one.
func Show(ctx context.Context, q db.Querier, name, version string) (*Tool, error) {
	return ShowFor(ctx, q, name, version, owner.Shared)
}

// ShowFor is Show for o: the user's own tool of that name (any version),
// else the shared one; another user's is not found, like a missing one.
func ShowFor(ctx context.Context, q db.Querier, name, version string, o owner.Owner) (*Tool, error) {
	// whose name it is: the user's own when they have any version of it
	var whose *uuid.UUID
	err := q.QueryRow(ctx, `SELECT user_id FROM tool_manifests WHERE name = $1 AND `+owner.Visible("user_id", 2)+`
		ORDER BY `+owner.OwnFirst("user_id")+` LIMIT 1`, name, o.Arg()).Scan(&whose)
	if errors.Is(err, pgx.ErrNoRows) {
		ref := name
		if version != "" {
			ref += "@" + version
		}
		return nil, &NotFoundError{Ref: ref}
	}
	if err != nil {
		return nil, err
	}
	if version == "" {
		all, err := q.Query(ctx, `SELECT version FROM tool_manifests WHERE name = $1 AND user_id IS NOT DISTINCT FROM $2`, name, whose)
		if err != nil {
			return nil, err
		}
		vs, err := pgx.CollectRows(all, pgx.RowTo[string])
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if version == "" || newer(v, version) {
				version = v
			}
		}
		if version == "" {
			return nil, &NotFoundError{Ref: name}
		}
	}
	t := &Tool{}
	var id int64
	var doc []byte
	err = q.QueryRow(ctx, `
		SELECT id, user_id, name, version, state, source, sha256, created_at, updated_at, manifest::text,
		       coalesce((SELECT array_agg(p.value ORDER BY p.value) FROM tool_permissions p WHERE p.tool_id = m.id AND p.kind = 'host'), '{}')
		FROM tool_manifests m WHERE name = $1 AND version = $2 AND user_id IS NOT DISTINCT FROM $3`, name, version, whose).
		Scan(&id, &t.Owner, &t.Name, &t.Version, &t.State, &t.Source, &t.SHA256, &t.CreatedAt, &t.UpdatedAt, &doc, &t.Hosts)
	t.ID = id
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &NotFoundError{Ref: name + "@" + version}
	}
	if err != nil {
		return nil, err
	}
	t.Manifest = &Manifest{}
	if err := json.Unmarshal(doc, t.Manifest); err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, `SELECT at, actor, from_state, to_state, reason FROM tool_audit WHERE tool_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var a AuditRow
		if err := rows.Scan(&a.At, &a.Actor, &a.From, &a.To, &a.Reason); err != nil {
			return nil, err
		}
		t.Audit = append(t.Audit, a)
	}
	return t, rows.Err()
}

// DefaultActor names the person running helix, for the audit trail.
func DefaultActor() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "unknown"
}

func complete(ctx context.Context, tx pgx.Tx, o ImportOptions) error {
	if o.Complete == nil {
		return nil
	}
	return o.Complete(ctx, tx)
}
