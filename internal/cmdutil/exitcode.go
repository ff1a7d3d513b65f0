package cmdutil

import (
	"context"
	"errors"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/netguard"
)

// ExitCodeFor is the one table from a failure's class to the exit code and
// the kind the final JSON error object names. cli.Main uses it for every
// command, and tests import it: none keeps a copy of its own.
//
// Errors carry their class from where they arise: the classes of package
// exitcode (UsageError, Error, PartialError), which domain packages mark
// without importing the command layer, and the database's lock and
// reachability errors, which pgx raises wherever a query runs; a few classes
// are known by a sentinel wherever they surface: a refusal of a private or
// loopback address is bad input (exit 2) in every command.
func ExitCodeFor(ctx context.Context, err error) (ExitCode, string) {
	var fe *FlagError
	var ee *ExitError
	var pe *PartialError
	switch {
	case err == nil:
		return ExitOK, ""
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return ExitInterrupted, "interrupted"
	case errors.As(err, &fe):
		return ExitUsage, "usage"
	case errors.Is(err, netguard.ErrPrivate):
		return ExitUsage, "input"
	case errors.As(err, &ee):
		return ee.Code, ee.Kind
	case errors.As(err, &pe):
		if len(pe.Errs) > 0 && allUnavailable(pe.Errs) {
			return ExitUnavailable, "unavailable"
		}
		return ExitPartial, "partial"
	case db.IsLockHeld(err):
		return ExitSkipped, "skipped"
	case db.IsUnavailable(err):
		return ExitUnavailable, "unavailable"
	}
	return ExitFailed, "failed"
}

// Code is ExitCodeFor's code for an error of a run that was not interrupted.
func Code(err error) ExitCode {
	c, _ := ExitCodeFor(context.Background(), err)
	return c
}

// allUnavailable: every item failed because the database or a provider
// could not be reached (a driver's error, or one marked unavailable where it
// arose, as a provider client's give-up is).
func allUnavailable(errs []error) bool {
	for _, e := range errs {
		ee, marked := errors.AsType[*ExitError](e)
		if !db.IsUnavailable(e) && !(marked && ee.Code == ExitUnavailable) {
			return false
		}
	}
	return true
}
