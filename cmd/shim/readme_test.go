package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeLayoutCoversTheTree: every directory of the module that holds
// Go code is in the README's layout table (itself or a listed parent), and
// the rows of acp, a2a and a2a's packages, which list their files, name
// each of them.
func TestReadmeLayoutCoversTheTree(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, layout, _ := strings.Cut(string(readme), "\n## Layout\n")
	layout, _, _ = strings.Cut(layout, "\n## ")
	rows := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|(.*)$").FindAllStringSubmatch(layout, -1) {
		rows[m[1]] = m[2]
	}
	listed := func(dir string) bool { return layoutListed(rows, dir) }
	files, err := goFilesByDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for dir := range files {
		if !listed(dir) {
			t.Errorf("README layout: no row for %s", dir)
		}
	}
	for dir := range files {
		if dir != "acp" && dir != "a2a" && !strings.HasPrefix(dir, "a2a/") {
			continue
		}
		for _, f := range files[dir] {
			if !strings.Contains(rows[dir], "`"+f+"`") {
				t.Errorf("README layout: the %s row does not name %s", dir, f)
			}
		}
	}
}

// layoutListed tells whether dir or a folder above it has a row.
func layoutListed(rows map[string]string, dir string) bool {
	if dir == "." {
		_, ok := rows["."]
		return ok
	}
	for d := dir; d != "."; d = filepath.Dir(d) {
		if _, ok := rows[filepath.ToSlash(d)]; ok {
			return true
		}
	}
	return false
}

// goFilesByDir lists the non-test Go files under root by folder, skipping
// testdata, node_modules and hidden folders.
func goFilesByDir(root string) (map[string][]string, error) {
	files := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			dir, _ := filepath.Rel(root, filepath.Dir(p))
			files[filepath.ToSlash(dir)] = append(files[filepath.ToSlash(dir)], d.Name())
		}
		return nil
	})
	return files, err
}
