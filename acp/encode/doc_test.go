package encode

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocListsEveryFile: the file table of doc.go names every production
// file of the package.
func TestDocListsEveryFile(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^//\t(\w+\.go)\s`).FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") && f != "doc.go" && !named[f] {
			t.Errorf("doc.go's file table does not name %s", f)
		}
	}
}
