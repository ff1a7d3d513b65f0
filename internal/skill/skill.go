// Package skill stores untrusted skills (WebAssembly or JavaScript) in
// PostgreSQL and runs them in a sandbox with hard limits, auditing every run.
package skill

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/helixhq/helix/internal/owner"
)

// Engine runs a skill's code.
type Engine string

// Engines.
const (
	EngineWasm Engine = "wasm" // WASI preview 1 command module
	EngineJS   Engine = "js"   // JavaScript (goja), in a child process
)

// Status is how one execution ended.
type Status string

// Statuses of skill_executions.
const (
	StatusOK           Status = "ok"
	StatusError        Status = "error"
	StatusTimeout      Status = "timeout"
	StatusMemoryLimit  Status = "memory_limit"
	StatusOutputLimit  Status = "output_limit"
	StatusInvalidInput Status = "invalid_input"
	StatusInterrupted  Status = "interrupted" // SIGINT/SIGTERM stopped it: nothing is returned
	StatusCPULimit     Status = "cpu_limit"   // it used more CPU time than skill.cpu-limit
	StatusRefused      Status = "refused"     // it failed on a network request its capabilities refuse
)

// Skill is one stored (or file-loaded) skill.
type Skill struct {
	ID           int64 // 0 when loaded from a file
	Name         string
	Version      string // "" when loaded from a file
	Engine       Engine
	Code         []byte
	SHA256       string
	Params       []byte   // JSON Schema of the input, nil for none
	Capabilities []string // see ParseCapabilities
	Limits       Limits   // the skill's own caps; zero fields mean none
	CreatedAt    time.Time
	// Owner is the user the stored skill belongs to; nil: shared (the operator's).
	Owner      *uuid.UUID
	Disabled   bool // skill disable: exec is refused
	UsageCount int64
	LastUsedAt *time.Time
}

// UsageError is a caller's mistake (a bad reference, file or option), as
// opposed to a database or system failure.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(err error) error { return &UsageError{Err: err} }

// Ref is the name of a skill as written on a command line: NAME or NAME@VERSION.
type Ref struct {
	Name    string
	Version string // "" means the latest
	// Owner is whom the name is resolved for: the user's own skill, then a
	// shared one (package owner). The zero Owner sees shared skills only.
	Owner owner.Owner
}

func (r Ref) String() string {
	if r.Version == "" {
		return r.Name
	}
	return r.Name + "@" + r.Version
}

var (
	nameRE    = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	versionRE = regexp.MustCompile(`^[^@\s]+$`)
)

// ParseRef parses NAME[@VERSION].
func ParseRef(s string) (Ref, error) {
	name, version, hasVersion := strings.Cut(s, "@")
	if err := ValidateName(name); err != nil {
		return Ref{}, err
	}
	if hasVersion {
		if err := ValidateVersion(version); err != nil {
			return Ref{}, err
		}
	}
	return Ref{Name: name, Version: version}, nil
}

// ValidateName checks a skill name: lower-case letters, digits, '.', '_' and '-'.
func ValidateName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("invalid skill name %q: use lower-case letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	}
	return nil
}

// ValidateVersion checks a version: any non-empty text without '@' or spaces.
func ValidateVersion(v string) error {
	if !versionRE.MatchString(v) {
		return fmt.Errorf("invalid skill version %q: use non-empty text without '@' or spaces", v)
	}
	return nil
}

// EngineFor picks the engine from a file's content (the wasm magic number)
// or, failing that, its extension.
func EngineFor(path string, code []byte) (Engine, error) {
	if bytes.HasPrefix(code, []byte("\x00asm")) {
		return EngineWasm, nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".js", ".mjs":
		return EngineJS, nil
	case ".wasm":
		return "", fmt.Errorf("%s: not a WebAssembly binary (no \\0asm header)", path)
	}
	return "", fmt.Errorf("%s: unknown skill type: use a .wasm (WASI command module) or .js file", path)
}

// LoadFile reads a skill from a file; it is named after the file.
func LoadFile(path string) (*Skill, error) {
	code, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	eng, err := EngineFor(path, code)
	if err != nil {
		return nil, err
	}
	return &Skill{
		Name:   strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)),
		Engine: eng,
		Code:   code,
		SHA256: Sum(code),
	}, nil
}

// Sum is the hex SHA-256 of b.
func Sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
