package db_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/helixhq/helix/internal/testbin"
)

// TestMain: every lease's heartbeat goroutine ends when its lock is released.
// Four tests at a time: they mostly wait on PostgreSQL (migrations of
// platform-shaped databases, poolers, lease expiry).
func TestMain(m *testing.M) {
	testbin.Parallel(4)
	goleak.VerifyTestMain(m)
}
