package render

// What the values of a renderer share: the output they render into, in
// order (sink), as updates (Out), and the ids of the messages they show
// (SPEC §14: every chunk names its message).

import (
	"strconv"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/internal/randid"
)

// Out is one rendered update. Answer text (update nil) is kept unboxed
// with the id of its message, so that the live path can merge queued
// chunks of one message (stdio.Conn.SendText).
type Out struct {
	update acp.Update
	text   string
	msgID  string
}

// AnswerChunk is the update of answer text of the message id (SPEC §14:
// every chunk names its message).
func AnswerChunk(id, s string) acp.Update {
	return acp.AgentMessageChunk{MessageID: id, Content: acp.Text(s)}
}

// Update returns the update o stands for.
func (o Out) Update() acp.Update {
	if o.update != nil {
		return o.update
	}
	return AnswerChunk(o.msgID, o.text)
}

// AnswerText is the answer text o carries and the id of its message (the
// key its queued chunks merge under); ok is false for any other update.
func (o Out) AnswerText() (messageID, text string, ok bool) {
	return o.msgID, o.text, o.update == nil
}

// sink is what a renderer's values rendered since it was last taken, in
// order.
type sink struct{ buf []Out }

func (s *sink) push(u acp.Update) { s.buf = append(s.buf, Out{update: u}) }

// text adds answer text of the message id, unboxed.
func (s *sink) text(id, t string) { s.buf = append(s.buf, Out{text: t, msgID: id}) }

// take returns what was rendered since the last take; the slice is valid
// until the next call of a rendering method.
func (s *sink) take() []Out {
	b := s.buf
	s.buf = s.buf[:0]
	return b
}

// msgIDs are the ids of the messages shim writes itself (a note, a
// steer's marker with no id): own-1, own-2, …, own unique in the session
// (drawn on first use, and kept by Renew).
type msgIDs struct {
	own string
	n   int
}

// next is the id of a message shim writes itself.
func (m *msgIDs) next() string {
	if m.own == "" {
		m.own = "shim-" + randid.Hex(6)
	}
	m.n++
	return m.own + "-" + strconv.Itoa(m.n)
}

// of is the message id of the chunks of an A2A message of the task
// taskID: its own messageId, else one its task names (a message with no
// id), else one of shim's.
func (m *msgIDs) of(taskID string, msg *a2a.Message) string {
	if id := messageID(taskID, msg); id != "" {
		return id
	}
	return m.next()
}

// ArtifactMessageID is the message id of an artifact's chunks: artifact
// ids are unique only within their task, so the task's id makes it one
// of the session (SPEC §14). Live and replayed alike.
func ArtifactMessageID(taskID, artifactID string) string {
	if taskID == "" {
		return artifactID
	}
	return taskID + "/" + artifactID
}

// messageID is msgIDs.of but for shim's own: "" when neither the message
// nor its task has an id.
func messageID(taskID string, m *a2a.Message) string {
	switch {
	case m != nil && m.ID != "":
		return m.ID
	case taskID != "":
		return taskID + "/message"
	}
	return ""
}
