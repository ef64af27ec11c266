package shim

// The layout's rules (issue 31, README "Layout"), checked on the source:
// no type over 25 methods, no method set spread over more than 4 files, no
// package over 3,000 lines, nothing in bridge/ below the A2A client, and
// no vendor's name in the shared vocabulary (package a2a).

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/shimdev/shim"

// sourceFile is one non-test Go file of the module.
type sourceFile struct {
	dir   string // the package's directory, relative to the module
	name  string
	lines int
	ast   *ast.File
}

func sources(t *testing.T) []sourceFile {
	t.Helper()
	var out []sourceFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".git", "e2e", "dist":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		out = append(out, sourceFile{dir: filepath.ToSlash(filepath.Dir(p)), name: filepath.Base(p), lines: fset.File(f.Pos()).LineCount(), ast: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("read %d source files: is the test run from the module's root?", len(out))
	}
	return out
}

// receiver names the type a method is declared on.
func receiver(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func TestNoTypeOver25MethodsOr4Files(t *testing.T) {
	count := map[string]int{}
	files := map[string]map[string]bool{}
	for _, f := range sources(t) {
		for _, d := range f.ast.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || receiver(fd) == "" {
				continue
			}
			k := f.dir + "." + receiver(fd)
			count[k]++
			if files[k] == nil {
				files[k] = map[string]bool{}
			}
			files[k][f.name] = true
		}
	}
	if len(count) < 50 {
		t.Fatalf("found %d method sets: the walk missed the source", len(count))
	}
	for k, n := range count {
		if n > 25 {
			t.Errorf("%s has %d methods (at most 25: cut the type)", k, n)
		}
		if len(files[k]) > 4 {
			t.Errorf("%s's methods are in %d files (at most 4: it is two types)", k, len(files[k]))
		}
	}
}

func TestNoPackageOver3000Lines(t *testing.T) {
	lines := map[string]int{}
	for _, f := range sources(t) {
		lines[f.dir] += f.lines
	}
	for dir, n := range lines {
		if n > 3000 && dir != "." {
			t.Errorf("package %s has %d lines (at most 3,000: cut it at a seam)", dir, n)
		}
	}
}

func TestBridgeImportsNothingBelowTheA2AClient(t *testing.T) {
	allowed := map[string]bool{module + "/a2a": true, module + "/a2a/a2aclient": true}
	checked := 0
	for _, f := range sources(t) {
		if f.dir != "bridge" && !strings.HasPrefix(f.dir, "bridge/") {
			continue
		}
		checked++
		for _, imp := range f.ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, module+"/a2a") && !allowed[path] {
				t.Errorf("%s/%s imports %s: bridge imports only a2a and a2a/a2aclient", f.dir, f.name, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no file of bridge/ was read")
	}
}

// vendors are the agents and platforms whose quirks have one address
// (a2a/wire's and a2a/a2aclient's departures, the profiles): never a name
// of the shared vocabulary.
var vendors = regexp.MustCompile(`ADK|Adk|(?i:gemini|strands|beeai|mastra|langgraph|bedrock|agentcore|vertex|protoagent)`)

func TestNoVendorNamesInTheSharedVocabulary(t *testing.T) {
	checked := 0
	for _, f := range sources(t) {
		if f.dir != "a2a" {
			continue
		}
		checked++
		ast.Inspect(f.ast, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && vendors.MatchString(id.Name) {
				t.Errorf("a2a/%s names %s: vendor knowledge lives in the departures and the profiles", f.name, id.Name)
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no file of package a2a was read")
	}
}
