package schedule_test

import (
	"testing"

	"github.com/helixhq/helix/internal/testbin"
)

// The tests here run helix workers against 1 s schedules and mostly wait on
// them (ticks, kills, outages, rescues): all of them at once, not two.
func TestMain(m *testing.M) { testbin.Main(m, 8) }
