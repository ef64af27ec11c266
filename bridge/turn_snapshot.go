package bridge

import (
	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/render"
)

// snapshot shows a task snapshot of a stream (SPEC §12.4) like replaced
// artifacts: its history's agent messages not shown yet (as a working
// status update's would be), its artifacts, and its status message's
// agent text as answer text, each only for what was not shown yet. A
// resumed task's stale first frame is not shown, only taken as shown.
// The status text of a working snapshot that opens the task (first) may
// be a progress note: it is held until the next frame tells (SPEC §12.8).
func (t *turn) snapshot(task *a2a.Task, first bool) {
	taskID := t.task()
	if t.staleFirst {
		t.r.Seed(taskID, task)
		return
	}
	st := task.Status
	t.lastSnap = &st
	t.show(t.r.SnapshotNote(taskID, task))
	for _, m := range render.NewHistory(task) {
		switch {
		case t.r.Answered(taskID, m):
			t.show(t.r.StatusReplace(taskID, m))
		case !t.r.Seen(taskID, m):
			t.status(a2a.Status{State: a2a.StateWorking, Message: m})
		}
	}
	for i := range task.Artifacts {
		if a := &task.Artifacts[i]; t.r.SnapArtifact(taskID, a) {
			t.artifact(a, false)
		}
	}
	t.show(t.r.SnapshotStatus(taskID, st, first))
}

// settleNote shows a held note once the task's status update st (not a
// snapshot's) tells what it was.
func (t *turn) settleNoteAt(st a2a.Status) { t.show(t.r.EndNote(st)) }

// noteBeforeAnswer shows a held note as a note: answer text other than
// its own follows.
func (t *turn) noteBeforeAnswer() { t.show(t.r.NoteBeforeAnswer()) }
