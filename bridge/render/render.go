package render

// The renderer: a2a values (artifacts, messages, tool calls, a past
// turn) to ACP updates, as a few values with one job each, composed by a
// thin owner (Renderer) that wires them to one output (sink) and one
// source of shim's own message ids (msgIDs, out.go). Each value holds
// only what its mapping remembers within one turn, and nothing else: no
// server, no turn, no lock, no network (tool paths are resolved against
// the roots it is given). The live turn feeds them events and routes
// what comes out (the prompt, the grace buffer, nobody); replay feeds a
// past turn's values in order and sends what comes out.

import (
	"github.com/shimdev/shim/a2a"
	"github.com/shimdev/shim/acp"
	"github.com/shimdev/shim/bridge/render/question"
	"github.com/shimdev/shim/bridge/render/shown"
	"github.com/shimdev/shim/bridge/render/toolpath"
)

// Draws is what the client draws of what shim sends: elicitation forms
// (SPEC §11.3), command calls as terminals (§11.6), notices (§14). It is
// read once from the client's capabilities (DrawsOf) and passed on as it
// is, to a turn and to its renderer.
type Draws struct {
	Forms, Terminals, Notices bool
}

// DrawsOf is what a client with the capabilities c draws.
func DrawsOf(c acp.ClientCapabilities) Draws {
	return Draws{Forms: c.FormElicitation(), Terminals: c.TerminalOutput(), Notices: c.Notices()}
}

// Renderer maps one turn's a2a values to updates through the values it
// composes, each one mapping's memory: the answer text (Answer), the tool
// calls (Tools, the one value that decides how a tool call looks), the
// task snapshots and progress notes (Snapshots), what shim says about
// itself (Notices), a past turn (Past). What any of them renders comes
// out of the call that rendered it, in order. It is used by one goroutine
// at a time.
type Renderer struct {
	Answer    Answer
	Tools     Tools
	Snapshots Snapshots
	Notices   Notices
	Past      Past

	out sink
	ids msgIDs
}

// New returns a renderer for a turn (or a replayed turn) of the agent
// named agent, for a client that draws d; tool paths resolve against
// roots.
func New(agent string, roots toolpath.Roots, d Draws) *Renderer {
	r := &Renderer{
		Answer:    Answer{agent: agent, texts: map[string]*answerText{}, statusText: shown.New()},
		Tools:     Tools{roots: roots, terminals: d.Terminals, calls: calls{open: map[string]*call{}}},
		Snapshots: Snapshots{msgs: map[string]uint8{}, snapArts: map[string]uint64{}, notes: map[string]uint64{}, framed: map[string]bool{}, heldOnce: map[string]bool{}},
		Notices:   Notices{on: d.Notices},
	}
	r.wire()
	return r
}

// Renew makes r what New(agent, roots, d) returns, keeping the room of
// its maps and lists, and the ids of shim's own messages going on: a
// replay renders each past turn through a renderer of its own, and ten
// thousand new ones were a fifth of what it allocated. What r rendered
// before must have been taken and used.
func (r *Renderer) Renew(agent string, roots toolpath.Roots, d Draws) {
	st := r.Answer.statusText
	st.Reset()
	a, t, s := &r.Answer, &r.Tools, &r.Snapshots
	clear(a.texts)
	clear(t.calls.open)
	clear(s.msgs)
	clear(s.snapArts)
	clear(s.notes)
	clear(s.framed)
	clear(s.heldOnce)
	*r = Renderer{
		Answer:    Answer{agent: agent, texts: a.texts, statusText: st},
		Tools:     Tools{roots: roots, terminals: d.Terminals, calls: calls{open: t.calls.open, order: t.calls.order[:0]}},
		Snapshots: Snapshots{msgs: s.msgs, snapArts: s.snapArts, notes: s.notes, framed: s.framed, heldOnce: s.heldOnce},
		Notices:   Notices{on: d.Notices},
		Past:      Past{list: r.Past.list[:0]},
		out:       sink{buf: r.out.buf[:0]},
		ids:       msgIDs{own: r.ids.own},
	}
	r.wire()
}

// wire gives each value what it shares with the others.
func (r *Renderer) wire() {
	r.Answer.out, r.Answer.ids = &r.out, &r.ids
	r.Tools.out = &r.out
	r.Snapshots.answer, r.Snapshots.notices = &r.Answer, &r.Notices
	r.Notices.out, r.Notices.ids, r.Notices.answer = &r.out, &r.ids, &r.Answer
	r.Past.out, r.Past.ids, r.Past.answer, r.Past.tools = &r.out, &r.ids, &r.Answer, &r.Tools
}

// Approvals are the approvals asked on the cards of the turn's tool
// calls (Tools): over the same calls, shown as they show them, to the
// same output.
func (r *Renderer) Approvals() *Approvals {
	return &Approvals{out: &r.out, calls: &r.Tools.calls, roots: r.Tools.roots, terminals: r.Tools.terminals}
}

// AuthRequired shows an auth-required status of the task taskID: the
// view of the tool call its data names (pending), then its text as answer
// text.
func (r *Renderer) AuthRequired(taskID string, m *a2a.Message) []Out {
	var outs []Out
	if m.Hitl() == nil {
		_, outs = r.Tools.ParkTool(m.ParkData())
		outs = append([]Out(nil), outs...)
	}
	return append(outs, r.Answer.StatusAnswer(r.Answer.MessageID(taskID, m), question.AuthText(m))...)
}
