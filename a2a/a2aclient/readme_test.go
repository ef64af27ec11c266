package a2aclient

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestClientDeparturesInReadme: each reading of a server's departure in
// departures.go (and the SSE reader's) has its row in the README's table
// of them (SPEC §16: one place in the code, a row in the README).
func TestClientDeparturesInReadme(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(readme), "| server | what it does | read by | doctor row |")
	table, _, _ = strings.Cut(table, "\n\n")
	if table == "" {
		t.Fatal("README: no table of the departures the client reads")
	}
	for _, file := range []string{"departures.go", "../sse/departures.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name == "Departures" {
				continue
			}
			if !strings.Contains(table, "`"+fn.Name.Name+"`") {
				t.Errorf("README: no row of the client's departures table names %s (%s)", fn.Name.Name, file)
			}
		}
	}
}
