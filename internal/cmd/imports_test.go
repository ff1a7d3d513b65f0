// Package cmd_test holds the rules of the command tree as a whole: no
// command group reaches into another; helpers they share live in shared.
package cmd_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// pkgInfo is what the rule needs of one package under internal/cmd.
type pkgInfo struct {
	command bool     // defines a NewCmd… func: a command package
	imports []string // import paths of its non-test files
	tests   []string // import paths of its test files
}

// TestNoSidewaysImports: a package under internal/cmd imports from
// internal/cmd only its own group (cmd/skill may use cmd/skill/composite)
// and internal/cmd/shared; root, which assembles the
// tree, alone imports every group. Test files count too (a test that builds
// a sibling's command belongs in that sibling's package), except that a
// test may build the whole tree through root (job lines are checked
// against it).
func TestNoSidewaysImports(t *testing.T) {
	pkgs := scanCmdTree(t, ".")
	if len(pkgs) < 10 || !pkgs["root"].command {
		t.Fatalf("scanned %d packages under internal/cmd, root a command: %v: the walk is wrong", len(pkgs), pkgs["root"].command)
	}
	if bad := sideways(pkgs, modulePath(t)+"/internal/cmd/"); len(bad) > 0 {
		t.Errorf("sideways imports under internal/cmd (move the helper into internal/cmd/shared):\n%s", strings.Join(bad, "\n"))
	}
}

// TestSidewaysCaught: the rule sees the imports it must refuse.
func TestSidewaysCaught(t *testing.T) {
	const p = "example.com/m/internal/cmd/"
	pkgs := map[string]pkgInfo{
		"root":              {command: true, imports: []string{p + "embed", p + "worker"}},
		"embed":             {command: true},
		"worker":            {command: true, imports: []string{p + "embed", p + "shared", p + "schedule/jobs"}},
		"schedule":          {command: true, imports: []string{p + "schedule/jobs"}},
		"schedule/jobs":     {},
		"shared":            {},
		"skill/composite":   {command: true, imports: []string{p + "skill/skillcfg", "example.com/m/internal/skill"}},
		"skill/skillcfg":    {},
		"tool":              {command: true, imports: []string{p + "shared"}},
		"skill":             {command: true, imports: []string{p + "skill/composite"}},
		"shared/deep":       {imports: []string{p + "tool"}},
		"shared/untouched":  {imports: []string{p + "shared"}},
		"memory":            {command: true, imports: []string{"example.com/m/internal/embed"}},
		"memory/subcommand": {command: true, imports: []string{p + "memory"}},
		"jobs":              {command: true, tests: []string{p + "root", p + "worker"}},
		"migrate":           {command: true, imports: []string{p + "root"}},
		"doctor":            {command: true, imports: []string{p + "factory"}, tests: []string{p + "factory", p + "root"}},
		"factory":           {},
	}
	got := sideways(pkgs, p)
	want := []string{
		"doctor imports factory (group factory)",
		"jobs imports command package worker",
		"migrate imports command package root",
		"shared/deep imports command package tool",
		"worker imports command package embed",
		"worker imports schedule/jobs (group schedule)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sideways:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// sideways lists each import that crosses from one group to another, other
// than into shared and out of root. prefix is internal/cmd's import path
// with a trailing slash; pkgs are keyed by directory below internal/cmd.
func sideways(pkgs map[string]pkgInfo, prefix string) []string {
	seen := map[string]bool{}
	for dir, p := range pkgs {
		if dir == "root" {
			continue
		}
		for k, imp := range slices.Concat(p.imports, p.tests) {
			rel, ok := strings.CutPrefix(imp, prefix)
			if !ok || group(rel) == group(dir) || group(rel) == "shared" || (rel == "root" || rel == "factory") && k >= len(p.imports) {
				continue
			}
			if pkgs[rel].command {
				seen[dir+" imports command package "+rel] = true
			} else {
				seen[dir+" imports "+rel+" (group "+group(rel)+")"] = true
			}
		}
	}
	bad := make([]string, 0, len(seen))
	for s := range seen {
		bad = append(bad, s)
	}
	sort.Strings(bad)
	return bad
}

// group is a package's command group: its first directory below internal/cmd.
func group(dir string) string {
	g, _, _ := strings.Cut(dir, "/")
	return g
}

// scanCmdTree parses the files, tests included, of every package below root.
func scanCmdTree(t *testing.T, root string) map[string]pkgInfo {
	t.Helper()
	pkgs := map[string]pkgInfo{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		info := pkgs[dir]
		test := strings.HasSuffix(p, "_test.go")
		for _, is := range f.Imports {
			ip, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				return err
			}
			if test {
				info.tests = append(info.tests, ip)
			} else {
				info.imports = append(info.imports, ip)
			}
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "NewCmd") {
				info.command = true
			}
		}
		pkgs[dir] = info
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// modulePath reads the module's path from go.mod, two levels up.
func modulePath(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return path.Clean(strings.Trim(strings.TrimSpace(m), `"`))
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}
