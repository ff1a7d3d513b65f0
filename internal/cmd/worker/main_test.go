package worker

import (
	"testing"

	"github.com/helixhq/helix/internal/testbin"
)

// The tests here run helix workers and jobs as processes (non-race builds)
// and mostly wait on them and on PostgreSQL: eight at a time, not two.
func TestMain(m *testing.M) { testbin.Main(m, 8) }
