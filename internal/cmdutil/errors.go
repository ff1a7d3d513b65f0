package cmdutil

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ExitCode is the process exit status. The mapping is stable and documented
// in README.md and in every command's help; change it only with a major version.
type ExitCode int

const (
	ExitOK          ExitCode = 0   // success
	ExitFailed      ExitCode = 1   // the job failed (also: verification found drift)
	ExitUsage       ExitCode = 2   // bad usage or bad input (flags, files, schemas)
	ExitPartial     ExitCode = 3   // some items failed, the rest were done
	ExitUnavailable ExitCode = 4   // database or provider unreachable: retry later
	ExitSkipped     ExitCode = 5   // another instance holds the job's lock
	ExitInterrupted ExitCode = 130 // SIGINT/SIGTERM before finishing
)

// ExitStatusHelp is appended to every command's long help.
const ExitStatusHelp = `EXIT STATUS
  0    success
  1    the job failed
  2    bad usage or bad input (flags, files, schemas)
  3    partial: some items failed, the rest were done
  4    unavailable: database or provider unreachable, retry later
  5    skipped: another instance holds the job's lock
  130  interrupted by SIGINT/SIGTERM before finishing`

// FlagError is a usage mistake: wrong flags or arguments. Exit 2.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// WrapFlagError is the root's flag error func: whatever pflag refuses (an
// unknown flag, a value a flag's type rejects, such as --user-id bob) is a
// usage error. Tests of a lone command set it too.
func WrapFlagError(_ *cobra.Command, err error) error {
	if ive, ok := errors.AsType[*pflag.InvalidValueError](err); ok {
		err = fmt.Errorf("invalid --%s %q: %s", ive.GetFlag().Name, ive.GetValue(), expected(ive))
	}
	return &FlagError{Err: err}
}

// expected says what a flag takes, in place of the parser's own words
// (strconv.ParseInt: parsing "abc": invalid syntax); a helix value type's
// error (not a UUID, not a size) already says it.
func expected(e *pflag.InvalidValueError) string {
	var ne *strconv.NumError
	outOfRange := errors.As(e, &ne) && errors.Is(ne.Err, strconv.ErrRange)
	switch t := e.GetFlag().Value.Type(); {
	case strings.HasPrefix(t, "int") && !strings.HasSuffix(t, "Slice"), strings.HasPrefix(t, "uint") && !strings.HasSuffix(t, "Slice"), t == "count":
		if outOfRange {
			return "a whole number, and this one is out of range"
		}
		return "a whole number"
	case t == "float32" || t == "float64":
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "duration":
		return "a duration such as 90s, 5m or 1h30m"
	case strings.HasSuffix(t, "Slice") && (strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint")):
		return "whole numbers separated by commas"
	}
	return errors.Unwrap(e).Error()
}

// FlagErrorf builds a FlagError.
func FlagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// ExitError attaches an exit code and a kind to an error.
type ExitError struct {
	Code ExitCode
	Kind string // input, partial, unavailable, skipped, drift
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// InputError marks bad input (a file, a schema, a value): exit 2.
func InputError(err error) error { return wrap(ExitUsage, "input", err) }

// UnavailableError marks an unreachable dependency: exit 4.
func UnavailableError(err error) error { return wrap(ExitUnavailable, "unavailable", err) }

// SkippedError marks a job skipped because another instance holds its lock: exit 5.
func SkippedError(err error) error { return wrap(ExitSkipped, "skipped", err) }

// DriftError marks a verification that found differences: exit 1.
func DriftError(err error) error { return wrap(ExitFailed, "drift", err) }

func wrap(code ExitCode, kind string, err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: code, Kind: kind, Err: err}
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

// IsPartial lets packages that cannot import cmdutil (jobrun) recognise it.
func (e *PartialError) IsPartial() bool { return true }

func (e *PartialError) Error() string {
	return fmt.Sprintf("%d of %d failed: %s", len(e.Failed), e.Total, strings.Join(e.Failed, "; "))
}

// ErrSilent ends a command with exit 1 after it has already printed what went wrong.
var ErrSilent = errors.New("silent error")
