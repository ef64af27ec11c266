package render

// The roots tool paths resolve against: a snapshot, never reloaded here.
// A call that names a project the snapshot does not know is the caller's
// to act on (Unknown): it reloads the roots and gives the renderer a new
// snapshot before rendering the call.

import (
	"path/filepath"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/toolview"
	"github.com/shimdev/shim/roots"
)

// Roots is a snapshot of the project roots and the session's cwd. It
// resolves tool paths (it is a toolview.Resolver): a named project against
// its root, a path with no project against the session cwd when a root is
// known. With no root known, an absolute path inside the session cwd
// (what an agent on this machine reports) is still resolved, never one
// that leaves the cwd. The zero Roots resolves nothing.
type Roots struct {
	m   *roots.Map // a copy with no loader: it never loads
	cwd string
}

// Snapshot takes the roots of m as they are now, for a session whose cwd
// is cwd; m nil resolves nothing.
func Snapshot(m *roots.Map, cwd string) Roots {
	if m == nil {
		return Roots{cwd: cwd}
	}
	return Roots{m: roots.New(m.Roots(), nil, "", nil), cwd: cwd}
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
		if !filepath.IsAbs(path) || !filepath.IsAbs(r.cwd) || filepath.Dir(r.cwd) == r.cwd {
			return "", false
		}
		return r.m.ResolveUnder(r.cwd, path)
	}
	if filepath.IsAbs(path) {
		root, ok := r.m.Containing(path)
		if !ok {
			return "", false
		}
		return r.m.ResolveUnder(root.Path, path)
	}
	if r.cwd == "" || !filepath.IsAbs(r.cwd) {
		return "", false
	}
	return r.m.ResolveUnder(r.cwd, path)
}

var _ toolview.Resolver = Roots{}

// Unknown is the project a tool call's arguments name that the roots
// snapshot does not know; "" when there is none. The caller reloads the
// roots for it (at most once per name in a while, roots.Map.ReloadFor)
// and gives the renderer the new snapshot before it renders the call.
func (r *Renderer) Unknown(tc a2a.ToolCall) string {
	if r.roots.m == nil || !strings.Contains(tc.Args, `"project"`) {
		return ""
	}
	a := toolview.ParseArgs(tc.Args)
	r.parsed = parsedArgs{text: tc.Args, args: a, ok: true}
	p := a.String("project")
	if _, ok := r.roots.m.Lookup(p); ok || p == "" {
		return ""
	}
	return p
}

// parseArgs parses a call's arguments; the text Unknown parsed is not
// parsed again when the call is rendered next.
func (r *Renderer) parseArgs(s string) toolview.Args {
	if r.parsed.ok && s == r.parsed.text {
		a := r.parsed.args
		r.parsed = parsedArgs{}
		return a
	}
	return toolview.ParseArgs(s)
}
