package render

// Task snapshots in a stream (SPEC §12.4): some agents stream whole tasks
// whose status message grows as the answer is written. A snapshot is
// shown like replaced artifacts; the messages of its history already
// shown (by messageId) are not shown again.

import (
	"strconv"
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/bridge/render/shown"
)

// Snapshots are what a turn's task snapshots and progress notes left to
// remember: the messages shown, by task and id; the artifacts snapshots
// carried (a hash of their parts); the note held for one frame and the
// notes shown; the tasks a frame was about.
type Snapshots struct {
	answer  *Answer
	notices *Notices

	msgs     map[string]uint8
	snapArts map[string]uint64
	// held is a working snapshot's status message held for one frame,
	// of the task noteTask (a progress note or a snapshot streamer's
	// answer); notes are the status messages shown as notes (a hash of
	// their text); framed are the tasks a frame of the turn was about,
	// lastFramed the one the last frame was about once anyFramed (a
	// stream's frames are of one task: no map lookup while it repeats).
	held       *a2a.Message
	noteTask   string
	heldOfHist bool            // held came from a snapshot's history
	heldOnce   map[string]bool // the tasks a working status text was held or shown as a note of
	notes      map[string]uint64
	framed     map[string]bool
	lastFramed string
	anyFramed  bool
}

// Message marks kept per task and message id.
const (
	msgShown  = 1 // the message was shown
	msgAnswer = 2 // its text went through the task's status answer
)

// Seen records that the message m of taskID was shown and reports whether
// it had been. A message with no id is known by its parts.
func (s *Snapshots) Seen(taskID string, m *a2a.Message) bool {
	if m == nil {
		return false
	}
	key := taskID + "\x00" + m.ID
	if m.ID == "" {
		key = taskID + "\x00#" + strconv.FormatUint(partsHash(m.Parts), 16)
	}
	was := s.msgs[key] != 0
	s.msgs[key] |= msgShown
	return was
}

// StatusReplace shows the agent text of a snapshot's status message as a
// replace of the task's one status answer: only the suffix not shown yet.
func (s *Snapshots) StatusReplace(taskID string, m *a2a.Message) []Out {
	if m == nil || m.FromUser() {
		return nil
	}
	s.Seen(taskID, m)
	if m.ID != "" {
		s.msgs[taskID+"\x00"+m.ID] |= msgAnswer
	}
	return s.answer.statusReplace(taskID, m)
}

// Answered reports whether the message id of taskID was shown as the
// task's status answer.
func (s *Snapshots) Answered(taskID string, m *a2a.Message) bool {
	return m != nil && m.ID != "" && s.msgs[taskID+"\x00"+m.ID]&msgAnswer != 0
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

// Seed takes a snapshot as shown without showing it (a resumed task's
// stale first frame): its messages count as shown, and its artifacts are
// skipped while later snapshots carry them unchanged.
func (s *Snapshots) Seed(taskID string, t *a2a.Task) {
	s.heldOnce[taskID] = true // a resumed task's answer streams as it did
	s.Seen(taskID, t.Status.Message)
	for i := range t.History {
		s.Seen(taskID, &t.History[i])
	}
	for i := range t.Artifacts {
		a := &t.Artifacts[i]
		s.snapArts[taskID+"\x00"+a.ID] = partsHash(a.Parts)
	}
}

// SnapArtifact reports whether a snapshot's artifact is to be shown: not
// when the last snapshot (the stale first frame included) carried it
// unchanged, so that its text and usage count once.
func (s *Snapshots) SnapArtifact(taskID string, a *a2a.Artifact) bool {
	key, h := taskID+"\x00"+a.ID, partsHash(a.Parts)
	if old, ok := s.snapArts[key]; ok && old == h {
		return false
	}
	s.snapArts[key] = h
	return true
}

func partsHash(parts []a2a.Part) uint64 {
	h := uint64(shown.FNVOffset)
	for i := range parts {
		p := &parts[i]
		h = shown.FNV(h, p.Text+"\x00"+p.URL+"\x00"+string(p.Data)+"\x00"+string(p.Raw)+"\x01")
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
	noteIsStatus // the status that ends the task carries it: shown there
)

// holdNote holds a working snapshot's status message m of taskID.
func (s *Snapshots) holdNote(taskID string, m *a2a.Message) {
	s.Seen(taskID, m)
	s.held, s.noteTask, s.heldOfHist = m, taskID, false
}

// HoldHistory holds an agent message m of the history of a snapshot t of
// taskID like a progress note (SPEC §16, one message, one place), when
// it has an id and is text alone, was not shown, and t's status carries no
// message of its own: the next frame tells what it is (a completed
// status carrying the same message: the answer). A note held before it
// is shown as a note. It reports false when m is not held.
func (s *Snapshots) HoldHistory(taskID string, t *a2a.Task, m *a2a.Message) ([]Out, bool) {
	if m.ID == "" || !plainText(m) || t.Status.Message != nil || s.msgs[taskID+"\x00"+m.ID] != 0 {
		return nil, false
	}
	outs := s.settleNote(noteIsNote)
	s.holdNote(taskID, m)
	s.heldOfHist = true
	return outs, true
}

// plainText reports whether m is text alone (no thought, tool or other
// part) and says something.
func plainText(m *a2a.Message) bool {
	if len(m.Tools) > 0 {
		return false
	}
	for i := range m.Parts {
		if p := &m.Parts[i]; p.Kind != a2a.PartText || p.Thought() {
			return false
		}
	}
	return strings.TrimSpace(m.Text()) != ""
}

// ResentInStatus reports whether the held note came from a snapshot's
// history and the status st carries that same message (the next frame
// of a server that sends its answer in both).
func (s *Snapshots) ResentInStatus(st a2a.Status) bool {
	return s.held != nil && s.heldOfHist && st.Message != nil && st.Message.ID == s.held.ID
}

// FirstFrame records a frame about taskID and reports whether it is the
// turn's first about that task.
func (s *Snapshots) FirstFrame(taskID string) bool {
	if s.anyFramed && taskID == s.lastFramed {
		return false
	}
	s.lastFramed, s.anyFramed = taskID, true
	if s.framed[taskID] {
		return false
	}
	s.framed[taskID] = true
	return true
}

// holding reports whether a note of taskID is held.
func (s *Snapshots) holding(taskID string) bool { return s.held != nil && s.noteTask == taskID }

// StatusNote shows the text of a working status update's message m of
// taskID as a progress note (SPEC §12.8); a later snapshot's status text
// of the task is then not held as one that opens it.
func (s *Snapshots) StatusNote(taskID string, m *a2a.Message) []Out {
	if m.Text() != "" {
		s.heldOnce[taskID] = true
	}
	return s.notices.ProgressNote(taskID, m)
}

// Holding reports whether a progress note of taskID is held.
func (s *Snapshots) Holding(taskID string) bool { return s.holding(taskID) }

// noted reports whether m of taskID was shown as a progress note with the
// text it has now (a note repeated is not answer text; one that grows
// after all is).
func (s *Snapshots) noted(taskID string, m *a2a.Message) bool {
	if m == nil || m.ID == "" {
		return false
	}
	h, ok := s.notes[taskID+"\x00"+m.ID]
	return ok && h == shown.FNV(shown.FNVOffset, m.Text())
}

// settleNote shows the held note as what it turned out to be; it keeps it
// while undecided.
func (s *Snapshots) settleNote(fate noteFate) []Out {
	m, taskID := s.held, s.noteTask
	switch {
	case m == nil || fate == noteUndecided:
		return nil
	case fate == noteIsAnswer:
		s.held = nil
		return s.StatusReplace(taskID, m)
	case fate == noteIsStatus:
		s.held = nil
		return nil
	}
	s.held = nil
	return s.noteShown(taskID, m)
}

// noteShown shows the status message m of taskID as a progress note.
func (s *Snapshots) noteShown(taskID string, m *a2a.Message) []Out {
	if m.ID != "" {
		s.notes[taskID+"\x00"+m.ID] = shown.FNV(shown.FNVOffset, m.Text())
	}
	return s.notices.ProgressNote(taskID, m)
}

// snapshotFate reads the held note's fate from the next snapshot of its
// task: a note when the snapshot carries answer text in an artifact or
// its message was replaced by another; answer text when its message grew
// from it, or the task completed with nothing else to answer.
func (s *Snapshots) snapshotFate(taskID string, t *a2a.Task) noteFate {
	if !s.holding(taskID) {
		return noteUndecided
	}
	for i := range t.Artifacts {
		if artifactAnswer(&t.Artifacts[i]) != "" {
			return noteIsNote
		}
	}
	held := s.held.Text()
	cur, found := "", false
	if m := t.Status.Message; m != nil && (m.ID == s.held.ID || m.ID == "" && s.held.ID == "") {
		cur, found = m.Text(), true
	} else if s.held.ID != "" {
		for i := range t.History {
			if h := &t.History[i]; h.ID == s.held.ID {
				cur, found = h.Text(), true
			}
		}
	}
	switch {
	case found && cur == held && t.Status.State != a2a.StateCompleted:
		return noteUndecided
	case found && strings.HasPrefix(cur, held):
		return noteIsAnswer
	case !found && t.Status.State == a2a.StateCompleted && t.Status.Message == nil && !s.answer.artifactText:
		return noteIsAnswer
	}
	return noteIsNote
}

// endFate is the held note's fate when its task ends with the status st
// (a status update): answer text only when the task completes and the
// note is all it answered, or the completion's text grows from it.
func (s *Snapshots) endFate(st a2a.Status) noteFate {
	if s.held == nil {
		return noteUndecided
	}
	if s.ResentInStatus(st) && st.State != a2a.StateCompleted {
		return noteIsStatus // one message, one place: where the status shows it
	}
	if st.State != a2a.StateCompleted || s.answer.artifactText {
		return noteIsNote
	}
	if text := st.Message.Text(); text == "" || strings.HasPrefix(text, s.held.Text()) {
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
func (s *Snapshots) SnapshotNote(taskID string, t *a2a.Task) []Out {
	return s.settleNote(s.snapshotFate(taskID, t))
}

// EndNote shows the held note as what the task's status update st (not a
// snapshot's) tells it was.
func (s *Snapshots) EndNote(st a2a.Status) []Out { return s.settleNote(s.endFate(st)) }

// NoteBeforeAnswer shows a held note as a note: answer text other than
// its own follows.
func (s *Snapshots) NoteBeforeAnswer() []Out { return s.settleNote(noteIsNote) }

// SnapshotStatus shows the status message of a snapshot of taskID, after
// its history and artifacts: nothing for a note already held or shown;
// beside artifact answer text, a working status text is a note, shown
// once; the first working status text of the task, in any frame of it
// (SPEC §16, progress notes anywhere in the task), is held until the next
// frame tells what it is (§12.8), unless it is already the task's status
// answer; else the text is a replace of the task's status answer.
func (s *Snapshots) SnapshotStatus(taskID string, st a2a.Status) []Out {
	switch m := st.Message; {
	case m == nil || s.holding(taskID) || s.noted(taskID, m):
	case s.answer.artifactText:
		if st.State == a2a.StateWorking && !s.answer.statusShown && !s.Seen(taskID, m) {
			return s.noteShown(taskID, m)
		}
	case st.State == a2a.StateWorking && m.Text() != "" && !s.heldOnce[taskID] && !s.Answered(taskID, m):
		s.heldOnce[taskID] = true
		s.holdNote(taskID, m)
	case st.State == a2a.StateSubmitted, st.State == a2a.StateWorking, st.State == a2a.StateCompleted, st.State == a2a.StateUnknown:
		return s.StatusReplace(taskID, m)
	}
	return nil
}
