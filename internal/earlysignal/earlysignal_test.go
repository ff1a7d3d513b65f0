package earlysignal

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestSignalBeforeContext: a SIGTERM caught before Context is called (as
// one during package initialisation is) cancels the context at once, with
// the signal as its cause; the process lives on.
func TestSignalBeforeContext(t *testing.T) {
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // delivered to caught, nobody reading yet
	ctx := Context(context.Background())
	select {
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("context not cancelled by the signal caught before it existed")
	}
	cause := context.Cause(ctx)
	if !errors.Is(cause, ErrSignal) || cause.Error() != "SIGTERM" {
		t.Fatalf("cause %v, want SIGTERM (ErrSignal)", cause)
	}
	// a context made later is not cancelled by the signal already used
	ctx2, cancel := context.WithCancel(context.Background())
	c2 := Context(ctx2)
	select {
	case <-c2.Done():
		t.Fatal("a second context was cancelled by the first signal")
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	<-c2.Done()
}
