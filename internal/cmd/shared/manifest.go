package shared

import (
	"github.com/helixhq/helix/internal/config"
	"github.com/helixhq/helix/internal/manifest"
)

// ManifestMaxima are the manifest.max-* settings: the largest limits a
// tool manifest may request; `manifest import`'s and a queue worker's.
func ManifestMaxima(cfg *config.Config) (manifest.Maxima, error) {
	return manifest.ParseMaxima(cfg.String("manifest.max-memory"), cfg.String("manifest.max-cpu"),
		cfg.String("manifest.max-storage"), cfg.String("manifest.max-timeout"))
}
