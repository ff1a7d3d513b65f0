package mcp

import (
	"testing"

	"github.com/helixhq/helix/internal/testbin"
)

// The Node tests (the MCP Inspector, the conformance suite, server-everything)
// and the helix processes they talk to mostly wait on each other: four at a
// time, not two.
func TestMain(m *testing.M) { testbin.Main(m, 4) }
