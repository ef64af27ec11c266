package roots

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestResolveLexical: .. that climbs out, absolute paths elsewhere and
// string-prefix siblings are refused; paths inside come back absolute and
// cleaned. Run against a root that exists and one that does not (a path
// the remote agent names on a machine without that checkout).
func TestResolveLexical(t *testing.T) {
	tmp := t.TempDir()
	existing := filepath.Join(tmp, "proj")
	if err := os.MkdirAll(filepath.Join(existing, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{existing, filepath.Join(tmp, "missing", "proj")} {
		m := New([]Root{{"p", root}}, nil, "", nil)
		in := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
		tests := []struct {
			path string
			want string // "" when refused
		}{
			{"a/b.go", in("a/b.go")},
			{"./a/../b.go", in("b.go")},
			{"a//b/./c.go", in("a/b/c.go")},
			{"", root},
			{".", root},
			{"a/..", root},
			{"new/dir/file.go", in("new/dir/file.go")},
			{"a/../../proj/x.go", in("x.go")}, // climbs out and back in: lexically inside
			{"..", ""},
			{"../", ""},
			{"../x.go", ""},
			{"a/../../x.go", ""},
			{"../proj2/x.go", ""},
			{"../../../../../../../../etc/passwd", ""},
			{in("a/b.go"), in("a/b.go")},        // absolute inside
			{in("a/../c/./d.go"), in("c/d.go")}, // absolute inside, cleaned
			{root + string(filepath.Separator), root},
			{root + "X/y.go", ""},         // /projX is not inside /proj
			{filepath.Dir(root), ""},      // the parent
			{abs("/etc/passwd"), ""},      // absolute elsewhere
			{in("a") + "/../../x.go", ""}, // absolute that climbs out
			{"a/b\x00c", ""},              // NUL is never a path
		}
		for _, tt := range tests {
			got, ok := m.Resolve("p", tt.path)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("root %s: Resolve(p, %q) = %q, %v; want %q", root, tt.path, got, ok, tt.want)
			}
			got, ok = m.ResolveUnder(root, tt.path)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("ResolveUnder(%q, %q) = %q, %v; want %q", root, tt.path, got, ok, tt.want)
			}
		}
	}
}

func TestResolveUnknownOrBadRoot(t *testing.T) {
	m := New([]Root{{"p", abs("/p")}}, nil, "", nil)
	if got, ok := m.Resolve("q", "x"); ok {
		t.Errorf("Resolve(unknown, x) = %q, want refused", got)
	}
	if got, ok := m.Resolve("", "x"); ok {
		t.Errorf("Resolve(\"\", x) = %q, want refused", got)
	}
	for _, root := range []string{"", "rel/dir", "."} {
		if got, ok := m.ResolveUnder(root, "x"); ok {
			t.Errorf("ResolveUnder(%q, x) = %q, want refused", root, got)
		}
	}
}

// TestResolveSymlinks: a symlink, as the path itself or as a directory on
// the way, whose target lies outside the root's evaluated path is refused,
// whether or not the rest of the path exists; symlinks that stay inside
// are fine, and a root that is itself a symlink works.
func TestResolveSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on windows")
	}
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	outside := filepath.Join(tmp, "outside")
	mkdir := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, at string) {
		if err := os.Symlink(target, at); err != nil {
			t.Fatal(err)
		}
	}
	mkdir(filepath.Join(root, "dir"))
	mkdir(outside)
	write(filepath.Join(root, "dir", "file.go"))
	write(filepath.Join(outside, "secret.txt"))
	link(outside, filepath.Join(root, "linkout"))                              // dir out, absolute target
	link(filepath.Join("..", "outside"), filepath.Join(root, "reloutside"))    // dir out, relative target
	link(filepath.Join(outside, "secret.txt"), filepath.Join(root, "fileout")) // file out
	link(filepath.Join(outside, "nothing"), filepath.Join(root, "dangling"))   // dangling, out
	link(filepath.Join(root, "dir"), filepath.Join(root, "linkin"))            // dir in
	link(filepath.Join(root, "dir", "file.go"), filepath.Join(root, "filein")) // file in
	link("loop", filepath.Join(root, "loop"))                                  // a loop
	link("..", filepath.Join(root, "dir", "up"))                               // back to root
	link(filepath.Join("..", ".."), filepath.Join(root, "dir", "upup"))        // to tmp: out
	rootLink := filepath.Join(tmp, "rootlink")
	link(root, rootLink)

	in := func(base, rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	tests := []struct {
		root string
		path string
		ok   bool
	}{
		{root, "dir/file.go", true},
		{root, "linkin", true},
		{root, "linkin/file.go", true},
		{root, "linkin/new.go", true},
		{root, "filein", true},
		{root, "dir/up/dir/file.go", true},
		{root, "dir/upup/root/dir/file.go", false}, // out through tmp, even if back in
		{root, "dir/file.go/x", true},              // through a file: lexical only
		{root, "linkout", false},
		{root, "linkout/secret.txt", false},
		{root, "linkout/new/deeper.go", false},
		{root, "reloutside/secret.txt", false},
		{root, "fileout", false},
		{root, "dangling", false},
		{root, "dangling/x", false},
		{root, "loop", false},
		{root, "loop/x", false},
		{root, "dir/upup", false},
		{root, "dir/upup/outside/secret.txt", false},
		{root, in(root, "linkout/secret.txt"), false}, // absolute, through a link
		{rootLink, "dir/file.go", true},               // a root that is a symlink itself
		{rootLink, "new.go", true},
		{rootLink, "linkin/file.go", true},
		{rootLink, "linkout/secret.txt", false},
		{rootLink, "fileout", false},
	}
	for _, tt := range tests {
		m := New([]Root{{"p", tt.root}}, nil, "", nil)
		want := ""
		if tt.ok {
			want = filepath.Clean(in(tt.root, tt.path))
			if filepath.IsAbs(tt.path) {
				want = tt.path
			}
		}
		got, ok := m.Resolve("p", tt.path)
		if ok != tt.ok || got != want {
			t.Errorf("root %s: Resolve(p, %q) = %q, %v; want %q, %v", filepath.Base(tt.root), tt.path, got, ok, want, tt.ok)
		}
		got, ok = m.ResolveUnder(tt.root, tt.path)
		if ok != tt.ok || got != want {
			t.Errorf("ResolveUnder(%s, %q) = %q, %v; want %q, %v", filepath.Base(tt.root), tt.path, got, ok, want, tt.ok)
		}
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		root, p string
		want    bool
	}{
		{abs("/r"), abs("/r"), true},
		{abs("/r"), abs("/r/x"), true},
		{abs("/r"), abs("/rX"), false},
		{abs("/r"), abs("/rX/y"), false},
		{abs("/r"), abs("/"), false},
		{abs("/"), abs("/x"), true},
		{abs("/"), abs("/"), true},
	}
	for _, tt := range tests {
		if got := within(filepath.Clean(tt.root), filepath.Clean(tt.p)); got != tt.want {
			t.Errorf("within(%q, %q) = %v, want %v", tt.root, tt.p, got, tt.want)
		}
	}
}
