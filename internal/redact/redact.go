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

// Mask replaces a secret: the one spelling, wherever a secret is hidden —
// a provider's echoed key, a URL's password, a tool's credential.
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
		for _, f := range forms(v) {
			if !secrets[f] {
				secrets[f] = true
				changed = true
			}
		}
	}
	if !changed {
		return
	}
	replacer.Store(newReplacer(secrets))
}

// forms are v as it appears quoted in a URL, in JSON or in HTTP Basic
// credentials; none when v is shorter than MinLen.
func forms(v string) []string {
	if len(v) < MinLen {
		return nil
	}
	q, _ := json.Marshal(v)
	js := string(q[1 : len(q)-1])
	var fs []string
	for _, f := range []string{v, url.QueryEscape(v), url.PathEscape(v), js, strings.ReplaceAll(js, "/", `\/`), base64.StdEncoding.EncodeToString([]byte(v))} {
		if len(f) >= MinLen {
			fs = append(fs, f)
		}
	}
	return fs
}

func newReplacer(set map[string]bool) *strings.Replacer {
	all := make([]string, 0, len(set))
	for s := range set {
		all = append(all, s)
	}
	// Longest first: a secret that contains another is masked whole.
	sort.Slice(all, func(i, j int) bool { return len(all[i]) > len(all[j]) || len(all[i]) == len(all[j]) && all[i] < all[j] })
	pairs := make([]string, 0, 2*len(all))
	for _, s := range all {
		pairs = append(pairs, s, Mask)
	}
	return strings.NewReplacer(pairs...)
}

// Reset forgets every secret (tests).
func Reset() {
	mu.Lock()
	defer mu.Unlock()
	secrets = map[string]bool{}
	replacer.Store(nil)
}

// String returns s with every known secret masked, and also the values
// given, in all their forms: secrets a caller holds that need not outlive
// the call (a tool's credential, the prefix of a key a server echoes).
func String(s string, values ...string) string {
	if len(values) > 0 {
		set := map[string]bool{}
		for _, v := range values {
			for _, f := range forms(v) {
				set[f] = true
			}
		}
		if len(set) > 0 {
			s = newReplacer(set).Replace(s)
		}
	}
	r := replacer.Load()
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// URL renders a URL for display with its password, and the values of the
// query parameters secret reports, masked. A string that is not a URL with a
// scheme and host is returned as String masks it.
func URL(raw string, secret func(param string) bool) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return String(raw)
	}
	// url.URL escapes the brackets of Mask: a placeholder no URL holds
	// is swapped for it after encoding
	const hole = "HELIXMASKPLACEHOLDER"
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), hole)
	}
	if secret != nil && u.RawQuery != "" {
		q := u.Query()
		for name := range q {
			if secret(name) {
				q.Set(name, hole)
			}
		}
		u.RawQuery = q.Encode()
	}
	return String(strings.ReplaceAll(u.String(), hole, Mask))
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
