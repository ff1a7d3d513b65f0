package manifest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Re-importing a document that an older helix recorded gives the same
// name@version other content: a newer conversion (OpenAPIFormat) records the
// namespace, expands response schemas otherwise, words its notes otherwise.
// Refusing it as changed would leave the operator no way forward but another
// namespace. Record re-records such a tool instead, and what happens to its
// approval depends on its executable contract: what a model is shown and what
// is sent where (ContractDigest).
//   - The contract is the same: the row is re-recorded in place, in the same
//     state, with an audit row saying so. An approval carries over only here.
//   - The contract differs: the recorded version stays as it was (an approved
//     one keeps running), and the new manifest is recorded beside it as a
//     new version, VERSION+helix.FORMAT, proposed, for review.
// A tool recorded in the current format whose content differs is a document
// changed without a new version: still a ConflictError.

// Upgrade actions of a Change.
const (
	ActionReRecorded = "re-recorded" // same contract, newer format: in place, state kept
)

// contract is what a tool's approval covers.
type contract struct {
	Name        string         `json:"name"`
	Version     string         `json:"version"`
	Namespace   string         `json:"namespace"`
	Description string         `json:"description"`
	Entrypoint  Entrypoint     `json:"entrypoint"`
	Parameters  any            `json:"parameters"`
	Permissions Permissions    `json:"permissions"`
	Credentials [][]Credential `json:"credentials"`
}

// OpenAPIFormat is the version of the conversion of OpenAPI operations into
// manifests, recorded in each one (Manifest.Format). Raise it when the same
// document would yield other manifests: a re-import then re-records the
// tools of an older format instead of refusing them as changed (Record).
//   - 0 (none recorded): before this field; the namespace was not recorded
//     (before issue 31) and response schemas were expanded fully or one
//     reference deep.
//   - 2: namespace recorded; response schemas expanded several references deep.
const OpenAPIFormat = 2

// ContractDigest is the sha256 of a manifest's executable contract: its name,
// version, effective namespace (which credentials it is given), description
// and parameters (what a model is shown), entrypoint, permissions and
// credentials. It leaves out what only informs: returns (responses are only
// checked against it), notes, author, tags, format.
func ContractDigest(m *Manifest) (string, error) {
	params, err := m.sh.appendJSON(nil, m.Parameters)
	if err != nil {
		return "", err
	}
	c := contract{Name: m.Name, Version: m.Version, Namespace: EffectiveNamespace(m), Description: m.Description,
		Entrypoint: m.Entrypoint, Parameters: json.RawMessage(params), Permissions: m.Permissions, Credentials: m.Credentials}
	b, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// EffectiveNamespace is the namespace whose credentials a tool is given: the
// recorded one, else (a tool recorded before namespaces were) its name up to
// the first dot, which a namespace never contains.
func EffectiveNamespace(m *Manifest) string {
	if m.Namespace != "" {
		return m.Namespace
	}
	ns, _, _ := strings.Cut(m.Name, ".")
	return ns
}

// FormatVersion is the version a manifest of another executable contract
// than the recorded one of an older format is recorded under: VERSION+helix.FORMAT.
func FormatVersion(version string, format int) string {
	return version + "+helix." + strconv.Itoa(format)
}

// formatOf reads the helix format from a FormatVersion ("1.2.0+helix.2" →
// 2), 0 for any other version.
func formatOf(version string) int {
	i := strings.LastIndex(version, "+helix.")
	if i < 0 {
		return 0
	}
	n, err := strconv.Atoi(version[i+len("+helix."):])
	if err != nil {
		return 0
	}
	return n
}

// storedManifests reads the recorded manifests of the rows ids.
func storedManifests(ctx context.Context, tx pgx.Tx, ids []int64) (map[int64]*Manifest, error) {
	out := map[int64]*Manifest{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := tx.Query(ctx, `SELECT id, manifest::text FROM tool_manifests WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var doc string
		if err := rows.Scan(&id, &doc); err != nil {
			return nil, err
		}
		m := &Manifest{}
		if err := json.Unmarshal([]byte(doc), m); err != nil {
			return nil, fmt.Errorf("recorded manifest %d: %w", id, err)
		}
		out[id] = m
	}
	return out, rows.Err()
}

// reRecord is a row re-recorded in place (same contract, newer format).
type reRecord struct {
	id            int64
	sha, src      string
	doc           []byte
	state, reason string
}

// writeReRecords updates the rows in one statement and audits each.
func writeReRecords(ctx context.Context, tx pgx.Tx, rs []reRecord, o ImportOptions) error {
	if len(rs) == 0 {
		return nil
	}
	ids := make([]int64, len(rs))
	shas, srcs, docs := make([]string, len(rs)), make([]string, len(rs)), make([]string, len(rs))
	var audit [][]any
	for i, r := range rs {
		ids[i], shas[i], srcs[i], docs[i] = r.id, r.sha, r.src, string(r.doc)
		audit = append(audit, []any{r.id, o.Actor, o.Now, r.state, r.state, r.reason})
	}
	if _, err := tx.Exec(ctx, `
		UPDATE tool_manifests m SET manifest = u.doc::jsonb, sha256 = u.sha, source = u.src, updated_at = $5
		FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS u(id, sha, src, doc)
		WHERE m.id = u.id`, ids, shas, srcs, docs, o.Now); err != nil {
		return err
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"tool_audit"}, []string{"tool_id", "actor", "at", "from_state", "to_state", "reason"}, pgx.CopyFromRows(audit))
	return err
}

// sameContract reports whether two manifests have the same executable contract.
func sameContract(a, b *Manifest) (bool, error) {
	da, err := ContractDigest(a)
	if err != nil {
		return false, err
	}
	db, err := ContractDigest(b)
	return err == nil && da == db, err
}

// upgrade is what a re-import does with a tool recorded in an older format:
// re-record it in place (re), or record m, another version.
type upgrade struct {
	re  *reRecord
	m   *Manifest
	sha string
	doc []byte
}

// upgradeOf decides for the candidate c, whose digest differs from the
// recorded prev (old, its manifest; nil when the candidate has no format).
func upgradeOf(old *Manifest, prev *existing, c Candidate, doc []byte) (upgrade, error) {
	m := c.Manifest
	if old == nil || old.Format >= m.Format {
		return upgrade{}, &ConflictError{Name: m.Name, Version: m.Version, Source: prev.src}
	}
	same, err := sameContract(old, m)
	if err != nil {
		return upgrade{}, fmt.Errorf("%s@%s: %w", m.Name, m.Version, err)
	}
	if same {
		sha, enc, err := Digest(m)
		if err != nil {
			return upgrade{}, err
		}
		if doc == nil {
			doc = enc
		}
		reason := fmt.Sprintf("re-recorded from %s by helix's OpenAPI conversion format %d (was %d): the executable contract is unchanged", c.Source, m.Format, old.Format)
		if prev.state == Approved {
			reason += ", the approval stands"
		}
		return upgrade{re: &reRecord{id: prev.id, sha: sha, src: c.Source, doc: doc, state: prev.state, reason: reason}}, nil
	}
	nm := *m
	nm.Version = FormatVersion(m.Version, m.Format)
	sha, enc, err := Digest(&nm)
	return upgrade{m: &nm, sha: sha, doc: enc}, err
}

// findVersion is the recorded version v among es, or nil.
func findVersion(es []existing, v string) *existing {
	for i := range es {
		if es[i].version == v {
			return &es[i]
		}
	}
	return nil
}
