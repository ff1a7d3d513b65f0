// Package exitcode is helix's classes of failure and the exit code of each.
// Domain packages mark an error with its class where it arises; one table
// (cmdutil.ExitCodeFor) turns a class into the process's exit status.
package exitcode

import (
	"fmt"
	"strings"
)

// Code is the process exit status. The mapping is stable and documented in
// README.md and in every command's help; change it only with a major version.
type Code int

const (
	OK          Code = 0   // success
	Failed      Code = 1   // the job failed (also: verification found drift)
	Usage       Code = 2   // bad usage or bad input (flags, files, schemas)
	Partial     Code = 3   // some items failed, the rest were done
	Unavailable Code = 4   // database or provider unreachable: retry later
	Skipped     Code = 5   // another instance holds the job's lock
	Interrupted Code = 130 // SIGINT/SIGTERM before finishing
)

// Help is every status helix returns (the root's help); each command's help
// lists its own (HelpFor).
const Help = `EXIT STATUS
  0    success
  1    the job failed
  2    bad usage or bad input (flags, files, schemas)
  3    partial: some items failed, the rest were done
  4    unavailable: database or provider unreachable, retry later
  5    skipped: another instance holds the job's lock
  130  interrupted by SIGINT/SIGTERM before finishing`

// meanings are Help's lines, for one command's section.
var meanings = map[Code]string{
	OK:          "success",
	Failed:      "the job failed",
	Usage:       "bad usage or bad input (flags, files, schemas)",
	Partial:     "partial: some items failed, the rest were done",
	Unavailable: "unavailable: database or provider unreachable, retry later",
	Skipped:     "skipped: another instance holds the job's lock",
	Interrupted: "interrupted by SIGINT/SIGTERM before finishing",
}

// Stopped is a service's 0: SIGINT/SIGTERM ends it cleanly, not with 130.
const Stopped = "success; also when stopped by SIGINT/SIGTERM (a clean stop)"

// HelpFor is one command's EXIT STATUS section: 0 and the codes it can
// return, each with its meaning in Help, so the help never promises a status
// the command cannot give (a service exits 0 on SIGTERM; mcp serve has no lock).
func HelpFor(codes ...Code) string { return HelpWith(nil, codes...) }

// HelpWith is HelpFor with some meanings replaced by notes.
func HelpWith(notes map[Code]string, codes ...Code) string {
	set := map[Code]bool{OK: true}
	for _, c := range codes {
		set[c] = true
	}
	var b strings.Builder
	b.WriteString("EXIT STATUS")
	for _, c := range []Code{OK, Failed, Usage, Partial, Unavailable, Skipped, Interrupted} {
		if !set[c] {
			continue
		}
		m := meanings[c]
		if n, ok := notes[c]; ok {
			m = n
		}
		fmt.Fprintf(&b, "\n  %-4d %s", int(c), m)
	}
	return b.String()
}

// UsageError is a usage mistake: wrong flags or arguments. Exit 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Error attaches an exit code and a kind to an error.
type Error struct {
	Code Code
	Kind string // input, partial, unavailable, skipped, drift
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Class is the exit code and kind e marks.
func (e *Error) Class() (Code, string) { return e.Code, e.Kind }

// Classed is an error that knows its class: *Error, and a domain's typed
// errors (a tool not found, an input a tool refuses, a service out of
// reach), which say where they arise what kind of failure they are. The
// outermost one in an error's chain is its class (cmdutil.ExitCodeFor).
type Classed interface {
	error
	Class() (Code, string)
}

// InputClass, embedded in a typed error, classes it as bad input (exit 2),
// as AsInput marks an error.
type InputClass struct{}

// Class is bad input.
func (InputClass) Class() (Code, string) { return Usage, "input" }

// UnavailableClass, embedded in a typed error, classes it as a dependency
// out of reach (exit 4, retry later), as AsUnavailable marks an error.
type UnavailableClass struct{}

// Class is unavailable.
func (UnavailableClass) Class() (Code, string) { return Unavailable, "unavailable" }

// AsInput marks bad input (a file, a schema, a value): exit 2.
func AsInput(err error) error { return wrap(Usage, "input", err) }

// AsUnavailable marks an unreachable dependency: exit 4.
func AsUnavailable(err error) error { return wrap(Unavailable, "unavailable", err) }

// AsSkipped marks a job skipped because another instance holds its lock: exit 5.
func AsSkipped(err error) error { return wrap(Skipped, "skipped", err) }

// AsDrift marks a verification that found differences: exit 1.
func AsDrift(err error) error { return wrap(Failed, "drift", err) }

func wrap(code Code, kind string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Kind: kind, Err: err}
}

// PartialError reports that some items failed while the rest were done: exit 3.
type PartialError struct {
	Failed []string // the items that failed, each "item: reason"
	Total  int
	// Errs are the items' errors, when the command has them: when every one
	// is the database or a provider being unreachable, the run is not partial
	// but unavailable (exit 4, retry later), as when PostgreSQL dies mid-run.
	// They are not unwrapped: one item's bad input must not make the whole
	// run a usage error.
	Errs []error
}

func (e *PartialError) Error() string {
	return fmt.Sprintf("%d of %d failed: %s", len(e.Failed), e.Total, strings.Join(e.Failed, "; "))
}
