package bridge

import "github.com/shimdev/shim/a2a"

// snapshot shows a task snapshot of a stream (SPEC §12.4) like replaced
// artifacts: its history's agent messages not shown yet (as a working
// status update's would be), its artifacts, and its status message's
// agent text as answer text, each only for what was not shown yet. A
// resumed task's stale first frame is not shown, only taken as shown.
func (t *turn) snapshot(task *a2a.Task) {
	taskID := t.task()
	if t.staleFirst {
		t.r.seed(taskID, task)
		return
	}
	st := task.Status
	t.lastSnap = &st
	for _, m := range newHistory(task) {
		switch {
		case t.r.answered(taskID, m):
			t.show(t.r.statusReplace(taskID, m))
		case !t.r.seen(taskID, m):
			t.status(a2a.Status{State: a2a.StateWorking, Message: m})
		}
	}
	for i := range task.Artifacts {
		if a := &task.Artifacts[i]; t.r.snapArtifact(taskID, a) {
			t.artifact(a, false)
		}
	}
	if m := st.Message; m != nil && !t.r.artifactText {
		switch st.State {
		case a2a.StateSubmitted, a2a.StateWorking, a2a.StateCompleted, a2a.StateUnknown:
			t.show(t.r.statusReplace(taskID, m))
		}
	}
}
