package roots

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A root from the server (GET /api/fs/roots, /api/config, /api/projects:
// all through the loader; or learned from list_projects) that is the file
// system root, the home directory itself (as written, as ~, with a
// trailing slash or a "..", or through a symlink), or relative after ~
// expansion is refused with a warning; the same from --root is kept.
func TestServerRootsTooWide(t *testing.T) {
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home", "u")
	if err := os.MkdirAll(filepath.Join(home, "dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	fsRoot := abs("/")
	bad := []Root{
		{"slash", fsRoot},
		{"slashes", abs("//")},
		{"tilde", "~"},
		{"tilde-slash", "~/"},
		{"home", home},
		{"home-slash", home + string(filepath.Separator)},
		{"home-dots", filepath.Join(home, "dev") + string(filepath.Separator) + ".."},
		{"rel", "dev"},
		{"tilde-user", "~bob"},
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(tmp, "to-home")
		rootLink := filepath.Join(tmp, "to-root")
		if err := os.Symlink(home, link); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/", rootLink); err != nil {
			t.Fatal(err)
		}
		bad = append(bad, Root{"home-link", link}, Root{"root-link", rootLink})
	}
	good := Root{"dev", "~/dev"}

	rec := &logRecorder{}
	ld := &fakeLoader{roots: append(append([]Root(nil), bad...), good)}
	m := New(nil, ld.load, home, slog.New(rec))
	if err := m.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, r := range bad {
		text += "- " + r.Name + "-learned [rw] " + r.Path + "\n"
	}
	m.Learn(text + "- dev2 [rw] ~/dev\n")
	for _, r := range bad {
		for _, name := range []string{r.Name, r.Name + "-learned"} {
			if p, ok := m.Lookup(name); ok {
				t.Errorf("the server's root %s = %q was kept as %q", name, r.Path, p)
			}
			if !rec.has(slog.LevelWarn, "refused", name) {
				t.Errorf("no warning for the refused root %s", name)
			}
		}
	}
	for _, name := range []string{"dev", "dev2"} {
		if p, ok := m.Lookup(name); !ok || p != filepath.Join(home, "dev") {
			t.Errorf("Lookup(%s) = %q, %v; want the project under home", name, p, ok)
		}
	}

	// --root may name them.
	m = New([]Root{{"slash", fsRoot}, {"home", "~"}}, nil, home, nil)
	if p, ok := m.Lookup("slash"); !ok || p != fsRoot {
		t.Errorf("--root slash=/ = %q, %v", p, ok)
	}
	if p, ok := m.Lookup("home"); !ok || p != home {
		t.Errorf("--root home=~ = %q, %v", p, ok)
	}
}
