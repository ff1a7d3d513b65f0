package synthesis

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// The analysis touches no database: no file of the package imports pgx or
// helix's db package (the store is package synthstore).
func TestAnalysisHasNoDatabase(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); strings.HasPrefix(p, "github.com/jackc/") || p == "github.com/helixhq/helix/internal/db" {
				t.Errorf("%s imports %s: the analysis reads no database", f, p)
			}
		}
	}
}
