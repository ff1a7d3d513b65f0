package cmdutil

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoOtherExitCodeMapping: ExitCodeFor is the only mapping from errors to
// exit codes. A test elsewhere that needs a code calls Code or ExitCodeFor;
// one that classifies an error itself would pass while the real table
// drifts. Every _test.go file of the module outside this package is parsed.
func TestNoOtherExitCodeMapping(t *testing.T) {
	root := filepath.Join("..", "..")
	self := filepath.Join(root, "internal", "cmdutil")
	var files int
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" || n == "vendor") || p == self {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		found = append(found, exitMappings(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("parsed %d test files: the walk missed the tree", files)
	}
	if len(found) > 0 {
		t.Errorf("tests with their own exit-code mapping (call cmdutil.Code or cmdutil.ExitCodeFor instead):\n%s", strings.Join(found, "\n"))
	}
}

// TestExitMappingsCaught: the copies the tests used to carry are found, the
// delegations that replaced them are not.
func TestExitMappingsCaught(t *testing.T) {
	const src = `package x

func catalogCopy(err error) cmdutil.ExitCode {
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if err == nil {
		return cmdutil.ExitOK
	}
	return cmdutil.ExitFailed
}

var llmCopy = func(err error) cmdutil.ExitCode {
	var fe *cmdutil.FlagError
	switch {
	case err == nil:
		return cmdutil.ExitOK
	case errors.As(err, &fe):
		return cmdutil.ExitUsage
	}
	return cmdutil.ExitFailed
}

func intCopy(t *testing.T, err error) int {
	switch err.(type) {
	case *cmdutil.FlagError:
		return 2
	}
	return 1
}

var table = map[error]cmdutil.ExitCode{context.Canceled: cmdutil.ExitInterrupted}

func lowCopy(err error) exitcode.Code {
	if errors.Is(err, io.EOF) {
		return exitcode.Unavailable
	}
	return exitcode.Failed
}

func delegation(err error) cmdutil.ExitCode { return cmdutil.Code(err) }

func isUsage(err error) bool {
	var fe *cmdutil.FlagError
	return errors.As(err, &fe)
}

func count(err error) int {
	if errors.Is(err, io.EOF) {
		return len("x")
	}
	return 7
}

var cases = []struct {
	err  error
	code cmdutil.ExitCode
}{{nil, cmdutil.ExitOK}}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x_test.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(exitMappings(fset, f), "\n")
	want := strings.Join([]string{
		"x_test.go:3: func catalogCopy maps errors to exit codes",
		"x_test.go:14: func literal maps errors to exit codes",
		"x_test.go:25: func intCopy maps errors to exit codes",
		"x_test.go:33: a map from errors to exit codes",
		"x_test.go:35: func lowCopy maps errors to exit codes",
	}, "\n")
	if got != want {
		t.Errorf("found:\n%s\nwant:\n%s", got, want)
	}
}

// exitMappings finds in one file what decides an exit code from an error:
// a function taking an error and returning an exit code (ExitCode or int)
// that inspects the error's class (errors.As, errors.Is, a type switch) and
// returns a code it chose itself (an Exit… constant or a literal of the
// table: 0–5, 130); or a map keyed by errors whose values are exit codes.
func exitMappings(fset *token.FileSet, f *ast.File) []string {
	var found []string
	at := func(n ast.Node) string {
		p := fset.Position(n.Pos())
		return p.Filename + ":" + strconv.Itoa(p.Line)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil && mapsErrors(n.Type, n.Body) {
				found = append(found, at(n)+": func "+n.Name.Name+" maps errors to exit codes")
			}
		case *ast.FuncLit:
			if mapsErrors(n.Type, n.Body) {
				found = append(found, at(n)+": func literal maps errors to exit codes")
			}
		case *ast.MapType:
			if isIdent(n.Key, "error") && isExitCodeType(n.Value) {
				found = append(found, at(n)+": a map from errors to exit codes")
			}
		}
		return true
	})
	return found
}

func mapsErrors(ft *ast.FuncType, body *ast.BlockStmt) bool {
	if ft.Results == nil || len(ft.Results.List) != 1 || !isExitCodeType(ft.Results.List[0].Type) && !isIdent(ft.Results.List[0].Type, "int") {
		return false
	}
	takesError := false
	for _, p := range ft.Params.List {
		takesError = takesError || isIdent(p.Type, "error")
	}
	if !takesError {
		return false
	}
	classifies, chooses := false, false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its own function, judged on its own
		case *ast.TypeSwitchStmt:
			classifies = true
		case *ast.CallExpr:
			if s, ok := n.Fun.(*ast.SelectorExpr); ok && isIdent(s.X, "errors") && (s.Sel.Name == "As" || s.Sel.Name == "Is") {
				classifies = true
			}
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				chooses = chooses || isExitCode(r)
			}
		}
		return true
	})
	return classifies && chooses
}

// isExitCode: an Exit… constant of this package, a code of exitcode, or a
// literal code of the table.
func isExitCode(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		if isIdent(e.X, "exitcode") {
			switch e.Sel.Name {
			case "OK", "Failed", "Usage", "Partial", "Unavailable", "Skipped", "Interrupted":
				return true
			}
		}
		return isIdent(e.X, "cmdutil") && strings.HasPrefix(e.Sel.Name, "Exit")
	case *ast.BasicLit:
		switch e.Value {
		case "0", "1", "2", "3", "4", "5", "130":
			return e.Kind == token.INT
		}
	}
	return false
}

func isExitCodeType(e ast.Expr) bool {
	s, ok := e.(*ast.SelectorExpr)
	return ok && (isIdent(s.X, "cmdutil") && s.Sel.Name == "ExitCode" || isIdent(s.X, "exitcode") && s.Sel.Name == "Code")
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
