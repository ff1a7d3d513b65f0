// Package earlysignal catches SIGINT and SIGTERM from the moment the process
// starts, before the rest of helix's packages initialise, so that a signal
// in the first milliseconds ends helix with exit 130 like one a minute later.
package earlysignal

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// caught receives the signals from package initialisation on. It holds one:
// a second signal while the first is still queued changes nothing.
var caught = make(chan os.Signal, 1)

// init is helix's one init() outside third_party (STYLE: none): until signal.Notify runs, Go
// kills the process on SIGTERM or SIGINT, exit by signal with nothing on
// stderr. A package with this few imports is initialised among the first
// (Go initialises packages in import-path order as soon as their imports
// are), ahead of the heavy ones (JSON Schema meta-schemas, crypto tables),
// which a desktop app's Cancel right after Start would otherwise race.
func init() { signal.Notify(caught, os.Interrupt, syscall.SIGTERM) }

// ErrSignal is the cause of a context cancelled by a signal.
var ErrSignal = errors.New("signal")

// Context is ctx cancelled by the first SIGINT or SIGTERM since the process
// started (one that came before this call cancels it at once), with cause
// ErrSignal naming the signal. Unlike signal.NotifyContext it never restores
// the default action: a signal after the command finished must not kill the
// process on its way to exiting with the command's status.
func Context(ctx context.Context) context.Context {
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case s := <-caught:
			cancel(signalError{name(s)})
		case <-ctx.Done():
		}
	}()
	return ctx
}

// Release gives SIGINT and SIGTERM their default action back, for a process
// that is no command of the user's (a JavaScript skill's child): a signal
// caught before this call is raised again, so it dies of it as it would have.
func Release() {
	signal.Stop(caught)
	select {
	case s := <-caught:
		if sig, ok := s.(syscall.Signal); ok {
			_ = syscall.Kill(os.Getpid(), sig)
		}
	default:
	}
}

type signalError struct{ name string }

func (e signalError) Error() string        { return e.name }
func (e signalError) Is(target error) bool { return target == ErrSignal }

func name(s os.Signal) string {
	if s == os.Interrupt {
		return "SIGINT"
	}
	if s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return s.String()
}
