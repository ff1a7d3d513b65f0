package skill

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/owner"
)

// Resolve is the package's Resolve for running a skill: a stored skill's code
// comes from the executor's cache directory when it holds a file with that
// sha256, so a warm run fetches a few columns instead of megabytes of
// WebAssembly. Stored skills are immutable (NAME@VERSION keeps its code), and
// a cached file is used only when its content hashes to the registry's sha256.
func (e *Executor) Resolve(ctx context.Context, q db.Querier, nameOrFile string) (*Skill, error) {
	return e.ResolveFor(ctx, q, nameOrFile, owner.Shared)
}

// ResolveFor is Resolve for o: the user's own stored skill, then a shared one.
func (e *Executor) ResolveFor(ctx context.Context, q db.Querier, nameOrFile string, o owner.Owner) (*Skill, error) {
	if e.codeDir == "" {
		return ResolveFor(ctx, q, nameOrFile, o)
	}
	return resolve(ctx, q, nameOrFile, o, func(ctx context.Context, q db.Querier, r Ref) (*Skill, error) {
		s, err := getMeta(ctx, q, r)
		if err != nil {
			return nil, err
		}
		e.noteEngine(r.String(), s.Engine)
		if code, err := os.ReadFile(e.codePath(s.SHA256)); err == nil && Sum(code) == s.SHA256 {
			s.Code = code
			return s, nil
		}
		err = q.QueryRow(ctx, `SELECT code FROM helix_skills WHERE id = $1`, s.ID).Scan(&s.Code)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, notFound(r)
		} else if err != nil {
			return nil, err
		}
		e.keepCode(s.SHA256, s.Code)
		return s, nil
	})
}

func (e *Executor) codePath(sha string) string { return filepath.Join(e.codeDir, sha) }

// keepCode writes code to the cache directory under its sha256. It is only a
// cache: a failure to write it is ignored.
func (e *Executor) keepCode(sha string, code []byte) {
	if e.codeDir == "" {
		return
	}
	if err := os.MkdirAll(e.codeDir, 0o700); err != nil {
		return
	}
	f, err := os.CreateTemp(e.codeDir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(code)
	if cerr := f.Close(); werr != nil || cerr != nil {
		_ = os.Remove(f.Name())
		return
	}
	if err := os.Rename(f.Name(), e.codePath(sha)); err != nil {
		_ = os.Remove(f.Name())
	}
}
