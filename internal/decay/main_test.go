package decay

import (
	"testing"

	"go.uber.org/goleak"
)

// Serve starts cron's goroutines and the jobs'; none may outlive the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
