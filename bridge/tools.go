package bridge

import (
	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/render"
)

// tool shows one tool-call event of the live turn and learns the project
// roots from a list_projects that completed.
func (t *turn) tool(tc a2a.ToolCall) {
	t.needRoots(tc)
	t.show(t.r.Tool(tc))
	if tc.Phase == a2a.PhaseCompleted && t.r.ToolName(tc.ID) == "list_projects" && t.srv.roots() != nil {
		t.srv.roots().Learn(tc.Result)
		t.r.SetRoots(render.Snapshot(t.srv.roots(), t.sess.cwd))
	}
}

// needRoots reloads the project roots when a call names a project the
// renderer's snapshot does not know (at most once per name in a while),
// and gives the renderer the new snapshot.
func (t *turn) needRoots(tc a2a.ToolCall) {
	if p := t.r.Unknown(tc); p != "" && t.srv.roots().ReloadFor(t.ctx, p) {
		t.r.SetRoots(render.Snapshot(t.srv.roots(), t.sess.cwd))
	}
}

// needRootsFor is needRoots for the tool call a park's data names.
func (t *turn) needRootsFor(d *a2a.ParkData) {
	if d != nil && d.Tool != nil {
		t.needRoots(*d.Tool)
	}
}
