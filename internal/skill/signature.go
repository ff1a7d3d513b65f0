package skill

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/hiddeco/sshsig"
	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/ssh"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/exitcode"
)

// SignatureNamespace is the namespace a skill's SSH signature must be made
// for: ssh-keygen -Y sign -n helix-skill -f KEY FILE.
const SignatureNamespace = "helix-skill"

// MaxSignatureBytes caps a signature file (an armored SSHSIG is under 2 KiB
// for any key helix accepts).
const MaxSignatureBytes = 64 << 10

// SignatureError is code refused for its signature: missing where one is
// required, made by a key not trusted, or not matching the code. Bad input:
// exit 2.
type SignatureError struct {
	exitcode.InputClass
	Msg string
}

func (e *SignatureError) Error() string { return e.Msg }

// Signer is who signed a skill: the principal of the allowed-signers line
// that trusts the key, and the key's fingerprint.
type Signer struct {
	Principal   string `json:"principal"`
	Fingerprint string `json:"fingerprint"` // SHA256:…, as ssh-keygen -l prints it
}

// Signers are the keys trusted to sign skills: an allowed-signers file in
// the format of ssh-keygen -Y verify (ssh-keygen(1), ALLOWED SIGNERS):
//
//	principals [options] keytype base64-key [comment]
//
// with the options namespaces="…", valid-after=…, valid-before=… and
// cert-authority (a line with cert-authority trusts certificates, which
// helix does not take: it is ignored).
type Signers struct {
	entries []signerEntry
}

type signerEntry struct {
	principals  []string
	key         ssh.PublicKey
	namespaces  []string // nil: any
	validAfter  time.Time
	validBefore time.Time
	line        int
}

// ParseAllowedSigners reads an allowed-signers file.
func ParseAllowedSigners(b []byte) (*Signers, error) {
	s := &Signers{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, skip, err := parseSignerLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if !skip {
			e.line = n
			s.entries = append(s.entries, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// Len is the number of keys trusted.
func (s *Signers) Len() int { return len(s.entries) }

func parseSignerLine(line string) (e signerEntry, skip bool, err error) {
	principals, rest, err := field(line)
	if err != nil {
		return e, false, err
	}
	for _, p := range strings.Split(principals, ",") {
		if p = strings.TrimSpace(p); p != "" {
			e.principals = append(e.principals, p)
		}
	}
	if len(e.principals) == 0 {
		return e, false, errors.New("no principal")
	}
	// Options come before the key type when the next field is not a key type.
	next, after, err := field(rest)
	if err != nil {
		return e, false, err
	}
	if !isKeyType(next) {
		if err := e.options(next, &skip); err != nil {
			return e, false, err
		}
		rest = after
	}
	key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(strings.TrimSpace(rest)))
	if err != nil {
		return e, false, fmt.Errorf("public key: %w", err)
	}
	e.key = key
	return e, skip, nil
}

func (e *signerEntry) options(opts string, skip *bool) error {
	for _, o := range splitOptions(opts) {
		name, value, hasValue := strings.Cut(o, "=")
		value = strings.Trim(value, `"`)
		switch strings.ToLower(name) {
		case "cert-authority":
			*skip = true
		case "namespaces":
			if !hasValue {
				return errors.New("namespaces needs a value")
			}
			e.namespaces = strings.Split(value, ",")
		case "valid-after", "valid-before":
			t, err := parseSignerTime(value)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if name == "valid-after" {
				e.validAfter = t
			} else {
				e.validBefore = t
			}
		default:
			return fmt.Errorf("unknown option %q", name)
		}
	}
	return nil
}

// field is s's first whitespace-separated field, a quoted part kept whole.
func field(s string) (string, string, error) {
	s = strings.TrimLeft(s, " \t")
	quoted := false
	for i, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
		case (r == ' ' || r == '\t') && !quoted:
			return s[:i], s[i:], nil
		}
	}
	if quoted {
		return "", "", errors.New("unterminated quote")
	}
	if s == "" {
		return "", "", errors.New("missing field")
	}
	return s, "", nil
}

func splitOptions(s string) []string {
	var out []string
	quoted, start := false, 0
	for i, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
		case r == ',' && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func isKeyType(s string) bool {
	return strings.HasPrefix(s, "ssh-") || strings.HasPrefix(s, "ecdsa-sha2-") || strings.HasPrefix(s, "sk-")
}

// parseSignerTime reads YYYYMMDD[HHMM[SS]][Z] (local time unless Z).
func parseSignerTime(s string) (time.Time, error) {
	loc := time.Local
	if strings.HasSuffix(s, "Z") {
		s, loc = strings.TrimSuffix(s, "Z"), time.UTC
	}
	for _, layout := range []string{"20060102", "200601021504", "20060102150405"} {
		if len(s) == len(layout) {
			return time.ParseInLocation(layout, s, loc)
		}
	}
	return time.Time{}, fmt.Errorf("time %q: want YYYYMMDD[HHMM[SS]][Z]", s)
}

// Verify checks that armored (what ssh-keygen -Y sign wrote) is a signature
// of code, for SignatureNamespace, by a key these Signers trust at now.
func (s *Signers) Verify(code, armored []byte, now time.Time) (Signer, error) {
	sig, err := sshsig.Unarmor(bytes.TrimSpace(armored))
	if err != nil {
		return Signer{}, &SignatureError{Msg: fmt.Sprintf("not an SSH signature: %v (make one with ssh-keygen -Y sign -n %s -f KEY FILE)", err, SignatureNamespace)}
	}
	fp := ssh.FingerprintSHA256(sig.PublicKey)
	if sig.Namespace != SignatureNamespace {
		return Signer{}, &SignatureError{Msg: fmt.Sprintf("signature made for namespace %q, not %q", sig.Namespace, SignatureNamespace)}
	}
	var trusted *signerEntry
	for i := range s.entries {
		e := &s.entries[i]
		if ssh.FingerprintSHA256(e.key) != fp || !e.allows(now) {
			continue
		}
		trusted = e
		break
	}
	if trusted == nil {
		return Signer{}, &SignatureError{Msg: fmt.Sprintf("signed by %s %s, which skill.trusted-signers does not trust for %s", sig.PublicKey.Type(), fp, SignatureNamespace)}
	}
	if err := sshsig.Verify(bytes.NewReader(code), sig, trusted.key, sig.HashAlgorithm, SignatureNamespace); err != nil {
		return Signer{}, &SignatureError{Msg: fmt.Sprintf("signature by %s does not match the code (changed since it was signed?): %v", trusted.principals[0], err)}
	}
	return Signer{Principal: trusted.principals[0], Fingerprint: fp}, nil
}

func (e *signerEntry) allows(now time.Time) bool {
	if !e.validAfter.IsZero() && now.Before(e.validAfter) || !e.validBefore.IsZero() && !now.Before(e.validBefore) {
		return false
	}
	if e.namespaces == nil {
		return true
	}
	for _, ns := range e.namespaces {
		if ok, _ := path.Match(strings.TrimSpace(ns), SignatureNamespace); ok {
			return true
		}
	}
	return false
}

// SignaturePolicy is what an Executor asks of a registry skill's signature
// before running it.
type SignaturePolicy struct {
	Signers     *Signers // nil: none configured (skill.trusted-signers unset)
	Require     bool     // skill.require-signature: unsigned shared skills are refused
	RequireUser bool     // skill.require-signature-user: unsigned skills of a user's own are refused
}

// Required names the setting that requires a signature of a skill of a
// user's own (owned) or a shared one, "" when none does.
func (p *SignaturePolicy) Required(owned bool) string {
	switch {
	case owned && p.RequireUser:
		return "skill.require-signature-user"
	case !owned && p.Require:
		return "skill.require-signature"
	}
	return ""
}

// StoredSignature is a registry skill's signature as skill add kept it.
type StoredSignature struct {
	Armored []byte
	Signer  Signer
}

// SaveSignature keeps the signature of a registry skill.
func SaveSignature(ctx context.Context, q db.Querier, skillID int64, armored []byte, s Signer) error {
	_, err := q.Exec(ctx, `INSERT INTO helix_skill_signatures (skill_id, signature, principal, fingerprint)
VALUES ($1, $2, $3, $4)
ON CONFLICT (skill_id) DO UPDATE SET signature = excluded.signature, principal = excluded.principal, fingerprint = excluded.fingerprint`,
		skillID, string(armored), s.Principal, s.Fingerprint)
	return err
}

// LoadSignature is a registry skill's signature; nil when it has none.
func LoadSignature(ctx context.Context, q db.Querier, skillID int64) (*StoredSignature, error) {
	var st StoredSignature
	var armored string
	err := q.QueryRow(ctx, `SELECT signature, principal, fingerprint FROM helix_skill_signatures WHERE skill_id = $1`, skillID).
		Scan(&armored, &st.Signer.Principal, &st.Signer.Fingerprint)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	st.Armored = []byte(armored)
	return &st, nil
}

// checkSignature verifies a registry skill's stored signature again as its
// code is loaded to run: a key since removed from the trusted signers, or
// code changed in the table, is refused.
func (p *SignaturePolicy) check(ctx context.Context, q db.Querier, s *Skill, now time.Time) error {
	if p == nil || s.ID == 0 || q == nil {
		return nil
	}
	st, err := LoadSignature(ctx, q, s.ID)
	if err != nil {
		return fmt.Errorf("read signature of %s@%s: %w", s.Name, s.Version, err)
	}
	required := p.Required(s.Owner != nil)
	switch {
	case st == nil && required != "":
		return &SignatureError{Msg: fmt.Sprintf("%s@%s is unsigned and %s is on: add it again with --signature", s.Name, s.Version, required)}
	case st == nil:
		return nil
	case p.Signers == nil:
		if required != "" {
			return &SignatureError{Msg: fmt.Sprintf("%s@%s: %s is on but skill.trusted-signers is not set", s.Name, s.Version, required)}
		}
		return nil
	}
	if _, err := p.Signers.Verify(s.Code, st.Armored, now); err != nil {
		return &SignatureError{Msg: fmt.Sprintf("%s@%s refused: %v", s.Name, s.Version, err)}
	}
	return nil
}
