package roots

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// FuzzResolve: whatever (project, path) comes in, Resolve either refuses or
// returns a clean absolute path lexically inside that project's root whose
// existing part, symlinks evaluated, stays inside the root's evaluated path.
// The check below is written independently of the implementation (by
// filepath.Rel, component by component).
func FuzzResolve(f *testing.F) {
	tmp := f.TempDir()
	root := resolveFixture(f, tmp)
	roots := map[string]string{
		"p":       root,
		"missing": filepath.Join(tmp, "missing"),
		"tmp":     tmp,
	}
	m := New([]Root{{"p", roots["p"]}, {"missing", roots["missing"]}, {"tmp", roots["tmp"]}}, nil, "", nil)

	for _, s := range []struct{ project, path string }{
		{"p", "dir/file.go"},
		{"p", "../other/x"},
		{"p", "out/x"},
		{"p", "in/file.go"},
		{"p", "dir/upup/other"},
		{"p", root + "/dir"},
		{"p", "/etc/passwd"},
		{"missing", "a/../../b"},
		{"tmp", "root/out"},
	} {
		f.Add(s.project, s.path)
	}

	f.Fuzz(func(t *testing.T, project, p string) {
		got, ok := m.Resolve(project, p)
		if !ok {
			if got != "" {
				t.Fatalf("Resolve(%q, %q) refused but returned %q", project, p, got)
			}
			return
		}
		r, known := roots[project]
		if !known {
			t.Fatalf("Resolve(%q, %q) = %q for an unknown project", project, p, got)
		}
		if !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("Resolve(%q, %q) = %q: not absolute and clean", project, p, got)
		}
		if !relInside(r, got) {
			t.Fatalf("Resolve(%q, %q) = %q: outside root %q", project, p, got, r)
		}
		realRoot, err := filepath.EvalSymlinks(r)
		if err != nil {
			return // a root missing locally: lexical only
		}
		// Every existing prefix of the result must evaluate inside.
		checkPrefixesInside(t, r, realRoot, got, func() string { return fmt.Sprintf("Resolve(%q, %q) = %q", project, p, got) })
	})
}

// resolveFixture makes FuzzResolve's tree under tmp: a root with a
// folder, a file and (but on Windows) links inside, out of it, up, dangling
// and in a loop, and another folder beside it. It returns the root.
func resolveFixture(f *testing.F, tmp string) string {
	root := filepath.Join(tmp, "root")
	other := filepath.Join(tmp, "other")
	for _, d := range []string{filepath.Join(root, "dir", "sub"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "dir", "file.go"), []byte("x"), 0o644); err != nil {
		f.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		for target, at := range map[string]string{
			other:                        filepath.Join(root, "out"),
			filepath.Join("..", "other"): filepath.Join(root, "relout"),
			filepath.Join(root, "dir"):   filepath.Join(root, "in"),
			"..":                         filepath.Join(root, "dir", "up"),
			filepath.Join("..", ".."):    filepath.Join(root, "dir", "upup"),
			filepath.Join(other, "none"): filepath.Join(root, "dangling"),
			"loop":                       filepath.Join(root, "loop"),
		} {
			if err := os.Symlink(target, at); err != nil {
				f.Fatal(err)
			}
		}
	}
	return root
}

// checkPrefixesInside fails unless every existing prefix of got, below
// the root r, evaluates (symlinks followed) inside realRoot; call names
// the Resolve call in a failure.
func checkPrefixesInside(t *testing.T, r, realRoot, got string, call func() string) {
	t.Helper()
	rel, _ := filepath.Rel(r, got)
	cur := r
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "." || part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		if _, err := os.Lstat(cur); err != nil {
			break
		}
		real, err := filepath.EvalSymlinks(cur)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && !isSymlink(cur) {
				break
			}
			t.Fatalf("%s: %q exists but does not evaluate: %v", call(), cur, err)
		}
		if !relInside(realRoot, real) {
			t.Fatalf("%s: %q evaluates to %q, outside %q", call(), cur, real, realRoot)
		}
	}
}

// relInside reports whether p is root or below it, by filepath.Rel.
func relInside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func isSymlink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}
