package bridge

import (
	"context"
	"path/filepath"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/toolview"
	"github.com/shimdev/shim/roots"
)

// tool shows one tool-call event of the live turn (render_tools.go) and
// learns the project roots from a list_projects that completed.
func (t *turn) tool(tc a2a.ToolCall) {
	t.show(t.r.tool(tc))
	if tc.Phase == a2a.PhaseCompleted && t.r.toolName(tc.ID) == "list_projects" && t.srv.roots() != nil {
		t.srv.roots().Learn(tc.Result)
	}
}

// resolver resolves the paths of the session's tool cards.
func (s *Server) resolver(ctx context.Context, sess *session) toolview.Resolver {
	return rootResolver{m: s.roots(), cwd: sess.cwd, ctx: ctx}
}

// rootResolver resolves tool paths against the project roots: a named
// project against its root (reloading the map once for an unknown name),
// a path with no project against the session cwd when a root is known.
// With no root known, an absolute path inside the session cwd (what an
// agent on this machine reports) is still resolved, never one that leaves
// the cwd.
type rootResolver struct {
	m   *roots.Map
	cwd string
	ctx context.Context
}

func (r rootResolver) Resolve(project, path string) (string, bool) {
	if r.m == nil {
		return "", false
	}
	if project != "" {
		if _, ok := r.m.Lookup(project); !ok && !r.m.ReloadFor(r.ctx, project) {
			return "", false
		}
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
