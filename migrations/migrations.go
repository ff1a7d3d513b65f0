// Package migrations embeds helix's SQL migrations (goose format). Each issue
// that needs tables adds its own numbered file; never edit one that has shipped,
// except to keep it adopting the platform's existing tables (issue 14 did that
// for 00001-00007: a database migrated before them is converted by 00011).
// Every table a migration creates is secured with helix_secure_table (00011).
package migrations

import "embed"

// FS holds every *.sql migration.
//
//go:embed *.sql
var FS embed.FS
