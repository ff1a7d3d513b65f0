package worker

import (
	"testing"

	"github.com/helixhq/helix/internal/testbin"
)

// The tests here run helix workers and jobs as processes (non-race builds)
// and mostly wait on them and on PostgreSQL: four at a time, not two. Not
// more: a worker's pool is sized to its queues and concurrency, and with
// eight at a time this package and cmd/schedule together passed
// PostgreSQL's default max_connections (100, as on CI).
func TestMain(m *testing.M) { testbin.Main(m, 4) }
