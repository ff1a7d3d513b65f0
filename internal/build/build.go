// Package build holds the version stamped into the binary by the linker
// (-ldflags "-X github.com/helixhq/helix/internal/build.Version=...").
package build

var (
	Version = "dev"
	Commit  = "none"
	Date    = "unknown"
)
