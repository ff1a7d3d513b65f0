package migrate_test

import (
	"testing"

	"github.com/helixhq/helix/internal/testbin"
)

// Each test runs helix processes on platform-shaped databases of its own and
// waits on them: four at a time, not two.
func TestMain(m *testing.M) { testbin.Main(m, 4) }
