package bridge

// Task snapshots in a stream (SPEC §12.4): some agents stream whole tasks
// whose status message grows as the answer is written. A snapshot is
// shown like replaced artifacts; the messages of its history already
// shown (by messageId) are not shown again.

import (
	"strconv"

	"github.com/shimdev/shim/a2a"
)

// Message marks kept per task and message id.
const (
	msgShown  = 1 // the message was shown
	msgAnswer = 2 // its text went through the task's status answer
)

// seen records that the message m of taskID was shown and reports whether
// it had been. A message with no id is known by its parts.
func (r *renderer) seen(taskID string, m *a2a.Message) bool {
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

// statusReplace shows the agent text of a snapshot's status message as a
// replace of the task's one status answer: only the suffix not shown yet.
func (r *renderer) statusReplace(taskID string, m *a2a.Message) []out {
	if m == nil || m.FromUser() {
		return nil
	}
	r.seen(taskID, m)
	if m.ID != "" {
		r.msgs[taskID+"\x00"+m.ID] |= msgAnswer
	}
	key := taskID + "\x00" + statusAnswerKey
	st := r.texts[key]
	if st == nil {
		st = newShownText()
		r.texts[key] = st
	}
	if s := st.Replace(m.Text()); s != "" {
		if !r.shownIDs[key] {
			r.shownIDs[key] = true
			s = r.blocks.start(s)
		}
		r.buf = append(r.buf, out{text: s, artifact: statusAnswerKey})
		r.blocks.shown()
		r.statusShown = true
	}
	return r.take()
}

// answered reports whether the message id of taskID was shown as the
// task's status answer.
func (r *renderer) answered(taskID string, m *a2a.Message) bool {
	return m != nil && m.ID != "" && r.msgs[taskID+"\x00"+m.ID]&msgAnswer != 0
}

// newHistory returns the agent messages of a snapshot's history after its
// last user message (the turn's own), but its status message.
func newHistory(t *a2a.Task) []*a2a.Message {
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
func (r *renderer) seed(taskID string, t *a2a.Task) {
	r.seen(taskID, t.Status.Message)
	for i := range t.History {
		r.seen(taskID, &t.History[i])
	}
	for i := range t.Artifacts {
		a := &t.Artifacts[i]
		r.snapArts[taskID+"\x00"+a.ID] = partsHash(a.Parts)
	}
}

// snapArtifact reports whether a snapshot's artifact is to be shown: not
// when the last snapshot (the stale first frame included) carried it
// unchanged, so that its text and usage count once.
func (r *renderer) snapArtifact(taskID string, a *a2a.Artifact) bool {
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
