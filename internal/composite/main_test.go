package composite

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a run leaves goroutines behind (parallel
// groups, retry timers).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/jackc/pgx/v5/pgxpool.(*Pool).backgroundHealthCheck"))
}
