package cli

import (
	"testing"

	"github.com/helixhq/helix/internal/testbin"
)

// Every test here runs helix processes on a database of its own and mostly
// waits on them (lock expiries, a worker's 1 s schedule, PostgreSQL killed):
// eight at a time, not two.
func TestMain(m *testing.M) { testbin.Main(m, 8) }
