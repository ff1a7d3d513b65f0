package schedule_test

import (
	"testing"

	"github.com/helixhq/helix/internal/testbin"
)

// The tests here run helix workers against 1 s schedules and mostly wait on
// them (ticks, kills, outages, rescues): four at a time, not two. Not more:
// each runs up to three workers and their jobs, and with eight at a time
// this package and cmd/worker together passed PostgreSQL's default
// max_connections (100, as on CI).
func TestMain(m *testing.M) { testbin.Main(m, 4) }
