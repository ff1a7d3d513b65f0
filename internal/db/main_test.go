package db_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain: every lease's heartbeat goroutine ends when its lock is released.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
