package cmdutil

import (
	"context"
	"errors"

	"github.com/helixhq/helix/internal/db"
	"github.com/helixhq/helix/internal/exitcode"
	"github.com/helixhq/helix/internal/netguard"
)

// ExitCodeFor is the one table from a failure's class to the exit code and
// the kind the final JSON error object names. cli.Main uses it for every
// command, and tests import it: none keeps a copy of its own.
//
// Errors carry their class from where they arise: the classes of package
// exitcode (UsageError, PartialError, and Classed: an Error or a domain's
// typed error that says its class), which domain packages mark without
// importing the command layer, and the database's lock and
// reachability errors, which pgx raises wherever a query runs; a few classes
// are known by a sentinel wherever they surface: a refusal of a private or
// loopback address is bad input (exit 2) in every command.
func ExitCodeFor(ctx context.Context, err error) (ExitCode, string) {
	var fe *FlagError
	var ce exitcode.Classed
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
	case errors.As(err, &ce):
		return ce.Class()
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
		ce, marked := errors.AsType[exitcode.Classed](e)
		if marked {
			if c, _ := ce.Class(); c == ExitUnavailable {
				continue
			}
		}
		if !db.IsUnavailable(e) {
			return false
		}
	}
	return true
}
