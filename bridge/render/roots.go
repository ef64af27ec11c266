package render

// The roots tool paths resolve against: taken as they are (RootsOf),
// never reloaded here. A call that names a project they do not know is
// the caller's to act on (Tools.Unknown): it reloads the roots and gives
// the tool calls the new ones (Tools.SetRoots) before rendering the call.

import (
	"path/filepath"

	"github.com/shimdev/shim/bridge/toolview"
	"github.com/shimdev/shim/roots"
)

// Roots are the project roots as taken at one time, the session's cwd and
// its additional directories (SPEC §14). It resolves tool paths (it is a
// toolview.Resolver): a named project against its root, a relative path
// with no project against the session cwd when a root is known. With no
// root known, an absolute path inside the session cwd or one of its
// additional directories (what an agent on this machine reports) is
// still resolved, never one that leaves them; with roots known, an
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
	if r.m == nil {
		return "", false
	}
	if project != "" {
		return r.m.Resolve(project, path)
	}
	if !r.m.Known() {
		if !filepath.IsAbs(path) {
			return "", false
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

var _ toolview.Resolver = Roots{}
