// Package migrations embeds helix's SQL migrations (goose format). Each issue
// that needs tables adds its own numbered file; never edit one that has shipped.
package migrations

import "embed"

// FS holds every *.sql migration.
//
//go:embed *.sql
var FS embed.FS
