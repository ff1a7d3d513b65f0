package synthesize

import (
	"testing"

	"github.com/helixhq/helix/internal/testbin"
)

// Twenty parallel tests, each on a database of its own, mostly waiting on
// PostgreSQL, locks held by another run, or a killed helix: 17 s of CPU in
// 48 s of wall with six at a time.
func TestMain(m *testing.M) { testbin.Main(m, 6) }
