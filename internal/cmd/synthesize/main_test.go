package synthesize

import (
	"testing"

	"github.com/helixhq/helix/internal/testbin"
)

// Twenty parallel tests, each on a database of its own, mostly waiting on
// PostgreSQL, locks held by another run, or a killed helix: four at a time,
// not two (a bound on the connections they hold together).
func TestMain(m *testing.M) { testbin.Main(m, 4) }
