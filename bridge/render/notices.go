package render

// What shim says about itself in a turn (SPEC §14; the notices are
// package notice's): to a client that advertised session.notices, a
// notice shown apart from the conversation; to any other, what it always
// was: a thought, a line of the answer, or nothing but the log.

import (
	"strings"

	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render/notice"
)

// Notices are what shim says in a turn about itself, and an agent's
// progress notes: notices to a client that draws them, else as they
// always were.
type Notices struct {
	out    *sink
	ids    *msgIDs
	answer *Answer
	on     bool // the client draws notices
}

// Say shows a notice of the turn: a notice update when the client
// advertised notices, else as it always was.
func (n *Notices) Say(x notice.Notice) []Out {
	switch {
	case n.on:
		n.out.push(x.Update())
	case x.Else == notice.ToldAsThought:
		n.answer.thought(n.ids.next(), x.Shown)
	case x.Else == notice.ToldAsAnswer:
		n.answer.block(n.ids.next(), x.Shown)
	}
	return n.out.take()
}

// ProgressNote shows the text of a working status message m of the task
// taskID as a progress note: a thought, or an info notice for a client
// that advertised notices (SPEC §12.8, §14).
func (n *Notices) ProgressNote(taskID string, m *a2a.Message) []Out {
	if s := m.Text(); strings.TrimSpace(s) != "" {
		if n.on {
			n.out.push(notice.Of(acp.NoticeInfo, s, s))
		} else {
			n.answer.thought(n.ids.of(taskID, m), s)
		}
	}
	return n.out.take()
}
