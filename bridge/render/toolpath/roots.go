package toolpath

// The roots tool paths resolve against: taken as they are (RootsOf),
// never reloaded here. A call that names a project they do not know is
// the caller's to act on (render's Tools.Unknown): it reloads the roots
// and gives the tool calls the new ones (Tools.SetRoots) before rendering
// the call.

import (
	"os"
	"path/filepath"

	"github.com/shimdev/shim/bridge/toolview"
	"github.com/shimdev/shim/roots"
)

// Roots are the project roots as taken at one time, the session's cwd and
// its additional directories (SPEC §14). It resolves tool paths (it is a
// toolview.Resolver): a named project against its root, a relative path
// with no project against the session cwd when a root is known. With no
// root known (no --root, no roots from the agent), a relative path with no
// project resolves against the session cwd, then each additional
// directory, where that file exists (SPEC §18: files in the project link
// with no setup; a file a call may create, ResolveNew, where its folder
// exists), and an absolute path inside the session cwd or one of its
// additional directories (what an agent on this machine reports) is
// still resolved; never one that leaves them. With roots known, an
// absolute path resolves inside a root or an additional directory. The
// zero Roots resolves nothing.
type Roots struct {
	m    *roots.Map // a copy with no loader: it never loads
	cwd  string
	dirs []string
}

// RootsOf takes the roots of m as they are now, for a session whose cwd
// is cwd and whose additional directories are dirs; m nil resolves
// nothing.
func RootsOf(m *roots.Map, cwd string, dirs []string) Roots {
	if m == nil {
		return Roots{cwd: cwd, dirs: dirs}
	}
	return Roots{m: roots.New(m.Roots(), nil, "", nil), cwd: cwd, dirs: dirs}
}

// Taken reports whether r holds roots taken from a map (RootsOf with
// one): the zero Roots, or one of no map, knows no project.
func (r Roots) Taken() bool { return r.m != nil }

// Knows reports whether the roots taken know the project named.
func (r Roots) Knows(project string) bool {
	_, ok := r.m.Lookup(project)
	return ok
}

// underDir resolves an absolute path inside one of dirs (absolute, not
// the file system's root).
func (r Roots) underDir(path string, dirs ...string) (string, bool) {
	for _, d := range dirs {
		if !filepath.IsAbs(d) || filepath.Dir(d) == d {
			continue
		}
		if abs, ok := r.m.ResolveUnder(d, path); ok {
			return abs, true
		}
	}
	return "", false
}

// Resolve returns the absolute path of a tool's (project, path).
func (r Roots) Resolve(project, path string) (string, bool) {
	return r.resolve(project, path, false)
}

// ResolveNew is Resolve for the path of a file a call may create (a
// write, an edit, a move's destination): with no root known, a relative
// path resolves where the file exists, else where its folder does
// (toolview.NewResolver).
func (r Roots) ResolveNew(project, path string) (string, bool) {
	return r.resolve(project, path, true)
}

// resolve is Resolve, and ResolveNew when creates is set.
func (r Roots) resolve(project, path string, creates bool) (string, bool) {
	if r.m == nil {
		return "", false
	}
	if project != "" {
		return r.m.Resolve(project, path)
	}
	if !r.m.Known() {
		if !filepath.IsAbs(path) {
			if abs, ok := r.existingUnder(path, exists); ok || !creates {
				return abs, ok
			}
			return r.existingUnder(path, folderExists)
		}
		if abs, ok := r.underDir(path, r.cwd); ok {
			return abs, true
		}
		return r.underDir(path, r.dirs...)
	}
	if filepath.IsAbs(path) {
		root, ok := r.m.Containing(path)
		if !ok {
			return r.underDir(path, r.dirs...)
		}
		return r.m.ResolveUnder(root.Path, path)
	}
	if r.cwd == "" || !filepath.IsAbs(r.cwd) {
		return "", false
	}
	return r.m.ResolveUnder(r.cwd, path)
}

// existingUnder resolves a relative path against the session cwd, then
// each additional directory: the first where there says it is (the rules
// against leaving a folder stand: no .., no symlink out).
func (r Roots) existingUnder(path string, there func(abs string) bool) (string, bool) {
	for _, d := range append([]string{r.cwd}, r.dirs...) {
		if abs, ok := r.underDir(path, d); ok && there(abs) {
			return abs, true
		}
	}
	return "", false
}

// exists reports whether the file (or directory) abs exists.
func exists(abs string) bool {
	_, err := os.Stat(abs)
	return err == nil
}

// folderExists reports whether the folder abs would be made in exists.
func folderExists(abs string) bool {
	fi, err := os.Stat(filepath.Dir(abs))
	return err == nil && fi.IsDir()
}

var _ toolview.NewResolver = Roots{}
