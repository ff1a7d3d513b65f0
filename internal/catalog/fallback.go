package catalog

import _ "embed"

// fallbackJSON is a trimmed models.dev snapshot (major providers, 2026-07-02)
// compiled in, so `catalog show` works on a machine with no database snapshot.
// Regenerate with scripts/catalog/trim.sh.
//
//go:embed fallback.json
var fallbackJSON []byte

// FallbackSource names the embedded snapshot in output.
const FallbackSource = "embedded models.dev snapshot 2026-07-02"

// Fallback parses the embedded snapshot.
func Fallback() (Catalog, error) { return Parse(fallbackJSON) }
