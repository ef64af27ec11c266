package bridge

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocListsEveryFile: the file table of doc.go names every production
// file of the package, and of each package below it that keeps one.
func TestDocListsEveryFile(t *testing.T) {
	for _, dir := range []string{".", "turn", "render", "history"} {
		doc, err := os.ReadFile(filepath.Join(dir, "doc.go"))
		if err != nil {
			t.Fatal(err)
		}
		named := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?m)^//\t(\w+\.go)\s`).FindAllStringSubmatch(string(doc), -1) {
			named[m[1]] = true
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f = filepath.Base(f); !strings.HasSuffix(f, "_test.go") && f != "doc.go" && !named[f] {
				t.Errorf("%s/doc.go's file table does not name %s", dir, f)
			}
		}
	}
}
