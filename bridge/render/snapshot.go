package render

// Task snapshots in a stream (SPEC §12.4): some agents stream whole tasks
// whose status message grows as the answer is written. A snapshot is
// shown like replaced artifacts; the messages of its history already
// shown (by messageId) are not shown again.

import (
	"strconv"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
)

// Message marks kept per task and message id.
const (
	msgShown  = 1 // the message was shown
	msgAnswer = 2 // its text went through the task's status answer
)

// seen records that the message m of taskID was shown and reports whether
// it had been. A message with no id is known by its parts.
func (r *Renderer) Seen(taskID string, m *a2a.Message) bool {
	if m == nil {
		return false
	}
	key := taskID + "\x00" + m.ID
	if m.ID == "" {
		key = taskID + "\x00#" + strconv.FormatUint(partsHash(m.Parts), 16)
	}
	was := r.msgs[key] != 0
	r.msgs[key] |= msgShown
	return was
}

// statusAnswerKey names a task's status answer among its artifacts' texts.
const statusAnswerKey = "\x00status"

// StatusReplace shows the agent text of a snapshot's status message as a
// replace of the task's one status answer: only the suffix not shown yet.
func (r *Renderer) StatusReplace(taskID string, m *a2a.Message) []Out {
	if m == nil || m.FromUser() {
		return nil
	}
	r.Seen(taskID, m)
	if m.ID != "" {
		r.msgs[taskID+"\x00"+m.ID] |= msgAnswer
	}
	// The task's status answer is one message: the id of the status
	// message it began with.
	at := r.textOf(taskID+"\x00"+statusAnswerKey, func() string { return r.MessageID(taskID, m) })
	if s := at.Replace(m.Text()); s != "" {
		if !at.begun {
			at.begun = true
			s = r.blocks.start(s)
		}
		r.buf = append(r.buf, Out{text: s, msgID: at.id})
		r.blocks.shown()
		r.statusShown = true
	}
	return r.take()
}

// answered reports whether the message id of taskID was shown as the
// task's status answer.
func (r *Renderer) Answered(taskID string, m *a2a.Message) bool {
	return m != nil && m.ID != "" && r.msgs[taskID+"\x00"+m.ID]&msgAnswer != 0
}

// NewHistory returns the agent messages of a snapshot's history after its
// last user message (the turn's own), but its status message.
func NewHistory(t *a2a.Task) []*a2a.Message {
	last := -1
	for i := range t.History {
		if t.History[i].FromUser() {
			last = i
		}
	}
	var out []*a2a.Message
	for i := last + 1; i < len(t.History); i++ {
		m := &t.History[i]
		if m.Role == "agent" && (t.Status.Message == nil || m.ID == "" || m.ID != t.Status.Message.ID) {
			out = append(out, m)
		}
	}
	return out
}

// seed takes a snapshot as shown without showing it (a resumed task's
// stale first frame): its messages count as shown, and its artifacts are
// skipped while later snapshots carry them unchanged.
func (r *Renderer) Seed(taskID string, t *a2a.Task) {
	r.Seen(taskID, t.Status.Message)
	for i := range t.History {
		r.Seen(taskID, &t.History[i])
	}
	for i := range t.Artifacts {
		a := &t.Artifacts[i]
		r.snapArts[taskID+"\x00"+a.ID] = partsHash(a.Parts)
	}
}

// SnapArtifact reports whether a snapshot's artifact is to be shown: not
// when the last snapshot (the stale first frame included) carried it
// unchanged, so that its text and usage count once.
func (r *Renderer) SnapArtifact(taskID string, a *a2a.Artifact) bool {
	key, h := taskID+"\x00"+a.ID, partsHash(a.Parts)
	if old, ok := r.snapArts[key]; ok && old == h {
		return false
	}
	r.snapArts[key] = h
	return true
}

func partsHash(parts []a2a.Part) uint64 {
	h := uint64(fnvOffset)
	for i := range parts {
		p := &parts[i]
		h = fnv(h, p.Text+"\x00"+p.URL+"\x00"+string(p.Data)+"\x00"+string(p.Raw)+"\x01")
	}
	return h
}

// Progress notes (SPEC §12.8): the text of a working status message says
// how the task is doing ("Generating response..."); the answer is the
// task's artifacts. A snapshot streamer (§12.4) writes its answer in the
// status message itself, so a working snapshot's text that opens a task
// is held for one frame: the next frame tells which it is. Artifact
// text, or a status message that does not grow from it, makes it a note;
// a status message that grows from it (or a task that completes without
// another answer) makes it answer text.

// noteFate is what a held note turned out to be.
type noteFate uint8

const (
	noteUndecided noteFate = iota
	noteIsNote
	noteIsAnswer
)

// holdNote holds a working snapshot's status message m of taskID.
func (r *Renderer) holdNote(taskID string, m *a2a.Message) {
	r.Seen(taskID, m)
	r.held, r.noteTask = m, taskID
}

// FirstFrame records a frame about taskID and reports whether it is the
// turn's first about that task.
func (r *Renderer) FirstFrame(taskID string) bool {
	if r.anyFramed && taskID == r.lastFramed {
		return false
	}
	r.lastFramed, r.anyFramed = taskID, true
	if r.framed[taskID] {
		return false
	}
	r.framed[taskID] = true
	return true
}

// holding reports whether a note of taskID is held.
func (r *Renderer) holding(taskID string) bool { return r.held != nil && r.noteTask == taskID }

// noted reports whether m of taskID was shown as a progress note with the
// text it has now (a note repeated is not answer text; one that grows
// after all is).
func (r *Renderer) noted(taskID string, m *a2a.Message) bool {
	if m == nil || m.ID == "" {
		return false
	}
	h, ok := r.notes[taskID+"\x00"+m.ID]
	return ok && h == fnv(fnvOffset, m.Text())
}

// settleNote shows the held note as what it turned out to be; it keeps it
// while undecided.
func (r *Renderer) settleNote(fate noteFate) []Out {
	m, taskID := r.held, r.noteTask
	switch {
	case m == nil || fate == noteUndecided:
		return nil
	case fate == noteIsAnswer:
		r.held = nil
		return r.StatusReplace(taskID, m)
	}
	r.held = nil
	return r.noteShown(taskID, m)
}

// noteShown shows the status message m of taskID as a progress note.
func (r *Renderer) noteShown(taskID string, m *a2a.Message) []Out {
	if m.ID != "" {
		r.notes[taskID+"\x00"+m.ID] = fnv(fnvOffset, m.Text())
	}
	return r.ProgressNote(taskID, m)
}

// ProgressNote shows the text of a working status message m of the task
// taskID as a progress note: a thought, or an info notice for a client
// that advertised notices (SPEC §12.8, §14).
func (r *Renderer) ProgressNote(taskID string, m *a2a.Message) []Out {
	if s := m.Text(); strings.TrimSpace(s) != "" {
		if r.opts.Notices {
			r.push(noticeOf(acp.NoticeInfo, s, s))
		} else {
			r.thought(r.MessageID(taskID, m), s)
		}
	}
	return r.take()
}

// snapshotFate reads the held note's fate from the next snapshot of its
// task: a note when the snapshot carries answer text in an artifact or
// its message was replaced by another; answer text when its message grew
// from it, or the task completed with nothing else to answer.
func (r *Renderer) snapshotFate(taskID string, t *a2a.Task) noteFate {
	if !r.holding(taskID) {
		return noteUndecided
	}
	for i := range t.Artifacts {
		if artifactAnswer(&t.Artifacts[i]) != "" {
			return noteIsNote
		}
	}
	held := r.held.Text()
	cur, found := "", false
	if m := t.Status.Message; m != nil && (m.ID == r.held.ID || m.ID == "" && r.held.ID == "") {
		cur, found = m.Text(), true
	} else if r.held.ID != "" {
		for i := range t.History {
			if h := &t.History[i]; h.ID == r.held.ID {
				cur, found = h.Text(), true
			}
		}
	}
	switch {
	case found && cur == held && t.Status.State != a2a.StateCompleted:
		return noteUndecided
	case found && strings.HasPrefix(cur, held):
		return noteIsAnswer
	case !found && t.Status.State == a2a.StateCompleted && t.Status.Message == nil && !r.artifactText:
		return noteIsAnswer
	}
	return noteIsNote
}

// endFate is the held note's fate when its task ends with the status st
// (a status update): answer text only when the task completes and the
// note is all it answered, or the completion's text grows from it.
func (r *Renderer) endFate(st a2a.Status) noteFate {
	if r.held == nil {
		return noteUndecided
	}
	if st.State != a2a.StateCompleted || r.artifactText {
		return noteIsNote
	}
	if text := st.Message.Text(); text == "" || strings.HasPrefix(text, r.held.Text()) {
		return noteIsAnswer
	}
	return noteIsNote
}

// ArtifactShows reports whether an artifact shows the person anything of
// the answer: text, a file, or data of no known extension.
func ArtifactShows(a *a2a.Artifact) bool {
	for i := range a.Parts {
		switch p := &a.Parts[i]; p.Kind {
		case a2a.PartText:
			if !p.Thought() && p.Text != "" {
				return true
			}
		case a2a.PartFile:
			return true
		case a2a.PartData:
			if !p.Known() {
				return true
			}
		}
	}
	return false
}

// SnapshotNote shows the held note as what the next snapshot of its task
// (SPEC §12.4) tells it was; nothing while that is undecided.
func (r *Renderer) SnapshotNote(taskID string, t *a2a.Task) []Out {
	return r.settleNote(r.snapshotFate(taskID, t))
}

// EndNote shows the held note as what the task's status update st (not a
// snapshot's) tells it was.
func (r *Renderer) EndNote(st a2a.Status) []Out { return r.settleNote(r.endFate(st)) }

// NoteBeforeAnswer shows a held note as a note: answer text other than
// its own follows.
func (r *Renderer) NoteBeforeAnswer() []Out { return r.settleNote(noteIsNote) }

// SnapshotStatus shows the status message of a snapshot of taskID, after
// its history and artifacts: nothing for a note already held or shown;
// beside artifact answer text, a working status text is a note, shown
// once; a working snapshot's text that opens the task (first) is held
// until the next frame tells what it is (SPEC §12.8); else the text is a
// replace of the task's status answer.
func (r *Renderer) SnapshotStatus(taskID string, st a2a.Status, first bool) []Out {
	switch m := st.Message; {
	case m == nil || r.holding(taskID) || r.noted(taskID, m):
	case r.artifactText:
		if st.State == a2a.StateWorking && !r.statusShown && !r.Seen(taskID, m) {
			return r.noteShown(taskID, m)
		}
	case st.State == a2a.StateWorking && first && m.Text() != "":
		r.holdNote(taskID, m)
	case st.State == a2a.StateSubmitted, st.State == a2a.StateWorking, st.State == a2a.StateCompleted, st.State == a2a.StateUnknown:
		return r.StatusReplace(taskID, m)
	}
	return nil
}

// StatusAnswered reports whether answer text of the turn came from a
// status message (a snapshot streamer's answer).
func (r *Renderer) StatusAnswered() bool { return r.statusShown }
