package a2a

// TaskEvents expresses a task snapshot as the frames a stream would have
// carried: its agent messages after the last user message, each artifact
// as a full replace, and its final status.
func TaskEvents(t *Task) []Event {
	var out []Event
	lastUser := -1
	for i := range t.History {
		if t.History[i].FromUser() {
			lastUser = i
		}
	}
	for i := lastUser + 1; i < len(t.History); i++ {
		m := t.History[i]
		if m.Role != "agent" || (t.Status.Message != nil && m.ID != "" && m.ID == t.Status.Message.ID) {
			continue
		}
		out = append(out, Event{Kind: EventStatus, TaskID: t.ID, ContextID: t.ContextID,
			Status: Status{State: StateWorking, Message: &m}})
	}
	for i := range t.Artifacts {
		a := t.Artifacts[i]
		out = append(out, Event{Kind: EventArtifact, TaskID: t.ID, ContextID: t.ContextID, Artifact: &a, LastChunk: true})
	}
	out = append(out, Event{Kind: EventStatus, TaskID: t.ID, ContextID: t.ContextID, Status: t.Status, Final: t.Status.State.Terminal()})
	return out
}

// HistoryAll asks GetTask and ListTasks for a task's whole history.
const HistoryAll = -1
