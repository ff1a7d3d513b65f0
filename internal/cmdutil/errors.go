package cmdutil

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/helixhq/helix/internal/exitcode"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ExitCode and its values are exitcode's, named here for the commands.
type ExitCode = exitcode.Code

const (
	ExitOK          = exitcode.OK
	ExitFailed      = exitcode.Failed
	ExitUsage       = exitcode.Usage
	ExitPartial     = exitcode.Partial
	ExitUnavailable = exitcode.Unavailable
	ExitSkipped     = exitcode.Skipped
	ExitPending     = exitcode.Pending
	ExitInterrupted = exitcode.Interrupted
)

// ExitStatusHelp is every status helix returns: the root's help.
const ExitStatusHelp = exitcode.Help

// ExitStatus is a command's EXIT STATUS section: 0 and the codes it can return.
func ExitStatus(codes ...ExitCode) string { return exitcode.HelpFor(codes...) }

// ServiceExitStatus is a service's: SIGINT/SIGTERM stops it with 0.
func ServiceExitStatus(codes ...ExitCode) string {
	return exitcode.HelpWith(map[ExitCode]string{ExitOK: exitcode.Stopped}, codes...)
}

// The usual sets: a command that reads or writes the database (or a
// provider); a job that also takes a lock; one whose items may partly fail.
var (
	ExitStatusDB         = ExitStatus(ExitFailed, ExitUsage, ExitUnavailable, ExitInterrupted)
	ExitStatusLocked     = ExitStatus(ExitFailed, ExitUsage, ExitUnavailable, ExitSkipped, ExitInterrupted)
	ExitStatusPartialJob = ExitStatus(ExitFailed, ExitUsage, ExitPartial, ExitUnavailable, ExitSkipped, ExitInterrupted)
)

// FlagError is a usage mistake: wrong flags or arguments. Exit 2.
type FlagError = exitcode.UsageError

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
type ExitError = exitcode.Error

// InputError marks bad input (a file, a schema, a value): exit 2.
func InputError(err error) error { return exitcode.AsInput(err) }

// UnavailableError marks an unreachable dependency: exit 4.
func UnavailableError(err error) error { return exitcode.AsUnavailable(err) }

// SkippedError marks a job skipped because another instance holds its lock: exit 5.
func SkippedError(err error) error { return exitcode.AsSkipped(err) }

// DriftError marks a verification that found differences: exit 1.
func DriftError(err error) error { return exitcode.AsDrift(err) }

// PartialError reports that some items failed while the rest were done: exit 3.
type PartialError = exitcode.PartialError

// ErrSilent ends a command with exit 1 after it has already printed what went wrong.
var ErrSilent = errors.New("silent error")
