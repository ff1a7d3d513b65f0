// Package redact removes every secret value helix knows (provider keys,
// tool credentials, the database password) from text on its way out of the
// process: the output streams, the logger, and errors stored in the database.
//
// The set is process-wide on purpose. A secret must be hidden whatever code
// produced the text — a provider's error body echoing the Authorization
// header, a driver message, a skill's log — and most of that code has no
// Factory to ask. So configuration registers the values once (config.Load),
// and the few places text leaves helix (iostreams.System's writers,
// db.JobRun.Finish, the execution recorders) apply String. Nothing is
// redacted per call site.
package redact

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Mask replaces a secret.
const Mask = "[REDACTED]"

// MinLen is the shortest value treated as a secret: masking every "a" or
// "ab" in every message would hide more than it protects.
const MinLen = 4

var (
	mu       sync.Mutex
	secrets  = map[string]bool{}
	replacer atomic.Pointer[strings.Replacer]
)

// Add registers secret values, each with the forms it takes when quoted in
// a URL, in JSON or in HTTP Basic credentials.
func Add(values ...string) {
	mu.Lock()
	defer mu.Unlock()
	changed := false
	for _, v := range values {
		if len(v) < MinLen {
			continue
		}
		q, _ := json.Marshal(v)
		js := string(q[1 : len(q)-1])
		for _, f := range []string{v, url.QueryEscape(v), url.PathEscape(v), js, strings.ReplaceAll(js, "/", `\/`), base64.StdEncoding.EncodeToString([]byte(v))} {
			if len(f) >= MinLen && !secrets[f] {
				secrets[f] = true
				changed = true
			}
		}
	}
	if !changed {
		return
	}
	all := make([]string, 0, len(secrets))
	for s := range secrets {
		all = append(all, s)
	}
	// Longest first: a secret that contains another is masked whole.
	sort.Slice(all, func(i, j int) bool { return len(all[i]) > len(all[j]) || len(all[i]) == len(all[j]) && all[i] < all[j] })
	pairs := make([]string, 0, 2*len(all))
	for _, s := range all {
		pairs = append(pairs, s, Mask)
	}
	replacer.Store(strings.NewReplacer(pairs...))
}

// Reset forgets every secret (tests).
func Reset() {
	mu.Lock()
	defer mu.Unlock()
	secrets = map[string]bool{}
	replacer.Store(nil)
}

// String returns s with every known secret masked.
func String(s string) string {
	r := replacer.Load()
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// Error returns err with a masked message; errors.Is and errors.As still
// see the original chain. nil stays nil.
func Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if m := String(msg); m != msg {
		return &redacted{err: err, msg: m}
	}
	return err
}

type redacted struct {
	err error
	msg string
}

func (r *redacted) Error() string { return r.msg }
func (r *redacted) Unwrap() error { return r.err }

// Writer masks secrets in everything written to w. Each Write is masked on
// its own: helix writes whole lines and whole JSON documents, and a secret
// split across two writes is not looked for.
func Writer(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct{ w io.Writer }

func (w *writer) Write(p []byte) (int, error) {
	r := replacer.Load()
	if r == nil {
		return w.w.Write(p)
	}
	s := r.Replace(string(p))
	if _, err := io.WriteString(w.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
