package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeparturesInReadme: each function of departures.go (a server's
// departure the decoder reads) has its row in the README's table of them,
// and the rest of the package names no server: a departure is a function
// and a row.
func TestDeparturesInReadme(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(readme), "| server | what it does | read by (`departures.go`) |")
	table, _, _ = strings.Cut(table, "\n\n")
	f, err := parser.ParseFile(token.NewFileSet(), "departures.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fn.Name.Name
		if fn.Recv != nil {
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			name = recv.(*ast.Ident).Name + "." + name
		}
		if !strings.Contains(table, "`"+name+"`") {
			t.Errorf("README: no row of the departures table names %s", name)
		}
	}
	servers := []string{"ADK", "Mastra", "VoltAgent", "adk_"}
	files, _ := filepath.Glob("*.go")
	for _, file := range files {
		if file == "departures.go" || strings.HasSuffix(file, "_test.go") {
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range servers {
			if strings.Contains(string(b), s) {
				t.Errorf("%s names %q: a server's departure belongs in departures.go", file, s)
			}
		}
	}
}
