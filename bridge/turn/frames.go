package turn

// A stream's frames (A2A events) through the renderer: what each shows
// and whether it ends the turn. The renderer is the turn goroutine's
// alone; what it renders is routed by the machine (Turn.show).

import (
	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render"
)

// frame maps one event; done reports that the turn's outcome is known.
func (t *Turn) frame(ev *a2a.Event) (outcome, bool) {
	t.setTask(ev.TaskID)
	first := t.r.Snapshots.FirstFrame(t.ownTask)
	switch ev.Kind {
	case a2a.EventTask:
		// A snapshot's state never ends a turn.
		if ev.Task != nil {
			t.snapshot(ev.Task, first)
		}
	case a2a.EventArtifact:
		t.artifact(ev.Artifact, ev.Append)
	case a2a.EventMessage:
		if ev.Message != nil && !ev.Message.FromUser() {
			t.gotMessage = true
			t.message(ev.Message)
		}
	case a2a.EventStatus:
		t.lastSnap = nil
		return t.status(ev.Status)
	}
	return outcome{}, false
}

// message shows an agent message: its thoughts, tools and text.
func (t *Turn) message(m *a2a.Message) {
	t.show(t.r.Snapshots.NoteBeforeAnswer())
	t.r.Snapshots.Seen(t.task(), m)
	t.show(t.r.Answer.Thoughts(t.task(), m))
	for _, tc := range m.ToolCalls() {
		t.tool(tc)
	}
	t.show(t.r.Answer.StatusAnswer(t.r.Answer.MessageID(t.task(), m), m.Text()))
}

// status maps a status update.
func (t *Turn) status(st a2a.Status) (outcome, bool) {
	m := st.Message
	switch st.State {
	case a2a.StateWorking, a2a.StateSubmitted, a2a.StateUnknown:
		// A new status text replaced the held one: that one did not grow
		// in place, it was a note.
		if m.Text() != "" {
			t.show(t.r.Snapshots.NoteBeforeAnswer())
		}
	default:
		t.show(t.r.Snapshots.EndNote(st))
	}
	if m != nil {
		t.r.Snapshots.Seen(t.task(), m)
		t.show(t.r.Answer.Thoughts(t.task(), m))
		for _, tc := range st.ToolCalls() { // a park's data parts are its own
			t.tool(tc)
		}
		t.steersRead(m.SteersConsumed())
	}
	switch st.State {
	case a2a.StateCompleted:
		switch {
		case t.r.Answer.StatusAnswered():
			t.show(t.r.Snapshots.StatusReplace(t.task(), m))
		case !t.r.Answer.ArtifactAnswered():
			t.show(t.r.Answer.StatusAnswer(t.r.Answer.MessageID(t.task(), m), m.Text()))
		}
		return outcome{stop: acp.StopEndTurn}, true
	case a2a.StateCanceled:
		return outcome{stop: acp.StopCancelled}, true
	case a2a.StateRejected:
		t.show(t.r.Answer.StatusAnswer(t.r.Answer.MessageID(t.task(), m), m.Text()))
		return outcome{stop: acp.StopRefusal}, true
	case a2a.StateFailed:
		outs, err := t.r.Answer.Failure(t.task(), m)
		t.show(outs)
		return outcome{err: err}, true
	case a2a.StateInputRequired:
		return t.park(m), true
	case a2a.StateAuthRequired:
		t.authRequired = true
		t.needRootsFor(m.ParkData())
		t.show(t.r.AuthRequired(t.task(), m))
	default:
		t.show(t.r.Notices.ProgressNote(t.task(), m))
	}
	return outcome{}, false
}

// artifact shows an artifact's parts, and keeps its usage and context.
func (t *Turn) artifact(a *a2a.Artifact, appendMode bool) {
	if a == nil {
		return
	}
	// (The copies inside the ifs keep a chunk without usage or context
	// from allocating them.)
	if u, ok := a.Usage(); ok {
		u := u
		t.usage = &u
		t.sess.addCost(u.CostUSD)
	}
	if c, ok := a.Context(); ok {
		c := c
		t.ctxInfo = &c
	}
	if render.ArtifactShows(a) {
		t.show(t.r.Snapshots.NoteBeforeAnswer())
	}
	t.show(t.r.Answer.Artifact(t.ownTask, a, appendMode))
}

// snapshot shows a task snapshot of a stream (SPEC §12.4) like replaced
// artifacts: its history's agent messages not shown yet (as a working
// status update's would be), its artifacts, and its status message's
// agent text as answer text, each only for what was not shown yet. A
// resumed task's stale first frame is not shown, only taken as shown.
// The status text of a working snapshot that opens the task (first) may
// be a progress note: it is held until the next frame tells (SPEC §12.8).
func (t *Turn) snapshot(task *a2a.Task, first bool) {
	taskID := t.task()
	if t.staleFirst {
		t.r.Snapshots.Seed(taskID, task)
		return
	}
	st := task.Status
	t.lastSnap = &st
	t.show(t.r.Snapshots.SnapshotNote(taskID, task))
	for _, m := range render.NewHistory(task) {
		switch {
		case t.r.Snapshots.Answered(taskID, m):
			t.show(t.r.Snapshots.StatusReplace(taskID, m))
		case !t.r.Snapshots.Seen(taskID, m):
			t.status(a2a.Status{State: a2a.StateWorking, Message: m})
		}
	}
	for i := range task.Artifacts {
		if a := &task.Artifacts[i]; t.r.Snapshots.SnapArtifact(taskID, a) {
			t.artifact(a, false)
		}
	}
	t.show(t.r.Snapshots.SnapshotStatus(taskID, st, first))
}

// tool shows one tool-call event and learns the project roots from a
// list_projects that completed.
func (t *Turn) tool(tc a2a.ToolCall) {
	t.needRoots(tc)
	t.show(t.r.Tools.Tool(tc))
	if tc.Phase == a2a.PhaseCompleted && t.r.Tools.ToolName(tc.ID) == "list_projects" && t.env.Roots != nil {
		t.env.Roots.Learn(tc.Result)
		t.r.Tools.SetRoots(render.RootsOf(t.env.Roots, t.sess.cwd, t.sess.Dirs()))
	}
}

// needRoots reloads the project roots when a call names a project the
// roots the renderer has do not know (at most once per name in a while,
// roots.Map.ReloadFor), and gives the renderer the new roots.
func (t *Turn) needRoots(tc a2a.ToolCall) {
	if p := t.r.Tools.Unknown(tc); p != "" && t.env.Roots.ReloadFor(t.ctx, p) {
		t.r.Tools.SetRoots(render.RootsOf(t.env.Roots, t.sess.cwd, t.sess.Dirs()))
	}
}

// needRootsFor is needRoots for the tool call a park's data names.
func (t *Turn) needRootsFor(d *a2a.ParkData) {
	if d != nil && d.Tool != nil {
		t.needRoots(*d.Tool)
	}
}
